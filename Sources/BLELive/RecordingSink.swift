import BLECore
import BLECapture
import BLETimeline
import BLEAnalysis

/// Where a recording goes and how often it is made durable.
public struct RecordingOptions: Sendable {
    /// `-o FILE`: the capture file (segments with `rotation`), in the format its extension
    /// names (`RecordingFileFormat`): `FILE.pcap` pcap (`PcapOutput`), any other btsnoop.
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
    /// What the recording is stored as (`RecordingFileFormat.stored`): `-o`'s format, or
    /// without `-o` pcap LINKTYPE 187 for a raw-H4 source and btsnoop for a btsnoop stream.
    public private(set) var storedFormat = RecordingFileFormat.btsnoop
    /// The pcap link type when `storedFormat` is pcap.
    public private(set) var pcapLinkType = PcapLinkType.bluetoothHCIH4
    /// Records of a raw-H4 source with no known direction (ACL, SCO, ISO) written as sent
    /// (flag 0) to a btsnoop file, which has no "unknown" direction; the timeline keeps them unknown.
    public private(set) var unknownWrittenAsSent = 0

    private var observer: TrafficObserver?
    private var output: BtsnoopOutput?
    private var pcapOutput: PcapOutput?
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
    public var outputPaths: [String] { output?.paths ?? pcapOutput?.paths ?? [] }
    /// What `-o` holds: "btsnoop" or "pcap".
    public var outputKind: String { storedFormat.rawValue }

    /// What the timeline keeps as a warning that does not make the capture truncated: the
    /// records a btsnoop output says were sent although the source did not say.
    public var closingNotes: [String] {
        guard unknownWrittenAsSent > 0, let path = options.outputPath else { return [] }
        return ["\(unknownWrittenAsSent) ACL/SCO/ISO record(s) of raw H4 have no direction (H4 carries none), and btsnoop has "
                + "no \"unknown\" flag: \(path) stores them as sent (flag 0), so importing it shows them as sent; this "
                + "timeline keeps them unknown, as importing pcap LINKTYPE 187 does. Record with -o FILE.pcap "
                + "(LINKTYPE 187) for a file that keeps them unknown"]
    }
    public var captureID: Int64? { recorder?.captureID }

    /// Opens the outputs once the source's format is known.
    public func start(format: LiveStreamFormat, now: Int64) throws(LiveError) {
        guard datalink == nil else { return }
        let link = format.outputDatalink
        if let path = options.outputPath, RecordingFileFormat.forOutput(path) == nil {
            throw LiveError(source: path, kind: .io, message: RecordingFileFormat.refusal(path))
        }
        let stored = RecordingFileFormat.stored(source: format, outputPath: options.outputPath)
        let pcap = stored == .pcap
        let linkType = RecordingFileFormat.pcapLinkType(source: format)
        if let path = options.outputPath {
            if pcap {
                pcapOutput = try PcapOutput(path: path, linkType: linkType, rotation: options.rotation, now: now)
            } else {
                output = try BtsnoopOutput(path: path, datalink: link, rotation: options.rotation, now: now)
            }
        }
        if let path = options.databasePath {
            var description = "live recording of \(sourceName) (\(format))"
            if pcap {
                description += ", stored as pcap \(linkType)"
            } else if format != .btsnoop(link) {
                description += ", stored as btsnoop v1, \(link) datalink \(link.rawValue)"
            }
            if let output = options.outputPath { description += ", written to \(output)" }
            do {
                recorder = try TimelineRecorder(
                    databasePath: path, source: sourceName, identity: "\(sourceName)@\(startedAt)",
                    format: pcap ? .pcap : .btsnoop,
                    linkType: pcap ? linkType.rawValue : link.rawValue,
                    formatDescription: description,
                    options: ImportOptions(keepRaw: options.keepRaw), commitEvery: Int.max)
            } catch {
                throw LiveError(source: path, kind: .io, message: "cannot start the timeline: \(error)")
            }
        }
        self.format = format
        storedFormat = stored
        pcapLinkType = linkType
        if pcap { virtualOffset = 24 }
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
        let stored: CaptureRecord
        if storedFormat == .pcap {
            guard let record = try storePcap(live.record, now: now) else { return }
            stored = record
        } else {
            guard let record = try storeBtsnoop(live, datalink: datalink, now: now) else { return }
            stored = record
        }
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

    /// Writes a record to the pcap output; the record as `PcapReader` reads it back (the same
    /// packet decoding, `setPcapHCIPacket`; the time a pcap record header holds; the record's
    /// offset in its file). For raw H4 (LINKTYPE 187) the direction is the source's: commands
    /// sent, events received, the rest unknown. Nil when the link type cannot carry the record.
    private func storePcap(_ live: CaptureRecord, now: Int64) throws(LiveError) -> CaptureRecord? {
        guard let packet = PcapWriter.packet(live, linkType: pcapLinkType) else {
            recordsUnwritable += 1
            return nil
        }
        let frame = recordsKept + 1
        let offset = try pcapOutput?.write(packet, timestamp: live.timestamp, frameNumber: frame, now: now) ?? virtualOffset
        virtualOffset += 16 + packet.bytes.count
        let time = PcapWriter.headerTime(live.timestamp)
        var record = CaptureRecord(frameNumber: frame, timestamp: Int64(time.seconds) * 1_000_000 + Int64(time.micros),
                                   direction: .unknown, kind: .other, payload: [], fileOffset: offset)
        packet.bytes.withUnsafeBytes {
            record.setPcapHCIPacket($0, wireLength: max(packet.originalLength, packet.bytes.count), linkType: pcapLinkType,
                                    interface: nil)
        }
        return record
    }

    /// Writes a record to the btsnoop output; the record as the btsnoop reader reads it back,
    /// except that a raw-H4 record keeps its unknown direction (btsnoop writes it as sent, and
    /// `closingNotes` says so). Nil when the datalink cannot carry the record.
    private func storeBtsnoop(_ live: LiveRecord, datalink: BtsnoopDatalink, now: Int64) throws(LiveError) -> CaptureRecord? {
        let packet: BtsnoopPacket
        if let original = live.original, original.datalink == datalink {
            packet = original.packet
        } else if let encoded = try? BtsnoopPacket(encoding: live.record, datalink: datalink) {
            packet = encoded
        } else {
            recordsUnwritable += 1
            return nil
        }
        let offset = try output?.write(packet, now: now) ?? virtualOffset
        var stored = packet.record(datalink: datalink, frameNumber: recordsKept + 1, fileOffset: offset)
        virtualOffset += packet.recordLength
        if format == .h4, live.record.direction == .unknown {
            stored.direction = .unknown
            if output != nil { unknownWrittenAsSent += 1 }
        }
        return stored
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
        try pcapOutput?.flush()
        uncommitted = 0
        do {
            try recorder?.commit()
        } catch {
            throw LiveError(source: options.databasePath ?? "", kind: .io, message: "commit failed: \(error)")
        }
    }

    /// Closes the capture file and completes the timeline (final rows, analysis; status
    /// `truncated` when there are `warnings`, `complete` otherwise: `notes` say nothing was lost).
    /// `failure`, the error that stopped the recording, is kept in the timeline: status `corrupt`
    /// when the source's bytes were malformed, `truncated` otherwise.
    public func finish(warnings: [String], notes: [String] = [], failure: LiveError? = nil) throws(LiveError) {
        try output?.close()
        try pcapOutput?.close()
        guard let recorder else { return }
        do {
            try recorder.finish(warnings: warnings, notes: notes + closingNotes, failure: failure?.description,
                                sourceMalformed: failure?.kind == .malformed)
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
