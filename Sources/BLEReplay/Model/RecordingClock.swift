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
    init(firstPlausible: Int64?) {
        latest = firstPlausible
    }

    /// Takes the next record in frame order; returns its time on this clock.
    mutating func next(frame: Int, raw: Int64) -> Int64 {
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

    /// What the replay says about the clock, when it moved any record (nil otherwise).
    public var note: String? {
        var parts: [String] = []
        if stepsBack > 0, let s = largestStep {
            parts.append("steps back at \(stepsBack) record(s) (the largest step \(VirtualDuration.short(s.by)), at packet \(s.frame))")
        }
        if absurd > 0 { parts.append("has \(absurd) record(s) with an absurd timestamp") }
        guard !parts.isEmpty else { return nil }
        return "the capture's clock " + parts.joined(separator: " and ")
            + ": the replay takes each such record as simultaneous with the latest record before it, so no time or duration here runs backwards"
    }
}
