import BLECore
import BLECapture
import BLETimeline
import BLEAnalysis

/// Where a recording goes and how often it is made durable.
public struct RecordingOptions: Sendable {
    /// `-o FILE.btsnoop`: the btsnoop file (segments with `rotation`).
    public var outputPath: String?
    /// `--db FILE`: the timeline, written while recording.
    public var databasePath: String?
    public var rotation: RotationPolicy?
    public var filter: RecordFilter
    /// Keep each packet's bytes in the timeline (`--no-raw` turns it off), as `import` does.
    public var keepRaw: Bool
    /// Flush the btsnoop file and commit the timeline at least this often.
    public var flushIntervalMilliseconds: Int
    /// Commit the timeline after this many records even within one interval.
    public var commitEvery: Int
    /// Run the analysis (transactions, GATT, findings) when the recording ends.
    public var analyze: Bool

    public init(outputPath: String? = nil, databasePath: String? = nil, rotation: RotationPolicy? = nil,
                filter: RecordFilter = RecordFilter(), keepRaw: Bool = true, flushIntervalMilliseconds: Int = 500,
                commitEvery: Int = 1000, analyze: Bool = true) {
        self.outputPath = outputPath
        self.databasePath = databasePath
        self.rotation = rotation
        self.filter = filter
        self.keepRaw = keepRaw
        self.flushIntervalMilliseconds = flushIntervalMilliseconds
        self.commitEvery = commitEvery
        self.analyze = analyze
    }
}

/// The one recording path every source feeds: each record is filtered, encoded in the
/// output's datalink, decoded back (so the timeline holds exactly what importing the btsnoop
/// file reads), appended to the btsnoop file and to the timeline.
///
/// Frame numbers count the records kept, across rotated segments; file offsets are the
/// record's offset in its segment (or in the btsnoop file the recording would have written,
/// without `-o`). Durability: `tick` flushes the file (one `write(2)`) and commits the
/// timeline every `flushIntervalMilliseconds`, and both every `commitEvery` records: the file
/// first, so after a SIGKILL the timeline holds no record the btsnoop file on disk lacks.
public final class RecordingSink {
    public let options: RecordingOptions
    public let sourceName: String
    public private(set) var format: LiveStreamFormat?
    public private(set) var datalink: BtsnoopDatalink?
    /// Records written to the btsnoop file and the timeline.
    public private(set) var recordsKept = 0
    /// Records `--address` / `--le-only` dropped.
    public private(set) var recordsFiltered = 0
    /// Records the output datalink cannot carry (notes in an H4 file), dropped from both outputs.
    public private(set) var recordsUnwritable = 0

    private var observer: TrafficObserver?
    private var output: BtsnoopOutput?
    private var recorder: TimelineRecorder?
    private var virtualOffset = 16
    /// Records stored since the last commit (the sink commits, after flushing the btsnoop file,
    /// so the timeline on disk never holds a record the btsnoop file on disk lacks).
    private var uncommitted = 0
    private var lastFlush: Int64 = 0
    private let startedAt: Int64

    /// - Parameter observeTraffic: decode every record for the status line (filters always do).
    public init(options: RecordingOptions, sourceName: String, observeTraffic: Bool = false) throws(LiveError) {
        self.options = options
        self.sourceName = sourceName
        startedAt = Syscall.wallClockMicroseconds()
        if observeTraffic || options.filter.isActive { observer = TrafficObserver(filter: options.filter) }
        if let path = options.databasePath, Syscall.identity(path) != nil {
            // Refuse a file that is not a timeline now, not when the first packet arrives.
            do {
                _ = try TimelineStore(path: path)
            } catch {
                throw LiveError(source: path, kind: .io, message: error.message)
            }
        }
    }

    public var isStarted: Bool { datalink != nil }
    public var stats: TrafficStats? { observer?.stats }
    public var outputPaths: [String] { output?.paths ?? [] }
    public var captureID: Int64? { recorder?.captureID }

    /// Opens the outputs once the source's format is known.
    public func start(format: LiveStreamFormat, now: Int64) throws(LiveError) {
        guard datalink == nil else { return }
        let link = format.outputDatalink
        if let path = options.outputPath {
            output = try BtsnoopOutput(path: path, datalink: link, rotation: options.rotation, now: now)
        }
        if let path = options.databasePath {
            var description = "live recording of \(sourceName) (\(format))"
            if format != .btsnoop(link) { description += ", stored as btsnoop v1, \(link) datalink \(link.rawValue)" }
            if let output = options.outputPath { description += ", written to \(output)" }
            do {
                recorder = try TimelineRecorder(
                    databasePath: path, source: sourceName, identity: "\(sourceName)@\(startedAt)",
                    format: .btsnoop, linkType: link.rawValue,
                    formatDescription: description,
                    options: ImportOptions(keepRaw: options.keepRaw), commitEvery: Int.max)
            } catch {
                throw LiveError(source: path, kind: .io, message: "cannot start the timeline: \(error)")
            }
        }
        self.format = format
        datalink = link
        lastFlush = now
    }

    /// Filters, writes and stores one record; the sink must have been started.
    public func accept(_ live: LiveRecord, now: Int64) throws(LiveError) {
        guard let datalink else { preconditionFailure("RecordingSink.accept before start") }
        if observer != nil, !observer!.observe(live.record) {
            recordsFiltered += 1
            return
        }
        let packet: BtsnoopPacket
        if let original = live.original, original.datalink == datalink {
            packet = original.packet
        } else if let encoded = try? BtsnoopPacket(encoding: live.record, datalink: datalink) {
            packet = encoded
        } else {
            recordsUnwritable += 1
            return
        }
        let offset = try output?.write(packet, now: now) ?? virtualOffset
        let stored = packet.record(datalink: datalink, frameNumber: recordsKept + 1, fileOffset: offset)
        virtualOffset += packet.recordLength
        if let recorder {
            do {
                try recorder.append(stored)
            } catch {
                throw LiveError(source: options.databasePath ?? "", kind: .io, message: "cannot store record \(stored.frameNumber): \(error)")
            }
        }
        recordsKept += 1
        uncommitted += 1
        if uncommitted >= max(1, options.commitEvery) { try flush() }
    }

    /// Flushes and commits when the interval has passed.
    public func tick(now: Int64) throws(LiveError) {
        guard now - lastFlush >= Int64(options.flushIntervalMilliseconds) else { return }
        try flush()
        lastFlush = now
    }

    /// Writes what is buffered and commits the timeline, in that order.
    public func flush() throws(LiveError) {
        try output?.flush()
        uncommitted = 0
        do {
            try recorder?.commit()
        } catch {
            throw LiveError(source: options.databasePath ?? "", kind: .io, message: "commit failed: \(error)")
        }
    }

    /// Closes the btsnoop file and completes the timeline (final rows, status, analysis).
    public func finish(warnings: [String]) throws(LiveError) {
        try output?.close()
        guard let recorder else { return }
        do {
            try recorder.finish(warnings: warnings)
        } catch {
            throw LiveError(source: options.databasePath ?? "", kind: .io, message: "cannot complete the timeline: \(error)")
        }
        guard options.analyze else { return }
        do {
            // A reader may have analysed the capture while it was being recorded (`diagnose`
            // analyses what it opens): drop that partial analysis so this one covers every record.
            try recorder.store.database.run("DELETE FROM analysis_state WHERE capture_id = ?1", [.integer(recorder.captureID)])
            try Analyzer.analyze(recorder.store)
        } catch {
            throw LiveError(source: options.databasePath ?? "", kind: .io, message: "analysis failed: \(error)")
        }
    }
}
