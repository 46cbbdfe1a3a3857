import BLECore
import BLECapture

/// Why a recording ended.
public enum StopReason: Sendable, Hashable {
    /// SIGINT, SIGTERM or another `StopFlag` request.
    case stopRequested
    /// The source ended (end of input; the TCP peer went away for good).
    case endOfInput
    /// `--until-idle`: nothing arrived for that long.
    case idle
    /// The source or an output failed; what was recorded before is kept.
    case failed
}

/// What a recording did.
public struct RecordingSummary: Sendable {
    public var source: String
    public var format: LiveStreamFormat?
    public var datalink: BtsnoopDatalink?
    public var records: Int
    public var filtered: Int
    public var unwritable: Int
    public var outputPaths: [String]
    /// What the output files are: "btsnoop", or "pcap" (`-o FILE.pcap`, `RecordingFileFormat`).
    public var outputKind: String = "btsnoop"
    public var databasePath: String?
    public var captureID: Int64?
    public var stats: TrafficStats?
    /// Something is missing from the recording (the capture ends `truncated`), or the output
    /// says more than the source did.
    public var warnings: [String]
    /// Remarks that mean nothing was lost (`LiveSource.notes`).
    public var notes: [String] = []
    public var stopReason: StopReason
    /// The error that ended the recording (`stopReason == .failed`).
    public var failure: LiveError?
    public var durationMilliseconds: Int64
}

/// Runs a recording: waits on the source (100 ms at a time), hands every record to the sink,
/// flushes and commits on time, redraws the status line, and stops on a stop request, the end
/// of the input, `--until-idle`, or a failure; then finishes the outputs.
public enum LiveRecorder {
    public static let waitMilliseconds = 100

    /// - Parameters:
    ///   - untilIdleMilliseconds: end when no record has arrived for this long.
    ///   - statusLine: redrawn with the traffic counts (the sink must observe traffic).
    ///   - notice: receives source notices (reconnected, rotated) as they happen.
    public static func run(source: any LiveSource, sink: RecordingSink, stop: StopFlag,
                           untilIdleMilliseconds: Int? = nil, statusLine: StatusLine? = nil,
                           notice: (String) -> Void = { _ in }) -> RecordingSummary {
        let started = Syscall.monotonicMilliseconds()
        var status = statusLine
        var lastRecord = started
        var reason = StopReason.stopRequested
        var failure: LiveError?
        loop: while !stop.isSet {
            do {
                let event = try source.next(timeoutMilliseconds: waitMilliseconds)
                let now = Syscall.monotonicMilliseconds()
                if !sink.isStarted, let format = source.format { try sink.start(format: format, now: now) }
                switch event {
                case .record(let record):
                    try sink.accept(record, now: now)
                    lastRecord = now
                case .idle:
                    break
                case .notice(let text):
                    status?.clear()
                    notice(text)
                case .end:
                    reason = .endOfInput
                    break loop
                }
                try sink.tick(now: now)
                if let stats = sink.stats { status?.update(stats, now: now) }
                if let idle = untilIdleMilliseconds, now - lastRecord >= Int64(idle) {
                    reason = .idle
                    break loop
                }
            } catch {
                failure = error
                reason = .failed
                break loop
            }
        }
        status?.clear()
        let sourceWarnings = source.warnings
        let sourceNotes = source.notes
        do {
            // The error that stopped it goes into the timeline too: a reader of the timeline alone
            // must learn that the stream broke there, as after importing a damaged file.
            try sink.finish(warnings: sourceWarnings, notes: sourceNotes, failure: failure)
        } catch {
            if failure == nil { failure = error }
            reason = .failed
        }
        var summary = RecordingSummary(
            source: source.name, format: sink.format, datalink: sink.datalink, records: sink.recordsKept,
            filtered: sink.recordsFiltered, unwritable: sink.recordsUnwritable, outputPaths: sink.outputPaths,
            databasePath: sink.isStarted ? sink.options.databasePath : nil, captureID: sink.captureID,
            stats: sink.stats, warnings: sourceWarnings + sink.closingNotes, stopReason: reason, failure: failure,
            durationMilliseconds: Syscall.monotonicMilliseconds() - started)
        summary.outputKind = sink.outputKind
        summary.notes = sourceNotes
        return summary
    }
}
