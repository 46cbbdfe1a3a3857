import CMalloc
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BLECore
import BLECapture
import BLEDecode

/// How an import treats data.
public struct ImportOptions: Sendable {
    /// Keep each packet's raw bytes (`packet.raw`), so `export` can write the capture back.
    public var keepRaw = true
    /// Show SMP key material instead of redacting it.
    public var keepKeys = false
    /// Report-only: store only the packet rows the fleet report reads (`TimelineWriter+ReferencedPackets`)
    /// and, for a capture alone in its file, the advertising reports of connection peers
    /// (`TimelineWriter+PeerAdvertising`). Never set by `import`; needs `keepRaw` false.
    public var referencedPacketRowsOnly = false
    /// Bytes of advertising reports a report-only import holds at most (`PeerAdvertisingReports`).
    var advertisingHoldLimit = PeerAdvertisingReports.holdLimit
    /// Print progress to stderr (only when it is a terminal).
    public var progress = false
    /// Told how long each stage took (`import --timings`, `make bench`): "read, decode, write",
    /// "indexes", "post-process", with wall-clock seconds.
    public var stageTimer: (@Sendable (_ stage: String, _ seconds: Double) -> Void)?
    /// Threads the analysis of a new timeline may read it on (`TimelineStore.analysisJobs`):
    /// `import` and the commands that read one capture give it every processor; the fleet
    /// report, whose jobs already take them, one.
    public var analysisJobs = 1
    public init(keepRaw: Bool = true, keepKeys: Bool = false, progress: Bool = false,
                stageTimer: (@Sendable (String, Double) -> Void)? = nil) {
        self.keepRaw = keepRaw
        self.keepKeys = keepKeys
        self.progress = progress
        self.stageTimer = stageTimer
    }
}

/// What happened to one capture file.
public struct CaptureImportResult: Sendable {
    public enum Status: String, Sendable {
        /// Read to the end (possibly with a truncated last record: see `warnings`).
        case imported
        /// Already in the timeline (same SHA-256): nothing written.
        case alreadyPresent = "already-present"
        /// Read up to damage in the middle: what precedes it is in the timeline.
        case partial
        /// Nothing could be read.
        case failed
    }
    public var path: String
    public var status: Status
    public var captureID: Int64?
    public var records: Int
    public var malformedPackets: Int
    public var formatDescription: String?
    public var warnings: [String]
    /// How many of `warnings` are the reader's notes on how it read the file (a btsnoop labelled
    /// H1 holding H4, pcapng packets without timestamps): nothing was lost or cut.
    public var notes = 0
    /// The error that stopped reading (file, byte offset, reason), for `.partial` and `.failed`.
    public var error: String?
    /// Set when the timeline, not the capture, failed (disk full, read-only, locked).
    public var storageError: SQLiteError? = nil
    /// For `.alreadyPresent`: the phone identity this copy came with (a bugreport's) was added to
    /// the stored capture, which lacked it.
    public var phoneIdentityAdded = false
}

/// Streams captures through the decoder into a timeline file, atomically.
///
/// A new timeline is written to a temporary file beside the target (`TemporaryFile`: named
/// after its owner and locked, so a killed import's leftover is removed by the next one) and
/// moved into place only when at least one capture was read, so a failed run never leaves a
/// half-written file. An existing timeline gets one transaction per capture: a failure rolls
/// back, never damages.
///
/// Writers of one target take turns: the whole import holds `TARGET.lock` (`FileLock`), and
/// whether the target exists is decided after the lock is taken. Two imports into a timeline
/// that does not exist yet therefore both end up in it: the second waits, finds the first's
/// file, and imports into it; the move into place never replaces a file it did not write.
public enum Importer {
    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Imports `captures` into the timeline at `databasePath` (created when missing).
    /// - Parameter postProcess: runs on the timeline after the captures are in and before a new
    ///   file is moved into place (the CLI runs the analysis here).
    public static func importCaptures(_ captures: [String], into databasePath: String,
                                      options: ImportOptions = .init(),
                                      postProcess: (TimelineStore) throws -> Void = { _ in }) throws(Failure) -> [CaptureImportResult] {
        // Said before the lock, so that no `FILE.lock` is made beside a device or in /dev.
        if let kind = FileKind.nonRegular(databasePath) {
            throw Failure(message: "\(databasePath): \(TimelineStore.notATimeline(kind))")
        }
        let lock: FileLock?
        do {
            lock = try FileLock.acquire(for: databasePath) {
                if options.progress && isatty(2) == 1 {
                    StandardStreams.write("waiting: another blereplay is writing \(TextFormat.printable(databasePath))\n", to: 2)
                }
            }
        } catch {
            // Where no lock file can be made no timeline can be created either; an existing
            // timeline there is still guarded by SQLite's own locking.
            guard access(databasePath, F_OK) == 0 else {
                throw Failure(message: "\(databasePath): cannot create the timeline: \(error.message)")
            }
            lock = nil
        }
        defer { lock?.release() }
        if access(databasePath, F_OK) != 0 {
            return try importIntoNew(captures, target: databasePath, options: options, postProcess: postProcess)
        }
        return try importIntoExisting(captures, path: databasePath, options: options, postProcess: postProcess)
    }

