/// The local host's connection requests of a capture (LE Create Connection, LE Extended Create
/// Connection, Core v5.4 Vol 4 Part E 7.8.12 and 7.8.66; Create Connection, 7.1.5), each claimed
/// by at most one connection: the latest unclaimed one at or before the connection's origin.
///
/// The times are in frame order on the capture's clock (`RecordingClock`), so never decreasing:
/// the requests at or before a time are a prefix, found by binary search, and the latest
/// unclaimed one in it by following each claimed request to the one before it, paths shortened
/// as they are followed. Looking at every request for every connection made a capture of many
/// connections quadratic (issue 17: per-link lookups must be constant time).
struct CreateConnectionClaims {
    let times: [Int64]
    /// Per request index + 1: the index + 1 of the latest unclaimed request at or before it
    /// (0: none), up to date for unclaimed requests, a shortcut for claimed ones.
    private var unclaimedAtOrBefore: [Int]
    /// Requests looked at while claiming (what a test counts).
    private(set) var visited = 0

    init(times: [Int64]) {
        self.times = times
        unclaimedAtOrBefore = Array(0...times.count)
    }

    /// Claims the latest unclaimed request at or before `time`; returns its time.
    mutating func claim(atOrBefore time: Int64) -> Int64? {
        var lo = 0, hi = times.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if times[mid] <= time { lo = mid + 1 } else { hi = mid }
        }
        let found = root(lo)
        guard found > 0 else { return nil }
        unclaimedAtOrBefore[found] = found - 1
        return times[found - 1]
    }

    /// The latest unclaimed request at or before position `i` (index + 1), shortening the path.
    private mutating func root(_ i: Int) -> Int {
        var r = i
        while unclaimedAtOrBefore[r] != r {
            r = unclaimedAtOrBefore[r]
            visited += 1
        }
        var j = i
        while unclaimedAtOrBefore[j] != r {
            let next = unclaimedAtOrBefore[j]
            unclaimedAtOrBefore[j] = r
            j = next
        }
        return r
    }
}
