import BLECore
import BLECapture
import BLEDecode

/// Writes a timeline incrementally while a capture is still being recorded (`blereplay record`).
///
/// The file is in WAL mode so `timeline`, `diagnose` and `report` can read it meanwhile; rows are
/// committed in short transactions (every `commitEvery` records, or when `commit()` is called), so
/// after a SIGKILL the file is consistent up to the last commit. The result equals importing the
/// recorded btsnoop file afterwards (same decoder, same writer).
public final class TimelineRecorder {
    public let store: TimelineStore
    public let captureID: Int64
    private let writer: TimelineWriter
    private var decoder: PacketDecoder
    private var uncommitted = 0
    /// The write lock is taken only while records are pending, so other commands can write
    /// (for example the analysis of other captures) between commits.
    private var inTransaction = false
    public let commitEvery: Int
    private let source: String
    /// Absurd timestamps in the recorded stream, warned about at the end as an import does.
    private var audit = TimestampAudit()

    /// Creates (or opens) the timeline and registers the recording as a capture.
    /// - Parameters:
    ///   - source: what is recorded (`monitor`, a path, `stdin`, `tcp:HOST:PORT`); shown as the capture's path.
    ///   - identity: unique per recording (e.g. the output file and start time), stored where imports keep the SHA-256.
    public init(databasePath: String, source: String, identity: String, format: CaptureFormat, linkType: UInt32,
                formatDescription: String, options: ImportOptions = .init(), commitEvery: Int = 1000) throws {
        // Set up and registered under the timeline's lock (TimelineStore.openCreating): imports
        // take turns on it, and the switch to WAL needs the file to itself.
        var registered: Int64 = 0
        store = try TimelineStore.openCreating(databasePath) { store in
            let db = store.database
            try db.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")
            try store.createIndexes()
            try db.execute("BEGIN IMMEDIATE")
            try db.run("""
                INSERT INTO capture (path, file_name, sha256, size_bytes, format, link_type, format_description, raw_kept, status,
                                     recorder)
                VALUES (?1, ?2, ?3, 0, ?4, ?5, ?6, ?7, 'recording', ?8)
                """, [.text(source), .text(source), .text("live:\(identity)"), .text(format.rawValue),
                      .integer(Int64(linkType)), .text(formatDescription), .integer(options.keepRaw ? 1 : 0),
                      .text(RecorderLiveness.currentToken())])
            registered = db.lastInsertRowID
            try db.execute("COMMIT")
        }
        self.source = source
        let db = store.database
        captureID = registered
        writer = try TimelineWriter(database: db, captureID: captureID, keepRaw: options.keepRaw, keepKeys: options.keepKeys)
        decoder = PacketDecoder(options: .forCapture(CaptureInfo(format: format, linkType: linkType, formatDescription: formatDescription), keepKeys: options.keepKeys))
        self.commitEvery = commitEvery
        try db.execute("BEGIN IMMEDIATE")
        try updateCaptureRow(status: "recording", warnings: [])
        try db.execute("COMMIT")
    }

    public var records: Int { writer.records }

    /// Decodes and stores one record; commits when `commitEvery` records are pending.
    public func append(_ record: CaptureRecord) throws {
        if !inTransaction {
            try store.database.execute("BEGIN IMMEDIATE")
            inTransaction = true
        }
        audit.check(record)
        try writer.write(record, decoder.decode(record))
        uncommitted += 1
        if uncommitted >= commitEvery { try commit() }
    }

    /// Makes everything appended so far durable and visible to readers.
    public func commit() throws {
        guard uncommitted > 0 else { return }
        try writer.finish()
        try updateCaptureRow(status: "recording", warnings: [])
        try store.database.execute("COMMIT")
        inTransaction = false
        uncommitted = 0
    }

    /// Ends the recording: final rows, capture status, and a last commit.
    /// - Parameters:
    ///   - notes: warnings kept with the capture's that do not make it truncated (what the
    ///     recording's output could not say, not records missing).
    ///   - failure: the error that stopped the recording, kept last among the warnings: the
    ///     status is `corrupt` when the source's bytes were malformed (as `import` marks a file
    ///     damaged in the middle), `truncated` for any other failure (what followed is missing).
    public func finish(warnings: [String] = [], notes: [String] = [], failure: String? = nil,
                       sourceMalformed: Bool = false) throws {
        if !inTransaction {
            try store.database.execute("BEGIN IMMEDIATE")
            inTransaction = true
        }
        try decoder.finish { problems throws(SQLiteError) in for p in problems { try writer.problem(p, frame: nil) } }
        try writer.finish()
        try writer.writePacketScan()
        // Absurd timestamps are warnings too, but they do not make the recording truncated.
        let timestampWarnings = audit.warnings.map { "\(source): byte \($0.offset): \($0.message)" }
        let status = failure != nil && sourceMalformed ? "corrupt" : (warnings.isEmpty && failure == nil ? "complete" : "truncated")
        try updateCaptureRow(status: status, warnings: warnings + notes + timestampWarnings + (failure.map { [$0] } ?? []))
        try store.database.execute("COMMIT")
        inTransaction = false
        uncommitted = 0
    }

    private func updateCaptureRow(status: String, warnings: [String]) throws {
        try store.database.run("""
            UPDATE capture SET records = ?1, first_ts_us = ?2, last_ts_us = ?3, status = ?4, warnings = ?5,
                               malformed_packets = ?6, dropped_packets = ?7 WHERE id = ?8
            """, [.integer(Int64(writer.records)), writer.firstTimestamp.map { .integer($0) } ?? .null,
                  writer.lastTimestamp.map { .integer($0) } ?? .null, .text(status), .text(jsonArray(warnings)),
                  .integer(Int64(writer.malformedPackets)), .integer(Int64(writer.droppedPackets)), .integer(captureID)])
    }
}