    /// Imports `captures` into `scratch`, an empty file this process owns (`TemporaryFile`), with
    /// the bulk settings of a new timeline and no lock: a command's private timeline for a capture.
    public static func importCaptures(_ captures: [String], intoScratch scratch: String,
                                      options: ImportOptions = .init(),
                                      postProcess: (TimelineStore) throws -> Void = { _ in }) throws(Failure) -> [CaptureImportResult] {
        try importIntoFresh(captures, path: scratch, name: scratch, options: options, postProcess: postProcess)
    }

    /// The target does not exist (checked under the lock): write aside, then move into place.
    static func importIntoNew(_ captures: [String], target: String, options: ImportOptions,
                              postProcess: (TimelineStore) throws -> Void) throws(Failure) -> [CaptureImportResult] {
        let temporary: TemporaryFile
        do {
            temporary = try TemporaryFile.beside(target)
        } catch {
            throw Failure(message: "\(target): cannot create the timeline: \(error.message)")
        }
        let results = try importIntoFresh(captures, path: temporary.path, name: target, options: options,
                                          postProcess: postProcess)
        guard results.contains(where: { $0.status == .imported || $0.status == .partial }) else {
            temporary.discard()
            return results
        }
        do {
            try temporary.moveIntoPlace(target, replacing: false)
        } catch {
            temporary.discard()
            throw Failure(message: "\(target): the new timeline was not moved into place: \(error.message)")
        }
        return results
    }

    /// Imports into a file nobody else reads yet (no journal: it is thrown away on failure).
    /// - Parameter name: the path messages name (the target, not its temporary file).
    static func importIntoFresh(_ captures: [String], path: String, name: String, options: ImportOptions,
                                postProcess: (TimelineStore) throws -> Void) throws(Failure) -> [CaptureImportResult] {
        let store: TimelineStore
        do {
            store = try TimelineStore(path: path)
        } catch {
            throw Failure(message: "\(name): \(error.message)")
        }
        store.analysisJobs = options.analysisJobs
        return try importCaptures(captures, intoScratchStore: store, name: name, options: options, postProcess: postProcess)
    }

    /// SQLite's page cache while a new timeline is written and analysed, KiB.
    static let cacheKiB = 16_000
    /// SQLite's page cache, and so its sorter's memory, while the query indexes are built, KiB.
    static let indexBuildCacheKiB = 4_000

    /// Records written from which the memory the index build freed is handed back to the system
    /// before the analysis (`malloc_trim`, glibc): SQLite's sorter holds up to the page cache's
    /// size (16 MB) while it builds `packet_connection`, and glibc keeps what it frees between
    /// chunks still in use, so the analysis's peak came on top of it (3M records: 79 -> 72 MB
    /// peak). Below this the sorter stays small and the trim is not worth its walk of the heaps.
    static let trimAfterIndexesRecords = 200_000

