import BLECore

/// The capture's clock as a replay reads it: never running backwards (issue 17).
///
/// Timestamps come from files, and files lie (STYLE lesson 15): a capture's clock can step back
/// (a phone's clock set back, records merged out of order) or a record can carry an absurd
/// timestamp (outside `Timestamp.plausible`). A replay measures every time from a connection's
/// origin, so either gave negative delays and durations. Here each record's time is the latest
/// plausible time of the records up to it in frame order: a record whose timestamp steps back,
/// or is absurd, counts as simultaneous with the latest record before it (before any plausible
/// record: with the first plausible one; in a capture with none, with its first record). A capture whose clock only moves forward keeps its
/// timestamps as they are.
///
/// Only the records whose time moved are kept, as runs of consecutive frames sharing one time,
/// so a well-behaved capture costs nothing and a hostile one at most one run per record.
///
/// Lives with the timeline since the import runs it too (`StoredPacketScan`, issue 12); what a
/// replay says about it is `RecordingClock.note` (BLEReplay).
public struct RecordingClock: Sendable {
    struct Run: Sendable {
        var first: Int
        var last: Int
        var time: Int64
    }
    private var runs: [Run] = []
    private var latest: Int64?
    /// Records whose timestamp stepped back, and the largest step (µs) with its frame.
    public private(set) var stepsBack = 0
    public private(set) var largestStep: (frame: Int, by: Int64)?
    /// Records with an absurd timestamp (the import warned about each).
    public private(set) var absurd = 0

    /// `firstPlausible`: the capture's first plausible timestamp, the time of absurd records
    /// that come before any plausible one.
    public init(firstPlausible: Int64?) {
        latest = firstPlausible
    }

    /// Takes the next record in frame order; returns its time on this clock.
    public mutating func next(frame: Int, raw: Int64) -> Int64 {
        var time = raw
        if !Timestamp.isPlausible(raw) {
            absurd += 1
            // No plausible record in the whole capture: the first absurd time is the clock's.
            guard let l = latest else { latest = raw; return raw }
            time = l
        } else if let l = latest, raw < l {
            stepsBack += 1
            let by = l.saturatingSubtracting(raw)
            if by > largestStep?.by ?? 0 { largestStep = (frame, by) }
            time = l
        }
        latest = time
        guard time != raw else { return raw }
        if let r = runs.last, r.last == frame - 1, r.time == time {
            runs[runs.count - 1].last = frame
        } else {
            runs.append(Run(first: frame, last: frame, time: time))
        }
        return time
    }

    /// The time of the record `frame` whose timestamp is `raw`.
    public func time(frame: Int?, raw: Int64) -> Int64 {
        guard !runs.isEmpty, let frame else { return raw }
        var lo = 0, hi = runs.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if runs[mid].last < frame { lo = mid + 1 } else { hi = mid }
        }
        guard lo < runs.count, runs[lo].first <= frame else { return raw }
        return runs[lo].time
    }

    // MARK: - Stored (issue 12)

    /// The runs as `capture_packet_scan.clock_runs` keeps them: per run its first frame, last
    /// frame and time, each a little-endian Int64.
    var storedRuns: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(runs.count * 24)
        for r in runs {
            for v in [Int64(r.first), Int64(r.last), r.time] {
                withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) }
            }
        }
        return out
    }

    /// The clock as a finished run over a capture left it (`storedRuns` and the counts), for
    /// `time(frame:raw:)` and the note; `latest` is not kept, so it must not be run further.
    init(storedRuns: [UInt8], stepsBack: Int, largestStep: (frame: Int, by: Int64)?, absurd: Int) {
        var i = 0
        func int64() -> Int64 {
            var v: UInt64 = 0
            for k in 0..<8 { v |= UInt64(storedRuns[i + k]) << (8 * UInt64(k)) }
            i += 8
            return Int64(bitPattern: v)
        }
        while i + 24 <= storedRuns.count {
            let first = int64(), last = int64(), time = int64()
            runs.append(Run(first: Int(truncatingIfNeeded: first), last: Int(truncatingIfNeeded: last), time: time))
        }
        self.stepsBack = stepsBack
        self.largestStep = largestStep
        self.absurd = absurd
    }
}
