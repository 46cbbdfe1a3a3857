import BLECore
import BLEReport
import Synchronization

/// `blereplay ingest`: every input read and analysed as `report` reads it (`FleetReader.readOne`),
/// each capture stored in one transaction.
///
/// Idempotent under concurrency: the `capture` row goes in first with
/// `INSERT … ON CONFLICT (sha256) DO NOTHING`, so the unique constraint decides, inside the
/// transaction, which of several workers storing the same capture stores it (the others wait
/// for it to commit, then store nothing). The rest of the capture's rows follow through COPY,
/// and the transaction commits them all or none: a worker killed half-way leaves nothing.
public enum WarehouseIngest {
    /// What became of one input.
    public struct FileResult: Sendable {
        public var outcome: InputOutcome
        /// Captures stored by this run.
        public var stored: Int
        /// Captures the warehouse already held (same SHA-256, or a longer copy of their log).
        public var alreadyStored: Int
        /// Stored captures that captures stored by this run replaced (`GrownCaptures`).
        public var replaced: Int = 0
        /// Captures read but not stored (the warehouse became unreachable or refused a statement).
        public var notStored: Int
        public var error: WarehouseError?
    }

    /// What `store` did with one capture.
    public enum Stored: Sendable, Equatable {
        /// Stored now, replacing `replaced` shorter copies of its log, with what to tell the user
        /// (those copies, longer ones already stored: `GrownCaptures`).
        case stored(replaced: Int, notes: [String])
        /// The warehouse already held it (same SHA-256), counted from another input under the label
        /// `countedFrom`; nil when it is counted from this input (stored from it before, or now
        /// counted from it: `countFromFirstInput`).
        case alreadyStored(countedFrom: String?)
        /// The warehouse held a longer copy of its log (`GrownCaptures`), said in the note: the
        /// capture `sha256`, stored under `label`.
        case containedIn(note: String, label: String, sha256: String)
    }