    /// Imports `captures` into `store`, an open timeline this process alone uses (a scratch
    /// timeline, possibly in memory, possibly emptied by `TimelineStore.removeAllRows` and used
    /// again), with the bulk settings of a new timeline and no lock.
    /// - Parameter name: the path messages name.
    public static func importCaptures(_ captures: [String], intoScratchStore store: TimelineStore, name: String,
                                      options: ImportOptions = .init(),
                                      postProcess: (TimelineStore) throws -> Void = { _ in }) throws(Failure) -> [CaptureImportResult] {
        var results: [CaptureImportResult] = []
        do {
            var stages = StageClock(report: options.stageTimer)
            try store.database.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -\(Self.cacheKiB);")
            for capture in captures {
                let some = importInput(capture, into: store, options: options)
                results += some
                // Without a journal a failed write may leave the file inconsistent: stop and
                // say why, rather than report what the damage does next.
                if let storage = some.lazy.compactMap(\.storageError).first {
                    throw Failure(message: "\(name): cannot write the timeline: \(storage)")
                }
            }
            stages.lap("read, decode, write")
            // The index build sorts in SQLite's sorter, which keeps up to the page cache's size in
            // memory and writes sorted runs to temporary files beyond it: 4 MB, not the write's
            // 16 MB (1M records: 36 -> 12 MB for the build of `packet_connection`, as fast).
            try store.database.execute("PRAGMA cache_size = -\(Self.indexBuildCacheKiB);")
            try store.createIndexes()
            try store.database.execute("PRAGMA cache_size = -\(Self.cacheKiB);")
            stages.lap("indexes")
            if results.reduce(0, { $0 + $1.records }) >= Self.trimAfterIndexesRecords { _ = malloc_trim(0) }
            if results.contains(where: { $0.status == .imported || $0.status == .partial }) {
                try postProcess(store)
                stages.lap("post-process")
            }
        } catch let failure as Failure {
            throw failure
        } catch let open as TimelineStore.OpenError {
            throw Failure(message: "\(name): \(open.message)")
        } catch let storage as SQLiteError {
            throw Failure(message: "\(name): cannot write the timeline: \(storage)")
        } catch {
            throw Failure(message: "\(name): \(error)")
        }
        return results
    }

    /// The target exists (checked under the lock): one transaction per capture.
    static func importIntoExisting(_ captures: [String], path databasePath: String, options: ImportOptions,
                                   postProcess: (TimelineStore) throws -> Void) throws(Failure) -> [CaptureImportResult] {
        let store: TimelineStore
        do {
            store = try TimelineStore(path: databasePath)
            try store.database.execute("PRAGMA synchronous = NORMAL; PRAGMA cache_size = -16000;")
        } catch let open as TimelineStore.OpenError {
            throw Failure(message: open.description)
        } catch {
            throw Failure(message: "\(databasePath): \(error)")
        }
        var results: [CaptureImportResult] = []
        var stages = StageClock(report: options.stageTimer)
        for (index, path) in captures.enumerated() {
            let some = importInput(path, into: store, options: options)
            results += some
            // The timeline itself failed (disk full, read-only): the next captures would too.
            // Each is still named, as not imported: a capture left out is never left unsaid.
            if let storage = some.lazy.compactMap(\.storageError).first {
                results += captures[(index + 1)...].map { notTried($0, timeline: databasePath, storage: storage) }
                break
            }
        }
        stages.lap("read, decode, write")
        do {
            try store.createIndexes()
            stages.lap("indexes")
            try postProcess(store)
            stages.lap("post-process")
        } catch let storage as SQLiteError {
            throw Failure(message: "\(databasePath): cannot write the timeline: \(storage)")
        } catch {
            throw Failure(message: "\(databasePath): \(error)")
        }
        return results
    }

    /// A capture not read because the timeline could not be written for an earlier one.
    static func notTried(_ path: String, timeline: String, storage: SQLiteError) -> CaptureImportResult {
        CaptureImportResult(path: path, status: .failed, captureID: nil, records: 0, malformedPackets: 0,
                            formatDescription: nil, warnings: [],
                            error: "\(path): not imported: not read, the timeline \(timeline) could not be written "
                                + "for an earlier capture (\(storage))")
    }

