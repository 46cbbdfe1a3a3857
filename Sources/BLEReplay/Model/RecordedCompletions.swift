import BLETimeline

/// The recorded controller's Number Of Completed Packets per connection (Core v5.4 Vol 4 Part E
/// 7.7.19, 4.1.1 flow control): when each LE ACL buffer the host filled on that handle came back.
/// A connection is its controller's handle (`ControllerHandle`): in a btmon capture of several
/// adapters another controller's returns on the same handle belong to another link.
/// A faithful replay returns each buffer when the recording did, so a host that waited for a
/// buffer (a burst of Write Commands over the controller's 8) sends when it sent, whatever the
/// link's connection-event grid (which HCI never shows) would say.
enum RecordedCompletions {
    /// Fills `times` with each connection's buffer returns, one connection's after another's, and
    /// sets each connection's `completionRange` to its own: one entry per packet the controller
    /// reported completed on its controller's handle while it was up, microseconds from the
    /// connection's origin. One list for them all, at its size (issue 17: a list for each link
    /// was 64 bytes a link). `byLink` is every Number Of Completed Packets of the capture
    /// (`CapturePacketScan`), in frame order on the capture's clock, so in time order: a
    /// connection's are found by binary
    /// search, where looking at every one of its handle's made a capture whose controller reused
    /// a handle for many connections quadratic (issue 17). Returns the events looked at.
    @discardableResult
    static func assign(_ byLink: [ControllerHandle: [(time: Int64, count: Int)]], to connections: inout [RecordedConnection],
                       times: inout [Int64]) -> Int {
        var visited = 0
        // Each connection's returns in `byLink` (its list, and where in it), and their packets.
        var spans: [(list: [(time: Int64, count: Int)], range: Range<Int>)?] = Array(repeating: nil, count: connections.count)
        var total = 0
        for k in connections.indices {
            let c = connections[k]
            guard c.isEstablished, let list = byLink[ControllerHandle(controller: c.controller, handle: c.handle)] else { continue }
            let to = c.origin &+ c.end
            var lo = 0, hi = list.count
            while lo < hi {
                let mid = (lo + hi) / 2
                visited += 1
                if list[mid].time < c.origin { lo = mid + 1 } else { hi = mid }
            }
            // Counted first, so the list is made at its size (issue 17: grown an event at a time,
            // a link's list had a third more room than entries).
            var end = lo
            while end < list.count, list[end].time <= to {
                total += min(list[end].count, 4096)
                end += 1
            }
            if end < list.count { visited += 1 }
            spans[k] = (list, lo..<end)
        }
        times.reserveCapacity(times.count + total)
        for k in connections.indices {
            guard let span = spans[k] else { continue }
            let first = times.count
            for e in span.list[span.range] {
                visited += 1
                times += repeatElement(e.time &- connections[k].origin, count: min(e.count, 4096))
            }
            connections[k].completionRange = Int32(first)..<Int32(times.count)
        }
        return visited
    }
}