    /// Stores one capture. `bytes` (`CaptureBytes.locate`) lets it replace the shorter copies of
    /// its log stored before (`GrownCaptures`); nil stores it as it is.
    public static func store(_ facts: CaptureFacts, outcome: InputOutcome, bytes: CaptureBytes?,
                             into db: PostgresConnection) throws(WarehouseError) -> Stored {
        // A gzip file an earlier build stored under its compressed bytes' digest takes the digest
        // of its capture (`CaptureInput.contentDigest`), in a statement of its own (the
        // transaction below rolls back when the capture is there): found now, and by the plain
        // file from now on. Its sizes and prefix digests, of the compressed bytes, are dropped,
        // to be set again below from `bytes`.
        if let legacy = CaptureBytes.compressedFileDigest(facts), legacy != facts.sha256 {
            try db.execute("""
                UPDATE blereplay.capture SET sha256 = $1, size_bytes = NULL, head_sha256 = NULL, prefix_sha256 = NULL
                WHERE sha256 = $2 AND NOT EXISTS (SELECT 1 FROM blereplay.capture WHERE sha256 = $1)
                """, [facts.sha256, legacy])
        }
        try db.execute("BEGIN")
        do throws(WarehouseError) {
            var notes: [String] = []
            if let bytes {
                try GrownCaptures.lock(bytes, db)
                switch try GrownCaptures.longerCopies(facts, bytes: bytes, in: db) {
                case .containedIn(let note, let label, let sha256):
                    try db.execute("ROLLBACK")
                    return .containedIn(note: note, label: label, sha256: sha256)
                case .unverified(let warnings):
                    notes = warnings
                }
            }
            let placeholders = CaptureRows.captureColumns.indices.map { i in
                CaptureRows.captureColumns[i] == "input_warnings" ? "$\(i + 1)::jsonb"
                    : CaptureRows.captureColumns[i] == "prefix_sha256" ? "$\(i + 1)::text[]" : "$\(i + 1)"
            }
            let inserted = try db.execute("""
                INSERT INTO blereplay.capture (\(CaptureRows.captureColumns.joined(separator: ", ")))
                VALUES (\(placeholders.joined(separator: ", "))) ON CONFLICT (sha256) DO NOTHING RETURNING id
                """, CaptureRows.capture(facts, outcome: outcome, bytes: bytes))
            guard let id = inserted.first?.first ?? nil else {
                try db.execute("ROLLBACK")
                // Stored before schema version 3, or from a timeline whose file was gone: now
                // findable by the longer copies of its log.
                if let bytes {
                    try db.execute("""
                        UPDATE blereplay.capture SET size_bytes = $2::bigint, head_sha256 = $3, prefix_sha256 = $4::text[]
                        WHERE sha256 = $1 AND head_sha256 IS NULL
                        """, [facts.sha256, String(bytes.size), bytes.headDigest, "{" + bytes.prefixDigests.joined(separator: ",") + "}"])
                }
                return .alreadyStored(countedFrom: try countFromFirstInput(facts, outcome: outcome, in: db))
            }
            var replaced: [String] = []
            if let bytes { replaced = try GrownCaptures.replaceShorterCopies(facts, bytes: bytes, id: id, in: db) }
            try db.copy(into: "blereplay.connection", columns: CaptureRows.connectionColumns, rows: CaptureRows.connections(facts, id: id))
            try db.copy(into: "blereplay.device", columns: CaptureRows.deviceColumns, rows: CaptureRows.devices(facts, id: id))
            try db.copy(into: "blereplay.error", columns: CaptureRows.errorColumns, rows: CaptureRows.errors(facts, id: id))
            try db.copy(into: "blereplay.att_transaction", columns: CaptureRows.transactionColumns,
                        rows: CaptureRows.transactions(facts.details, id: id))
            try db.copy(into: "blereplay.finding", columns: CaptureRows.findingColumns, rows: CaptureRows.findings(facts.details, id: id))
            try db.execute("COMMIT")
            return .stored(replaced: replaced.count, notes: replaced + notes)
        } catch {
            _ = try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// Counts a capture the warehouse holds from `facts`' input when that input's path comes
    /// before (in byte order) the one it was stored from, as `report` over both inputs counts it
    /// from the first (`FleetReader.read`): the capture row takes this input's names (the other
    /// input's row then lists it as counted from this one: `WarehouseInputs`). Which of two copies the
    /// warehouse counts then depends on the paths alone, not on which was ingested first.
    /// Returns the label the capture is counted under when that is another input's, else nil.
    static func countFromFirstInput(_ facts: CaptureFacts, outcome: InputOutcome,
                                    in db: PostgresConnection) throws(WarehouseError) -> String? {
        try db.execute("BEGIN")
        do throws(WarehouseError) {
            let row = try db.execute("SELECT id, label, input FROM blereplay.capture WHERE sha256 = $1 FOR UPDATE", [facts.sha256]).first
            guard let row, let id = row.text(0), let label = row.text(1), let input = row.text(2), input != facts.input else {
                try db.execute("COMMIT")
                return nil
            }
            guard Array(facts.input.utf8).lexicographicallyPrecedes(Array(input.utf8)) else {
                try db.execute("COMMIT")
                return label
            }
            let values = CaptureRows.capture(facts, outcome: outcome, bytes: nil)
            let names = ["label", "input", "input_kind", "input_status", "input_reason", "input_warnings", "input_format",
                         "capture_name", "capture_path"]
            let set = names.enumerated().map { i, name in "\(name) = $\(i + 2)" + (name == "input_warnings" ? "::jsonb" : "") }
            try db.execute("UPDATE blereplay.capture SET \(set.joined(separator: ", ")) WHERE id = $1::bigint",
                           [id] + names.map { values[CaptureRows.captureColumns.firstIndex(of: $0)!] })
            try db.execute("COMMIT")
            return nil
        } catch {
            _ = try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// Adds the phone identity a capture the warehouse already holds came with this time (from a
    /// bugreport) to its empty phone columns (`PhoneIdentity.merging`), so what is stored does not
    /// depend on which copy was ingested first. A different identity is kept out. Returns what to
    /// tell the user, nil when nothing changed.
    static func addPhone(_ facts: CaptureFacts, into db: PostgresConnection) throws(WarehouseError) -> String? {
        guard let phone = facts.phone else { return nil }
        let columns = ["build_fingerprint", "phone_manufacturer", "phone_model", "android_version"]
        guard let row = try db.execute("SELECT \(columns.joined(separator: ", ")) FROM blereplay.capture WHERE sha256 = $1",
                                       [facts.sha256]).first, row.count == 4 else { return nil }
        let stored = PhoneIdentity(buildFingerprint: row[0], manufacturer: row[1], model: row[2], androidVersion: row[3])
        switch stored.merging(phone) {
        case .unchanged:
            return nil
        case .added(let merged):
            let values = [merged.buildFingerprint, merged.manufacturer, merged.model, merged.androidVersion]
            // Only over the values read: a concurrent ingest that stored an identity first wins.
            let unchanged = columns.indices.map { "\(columns[$0]) IS NOT DISTINCT FROM $\($0 + 6)::text" }
            let updated = try db.execute("""
                UPDATE blereplay.capture SET \(columns.indices.map { "\(columns[$0]) = $\($0 + 2)::text" }.joined(separator: ", "))
                WHERE sha256 = $1 AND \(unchanged.joined(separator: " AND ")) RETURNING id
                """, [facts.sha256] + values + row)
            return updated.isEmpty ? nil : "\(facts.label): already in the warehouse; phone identity added from \(facts.input)"
        case .conflict:
            return "\(facts.label): already in the warehouse with phone \(stored.summary); kept that, not \(phone.summary)"
        }
    }

    /// Reads `arguments` (files and directories, as `report` takes them) with `jobs` workers, each
    /// with a connection of its own, and stores every capture, then records what became of each
    /// input (`WarehouseInputs`: those that stored nothing too). Prepares the schema first (throws
    /// when the warehouse is unreachable or newer). Once the warehouse is lost, the remaining
    /// inputs are not read: a run again stores them.
    public static func run(_ arguments: [String], url: WarehouseURL, jobs: Int,
                           progress: (@Sendable (String) -> Void)? = nil) throws(WarehouseError) -> [FileResult] {
        let first = try PostgresConnection(url)
        try WarehouseSchema.prepare(first)
        let expansion = ReportInputs.expand(arguments)
        let files = expansion.files
        let scratch: TemporaryDirectory
        do throws(FleetReader.Failure) {
            scratch = try FleetReader.temporaryDirectory()
        } catch {
            throw WarehouseError(.query, error.message)
        }
        defer { scratch.remove() }
        let directory = scratch.path
        let pool = ConnectionPool(url: url, first: first)
        let timelines = ScratchTimelines()
        let lost = Shared<WarehouseError?>(nil)
        let results = WorkerPool.map(count: files.count, jobs: jobs) { index -> FileResult in
            let path = files[index]
            if let error = lost.value.withLock({ $0 }) {
                return FileResult(outcome: InputOutcome.make(path: path, kind: nil, status: .failed, reason: nil, warnings: [],
                                                        formatDescription: nil, captures: 0),
                                  stored: 0, alreadyStored: 0, notStored: 0, error: error)
            }
            let (outcome, facts) = FleetReader.readOne(path, scratch: "\(directory)/\(index).db", timelines: timelines, details: true)
            var result = FileResult(outcome: outcome, stored: 0, alreadyStored: 0, notStored: 0, error: nil)
            // What the Inputs table says of it (`WarehouseInputs`): as read, and the stored capture
            // each of its captures is counted in.
            var counted: [WarehouseInputs.Counted] = []
            var db: PostgresConnection?
            for f in facts {
                do throws(WarehouseError) {
                    if db == nil { db = try pool.take() }
                    switch try store(f, outcome: outcome, bytes: CaptureBytes.locate(f), into: db!) {
                    case .stored(let replaced, let notes):
                        result.stored += 1
                        result.replaced += replaced
                        result.outcome.warnings += notes
                        counted.append(.init(label: f.label, sha256: f.sha256, countedIn: f.sha256, phone: f.phone))
                    case .containedIn(let note, _, let sha256):
                        result.alreadyStored += 1
                        result.outcome.warnings.append(note)
                        counted.append(.init(label: f.label, sha256: f.sha256, countedIn: sha256, phone: f.phone))
                    case .alreadyStored(let label):
                        result.alreadyStored += 1
                        if let label { result.outcome.warnings.append(InputOutcome.sameCaptureNote(f.label, countedFrom: label)) }
                        if let note = try addPhone(f, into: db!) { result.outcome.warnings.append(note) }
                        counted.append(.init(label: f.label, sha256: f.sha256, countedIn: f.sha256, phone: f.phone))
                    }
                } catch {
                    result.notStored += 1
                    result.error = result.error ?? error
                    if error.kind == .unreachable {
                        lost.value.withLock { $0 = $0 ?? error }
                        db = nil
                    }
                }
            }
            // An input is recorded once all of it is: one whose captures could not all be stored
            // is read again by the next run, which records it.
            if result.error == nil {
                do throws(WarehouseError) {
                    if db == nil { db = try pool.take() }
                    try WarehouseInputs.record(outcome, captures: counted, into: db!)
                } catch {
                    result.error = error
                    if error.kind == .unreachable {
                        lost.value.withLock { $0 = $0 ?? error }
                        db = nil
                    }
                }
            }
            result.outcome.captures = result.stored + result.alreadyStored
            if let db { pool.give(db) }
            progress?(path)
            return result
        }
        var problems: [FileResult] = []
        for outcome in expansion.problems {
            var result = FileResult(outcome: outcome, stored: 0, alreadyStored: 0, notStored: 0, error: lost.value.withLock { $0 })
            if result.error == nil {
                do throws(WarehouseError) {
                    let db = try pool.take()
                    try WarehouseInputs.record(outcome, captures: [], into: db)
                    pool.give(db)
                } catch {
                    result.error = error
                    if error.kind == .unreachable { lost.value.withLock { $0 = $0 ?? error } }
                }
            }
            problems.append(result)
        }
        return problems + results
    }
}

/// Connections shared by the ingest workers: each takes one, uses it alone, gives it back.
final class ConnectionPool: Sendable {
    let url: WarehouseURL
    let free: Mutex<[PostgresConnection]>

    init(url: WarehouseURL, first: PostgresConnection) {
        self.url = url
        free = Mutex([first])
    }

    func take() throws(WarehouseError) -> PostgresConnection {
        if let c = free.withLock({ $0.popLast() }) { return c }
        return try PostgresConnection(url)
    }

    func give(_ c: PostgresConnection) {
        free.withLock { $0.append(c) }
    }
}

/// A value the workers share.
final class Shared<T: Sendable>: Sendable {
    let value: Mutex<T>
    init(_ value: T) { self.value = Mutex(value) }
}