    /// Imports what one argument holds: a capture, or each log of an Android bugreport zip as a
    /// capture of its own (`BugreportZip`, named `ZIP!member`). The zip is told from a capture by
    /// the bytes format detection reads anyway (`CaptureFile.probe`): nothing more per capture.
    static func importInput(_ path: String, into store: TimelineStore, options: ImportOptions) -> [CaptureImportResult] {
        let failed = CaptureImportResult(path: path, status: .failed, captureID: nil, records: 0,
                                         malformedPackets: 0, formatDescription: nil, warnings: [], error: nil)
        // A FIFO, pipe or device is read once, into a scratch file (`CaptureSpool`), kept until
        // the capture is imported: every later read is of that file.
        var spool: CaptureSpool?
        defer { spool?.discard() }
        let probe: CaptureProbe
        do {
            if CaptureSpool.isReadOnce(path) {
                let copy = try CaptureSpool(path: path)
                spool = copy
                probe = .capture(try CaptureInput.spooled(name: path, path: copy.path).open().info)
            } else {
                probe = try CaptureFile.probe(path)
            }
        } catch {
            var result = failed
            result.error = error.description
            return [result]
        }
        switch probe {
        case .capture(let info):
            let input: CaptureInput = spool.map { .spooled(name: path, path: $0.path) } ?? .file(path)
            return [importOne(input, info: info, into: store, options: options)]
        case .bugreport(let zip):
            var results: [CaptureImportResult] = []
            for log in zip.logs {
                let input = CaptureInput.bugreportLog(log)
                do {
                    results.append(importOne(input, info: try input.open().info, into: store, options: options))
                } catch {
                    var result = failed
                    result.path = input.name
                    result.error = error.description
                    results.append(result)
                }
                if let storage = results.last?.storageError {
                    let rest = zip.logs.dropFirst(results.count)
                    results += rest.map { notTried(CaptureInput.bugreportLog($0).name, timeline: store.path, storage: storage) }
                    break
                }
            }
            if !results.isEmpty { results[0].warnings.insert(contentsOf: zip.warnings, at: 0) }
            return results
        }
    }

    /// Adds the identity a second copy of a stored capture came with to the stored capture's
    /// empty phone columns (`PhoneIdentity.merging`); a different identity is kept out, with a warning.
    static func mergePhone(_ phone: PhoneIdentity, from input: CaptureInput, into captureID: Int64,
                           db: SQLiteDatabase, result: inout CaptureImportResult) throws(SQLiteError) {
        let stored = try PhoneIdentityColumns.read(captureID: captureID, from: db) ?? PhoneIdentity()
        switch stored.merging(phone) {
        case .unchanged:
            break
        case .added(let merged):
            try PhoneIdentityColumns.write(merged, captureID: captureID, to: db)
            result.phoneIdentityAdded = true
        case .conflict:
            result.warnings.append("\(input.name): same capture as one already stored with phone \(stored.summary); "
                + "kept that, not \(phone.summary)")
        }
    }

