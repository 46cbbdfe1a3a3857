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
/// A step back of more than `resetStep` (1 s) is the clock being set back (a phone's clock
/// corrected by the network, a gateway's by NTP), not records merged out of order: the records
/// after it go on from the new setting, so they keep their spacing, shifted by the step, instead
/// of all counting as simultaneous with the last record before the step (which squeezed the rest
/// of the capture into one instant and made a faithful replay of a sound session diverge).
/// Smaller steps are clamped as before, so records merged a little out of order never shift the
/// rest of the capture.
///
/// Only the records whose time moved are kept, as runs of consecutive frames sharing one time
/// (or, after a reset, one shift), so a well-behaved capture costs nothing and a hostile one at
/// most one run per record.
///
/// Lives with the timeline since the import runs it too (`StoredPacketScan`, issue 12); what a
/// replay says about it is `RecordingClock.note` (BLEReplay).
public struct RecordingClock: Sendable {
    struct Run: Sendable {
        var first: Int
        var last: Int
        /// The records' time, or with `shifted` the shift added to their own timestamps.
        var time: Int64
        var shifted = false
    }
    /// A step back larger than this (µs) is the clock being set back: what follows keeps its spacing.
    public static let resetStep: Int64 = 1_000_000
    private var runs: [Run] = []
    private var latest: Int64?
    /// What the resets so far add to every plausible timestamp.
    private var shift: Int64 = 0
    /// Steps back taken as the clock being set back (more than `resetStep`).
    public private(set) var resets = 0
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
        } else {
            time = raw.saturatingAdding(shift)
            if let l = latest, time < l {
                stepsBack += 1
                let by = l.saturatingSubtracting(time)
                if by > largestStep?.by ?? 0 { largestStep = (frame, by) }
                if by > Self.resetStep {
                    resets += 1
                    shift = shift.saturatingAdding(by)
                }
                time = l
            }
        }
        latest = time
        guard time != raw else { return raw }
        // A record on the shifted clock is kept as its shift, so a run covers every record up to
        // the next step; a clamped or absurd one as its time.
        let shifted = Timestamp.isPlausible(raw) && shift != 0 && raw.saturatingAdding(shift) == time
        let value = shifted ? shift : time
        if let r = runs.last, r.last == frame - 1, r.shifted == shifted, r.time == value {
            runs[runs.count - 1].last = frame
        } else {
            runs.append(Run(first: frame, last: frame, time: value, shifted: shifted))
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
        return runs[lo].shifted ? raw.saturatingAdding(runs[lo].time) : runs[lo].time
    }

    // MARK: - Stored (issue 12)

    /// The runs as `capture_packet_scan.clock_runs` keeps them: per run its first frame, last
    /// frame and time, each a little-endian Int64; a shifted run's first frame has its sign bit
    /// set and its time is the shift (frames are never negative, so older rows read as before).
    var storedRuns: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(runs.count * 24)
        for r in runs {
            for v in [Int64(r.first) | (r.shifted ? Int64.min : 0), Int64(r.last), r.time] {
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
            runs.append(Run(first: Int(truncatingIfNeeded: first & Int64.max), last: Int(truncatingIfNeeded: last), time: time,
                            shifted: first < 0))
        }
        // Each reset gives the records after it a new shift.
        var lastShift: Int64 = 0
        for r in runs where r.shifted && r.time != lastShift {
            resets += 1
            lastShift = r.time
        }
        self.stepsBack = stepsBack
        self.largestStep = largestStep
        self.absurd = absurd
    }
}