    /// Imports one capture inside its own transaction.
    static func importOne(_ input: CaptureInput, info: CaptureInfo, into store: TimelineStore,
                          options: ImportOptions) -> CaptureImportResult {
        let path = input.name
        var result = CaptureImportResult(path: path, status: .failed, captureID: nil, records: 0,
                                         malformedPackets: 0, formatDescription: nil, warnings: [], error: nil)
        result.formatDescription = info.formatDescription
        let db = store.database
        // A gzip file's capture is its decompressed bytes, whose size only reading them tells:
        // its digest is computed first (`CaptureInput.contentDigest`) when the timeline holds a
        // capture it could be (never in a report's scratch timeline, which holds none).
        let compressed = input.isGzipCompressed
        let holdsCaptures = compressed && ((try? db.scalarInt("SELECT 1 FROM capture LIMIT 1")) ?? nil) != nil
        let early = holdsCaptures ? DigestFuture(input: input, now: true) : nil
        // What the progress line counts: the bytes read, a gzip file's compressed ones.
        let bytesToRead: Int
        switch input {
        case .file(let file), .spooled(_, let file): bytesToRead = fileSize(file)
        case .bugreportLog(let log): bytesToRead = Int(clamping: log.size)
        }
        let size = early?.digest.map { Int(clamping: $0.size) } ?? bytesToRead
        var pipeline: DecodePipeline?
        do {
            // The SHA-256 of the capture's own bytes recognises a capture imported before. When no
            // capture of the same size is in the timeline it cannot be a duplicate, so the digest
            // is computed beside the import.
            let sameSize = try db.scalarInt("SELECT count(*) FROM capture WHERE size_bytes = ?1", [.integer(Int64(size))]) ?? 0
            let digest = early ?? DigestFuture(input: input, now: sameSize > 0)
            if sameSize > 0 || holdsCaptures {
                guard let sha = digest.value else {
                    result.error = "\(path): cannot read the file"
                    return result
                }
                if let existing = try store.captureID(sha256: sha)
                    ?? (compressed ? try storedAsCompressedFile(input, content: digest.digest, db: db) : nil) {
                    result.status = .alreadyPresent
                    result.captureID = existing
                    if let phone = input.phone { try mergePhone(phone, from: input, into: existing, db: db, result: &result) }
                    return result
                }
            }
            let reportOnly = options.referencedPacketRowsOnly && !options.keepRaw
            // An air capture keeps its packet rows, with their bytes: the report counts the endings
            // diagnose infers from a link's PDUs on air (`connection-timeout-on-air`, Core v5.4 Vol 6
            // Part B 4.5.2; `terminate-encrypted-on-air` reads their LLID and Length, 2.4).
            let air = PcapLinkType(rawValue: UInt32(truncatingIfNeeded: info.linkType)).isAirCapture
            let keepRaw = options.keepRaw || reportOnly && air
            try db.execute("BEGIN IMMEDIATE")
            try db.run("""
                INSERT INTO capture (path, file_name, sha256, size_bytes, format, link_type, format_description, raw_kept)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                """, [.text(path), .text(input.fileName), .text("pending:\(path)"), .integer(Int64(size)),
                      .text(info.format.rawValue), .integer(Int64(info.linkType)),
                      .text(info.formatDescription), .integer(keepRaw ? 1 : 0)])
            let captureID = db.lastInsertRowID
            if let phone = input.phone { try PhoneIdentityColumns.write(phone, captureID: captureID, to: db) }
            result.captureID = captureID
            let writer = try TimelineWriter(database: db, captureID: captureID, keepRaw: keepRaw, keepKeys: options.keepKeys)
            writer.referencedPacketRowsOnly = reportOnly && !air
            writer.storesPacketScan = !reportOnly
            // A bugreport's logs share one timeline: a peer of one log may advertise in another.
            if case .bugreportLog = input {} else { writer.advertisingOfPeersOnly = reportOnly }
            writer.advertisingHoldLimit = options.advertisingHoldLimit
            let progress = Progress(enabled: options.progress, path: path, size: bytesToRead)
            // Report-only: the packet rows kept are never read for their summary (nor are any findings made).
            let running = DecodePipeline(input: input, keepKeys: options.keepKeys, summaries: !reportOnly)
            pipeline = running
            var end = DecodePipeline.End()
            reading: while true {
                switch running.next() {
                case .batch(let batch):
                    for decoded in batch.packets { try writer.write(decoded.record, decoded.packet) }
                    progress.update(batch.bytesRead)
                    running.recycle(batch)
                case .finishProblems(let problems):
                    for p in problems { try writer.problem(p, frame: nil) }
                case .end(let e):
                    end = e
                    running.releaseSpentBatchesAside()
                    break reading
                }
            }
            pipeline = nil
            progress.finish()
            if let openError = end.openError { throw openError }
            if let stopError = end.stopError, writer.records == 0 {
                // Damage before the first record: nothing to keep, so no capture row either.
                try? db.execute("ROLLBACK")
                result.captureID = nil
                result.error = stopError.description
                return result
            }
            try writer.finish()
            try writer.writePacketScan()
            let stopError = end.stopError
            // Notes on how the file was read and absurd timestamps are warnings too, but they do
            // not make the capture truncated.
            let allWarnings = end.notes + end.warnings + end.timestampWarnings
            var warnings = allWarnings.map { "\(path): byte \($0.offset): \($0.message)" }
            if let stopError { warnings.append(stopError.description) }
            let status = stopError != nil ? "corrupt" : (end.warnings.isEmpty ? "complete" : "truncated")
            try db.run("""
                UPDATE capture SET records = ?1, first_ts_us = ?2, last_ts_us = ?3, status = ?4, warnings = ?5,
                                   malformed_packets = ?6, dropped_packets = ?7 WHERE id = ?8
                """, [.integer(Int64(writer.records)), writer.firstTimestamp.map { .integer($0) } ?? .null,
                      writer.lastTimestamp.map { .integer($0) } ?? .null, .text(status), .text(jsonArray(warnings)),
                      .integer(Int64(writer.malformedPackets)), .integer(Int64(writer.droppedPackets)), .integer(captureID)])
            guard let content = digest.digest else { throw Failure(message: "\(path): cannot read the file") }
            try db.run("UPDATE capture SET sha256 = ?1, size_bytes = ?2 WHERE id = ?3",
                       [.text(content.hex), .integer(compressed ? content.size : Int64(size)), .integer(captureID)])
            try db.execute("COMMIT")
            result.records = writer.records
            result.malformedPackets = writer.malformedPackets
            result.warnings = allWarnings.map { "\(path): byte \($0.offset): \($0.message)" }
            result.notes = end.notes.count
            if let stopError {
                result.status = .partial
                result.error = stopError.description
            } else {
                result.status = .imported
            }
        } catch {
            pipeline?.cancel()
            try? db.execute("ROLLBACK")
            result.status = .failed
            result.captureID = nil
            if let storage = error as? SQLiteError {
                result.storageError = storage
                result.error = "\(path): not imported: cannot write the timeline \(db.path): \(storage)"
            } else {
                result.error = "\(path): \(error)"
            }
        }
        return result
    }

    /// A gzip file an earlier build stored under the digest of its compressed bytes (before
    /// `CaptureInput.contentDigest`), found again so that it is not stored twice; its row takes
    /// the content digest and size, so the plain file is found as the same capture from now on.
    /// Only timelines holding a gzip-compressed capture pay for the second digest.
    static func storedAsCompressedFile(_ input: CaptureInput, content: (hex: String, size: Int64)?,
                                       db: SQLiteDatabase) throws(SQLiteError) -> Int64? {
        guard let content,
              try db.scalarInt("SELECT 1 FROM capture WHERE format_description LIKE '%gzip-compressed%' LIMIT 1") != nil,
              let sha = input.compressedFileDigest(),
              let id = try db.scalarInt("SELECT id FROM capture WHERE sha256 = ?1", [.text(sha)]) else { return nil }
        try db.run("UPDATE capture SET sha256 = ?1, size_bytes = ?2 WHERE id = ?3",
                   [.text(content.hex), .integer(content.size), .integer(id)])
        return id
    }

    static func fileSize(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : 0
    }
}

/// A JSON array of strings (for the `captures.warnings` column).
func jsonArray(_ items: [String]) -> String {
    JSON.array(items.map { .string($0) }).serialized()
}

/// Wall-clock seconds between stages, for `ImportOptions.stageTimer` (a no-op without one).
/// The standard library's monotonic `ContinuousClock`, as `replay --bench` times itself.
struct StageClock {
    let report: (@Sendable (String, Double) -> Void)?
    private var last = ContinuousClock.now

    init(report: (@Sendable (String, Double) -> Void)?) { self.report = report }

    mutating func lap(_ stage: String) {
        guard let report else { return }
        let now = ContinuousClock.now
        let (seconds, attoseconds) = (now - last).components
        report(stage, Double(seconds) + Double(attoseconds) / 1e18)
        last = now
    }
}

/// Progress on stderr, only when stderr is a terminal.
struct Progress {
    let enabled: Bool
    let path: String
    let size: Int
    init(enabled: Bool, path: String, size: Int) {
        self.enabled = enabled && isatty(2) == 1
        self.path = path
        self.size = size
    }
    func update(_ bytes: Int) {
        guard enabled, size > 0 else { return }
        let pct = min(100, bytes * 100 / size)
        StandardStreams.write("\rimporting \(TextFormat.printable(path)): \(pct)%", to: 2)
    }
    func finish() {
        guard enabled else { return }
        StandardStreams.write("\r\u{1B}[K", to: 2)
    }
}
