#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BLECore
import CSQLite

/// An open timeline file: schema checks, migrations, and the queries other stages share.
public final class TimelineStore {
    public let database: SQLiteDatabase
    public var path: String { database.path }
    /// Threads the analysis may read this file on (`ParallelFindings`): more than one only for a
    /// file this process alone writes and reads (an import's new timeline before it takes its
    /// name, a command's scratch timeline), which no one sees half-analysed, so the analysis may
    /// commit in parts. Set by the import from `ImportOptions.analysisJobs`.
    public var analysisJobs = 1

    /// Why a file cannot be used as a timeline.
    public struct OpenError: Error, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "\(path): \(message)" }
    }

    /// Opens an existing timeline (or creates the schema in a new, empty file).
    public init(path: String, readOnly: Bool = false) throws(OpenError) {
        var st = stat()
        let exists = stat(path, &st) == 0
        // A timeline is a regular file. SQLite on a FIFO or a device failed with "cannot create
        // the timeline: Illegal seek (disk I/O error)", naming neither the file nor the cause.
        if exists, let kind = FileKind.nonRegular(mode: st.st_mode) {
            throw OpenError(path: path, message: Self.notATimeline(kind))
        }
        let isNew = !exists || st.st_size == 0
        do {
            database = try SQLiteDatabase(path: path, readOnly: readOnly)
            try Self.checkSchema(database, path: path, create: !readOnly)
        } catch let e as OpenError {
            throw e
        } catch let e as SQLiteError {
            if e.primaryCode == SQLITE_NOTADB {
                throw OpenError(path: path, message: "not a blereplay timeline: \(e)")
            }
            throw OpenError(path: path, message: "cannot \(isNew ? "create" : "open") the timeline: \(e)")
        } catch {
            throw OpenError(path: path, message: "cannot open the timeline: \(error)")
        }
    }

    /// Why a path that is `kind` (`FileKind.nonRegular`) cannot be a timeline.
    static func notATimeline(_ kind: String) -> String {
        "not a timeline: \(kind); a timeline is a regular (SQLite) file"
    }

    /// Checks that `db` is a blereplay timeline this build reads, migrating an older one, or
    /// creates the schema in an empty file. Returns true when it created the schema.
    ///
    /// The application id comes first: a foreign SQLite file is "not a blereplay timeline"
    /// whatever its `user_version`; only then does the version say older or newer.
    @discardableResult
    static func checkSchema(_ db: SQLiteDatabase, path: String, create: Bool) throws -> Bool {
        let applicationID = Int32(truncatingIfNeeded: try db.scalarInt("PRAGMA application_id") ?? 0)
        let version = try db.scalarInt("PRAGMA user_version") ?? 0
        let objects = try db.scalarInt("SELECT count(*) FROM sqlite_master") ?? 0
        if applicationID != TimelineSchema.applicationID {
            if applicationID == 0 && version == 0 && objects == 0 {
                guard create else { throw OpenError(path: path, message: "empty file, not a timeline") }
                try db.execute("""
                    PRAGMA page_size = 16384; BEGIN; \(TimelineSchema.tables) \(TimelineSchema.views)
                    PRAGMA user_version = \(TimelineSchema.version); PRAGMA application_id = \(TimelineSchema.applicationID); COMMIT;
                    """)
                return true
            }
            // Timelines written before the application id have 0 there and our tables.
            guard applicationID == 0, version > 0, try hasTimelineTables(db) else {
                throw OpenError(path: path, message: "a SQLite file that is not a blereplay timeline (application_id "
                                + "\(hex(applicationID)), user_version \(version), \(objects) schema objects)")
            }
            if create { TimelineMigration.stampApplicationID(db) }
        }
        if version == TimelineSchema.version {
            return false
        }
        if version > TimelineSchema.version {
            throw OpenError(path: path, message: "timeline schema version \(version) was written by a newer blereplay (this one reads \(TimelineSchema.version))")
        }
        guard version > 0 else {
            throw OpenError(path: path, message: "a blereplay timeline without a schema version (user_version 0): damaged or not finished")
        }
        do {
            try TimelineMigration.migrate(db, from: version)
        } catch {
            throw OpenError(path: path, message: "cannot migrate timeline schema version \(version) to \(TimelineSchema.version): \(error)")
        }
        return false
    }

    /// True when the tables every timeline version has are there (`capture` with its digests,
    /// `packet`, `connection`).
    static func hasTimelineTables(_ db: SQLiteDatabase) throws(SQLiteError) -> Bool {
        let tables = try db.scalarInt("""
            SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('capture', 'packet', 'connection')
            """) ?? 0
        guard tables == 3 else { return false }
        let columns = try db.rows("PRAGMA table_info(capture)").compactMap { $0[1].string }
        return columns.contains("sha256") && columns.contains("format")
    }

    static func hex(_ value: Int32) -> String {
        "0x" + String(UInt32(bitPattern: value), radix: 16, uppercase: true)
    }

    /// Builds the query indexes (idempotent; run after bulk imports).
    public func createIndexes() throws(SQLiteError) {
        try database.execute(TimelineSchema.indexes)
    }

    /// Deletes every row of every table (the schema, indexes and cached statements stay), so a
    /// scratch timeline can take the next capture as if it were new: row ids start again at 1,
    /// as no table is AUTOINCREMENT.
    public func removeAllRows() throws(SQLiteError) {
        let tables = try database.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            .compactMap { $0[0].string }
        try database.execute(tables.map { "DELETE FROM \"\($0)\";" }.joined())
    }

    /// True when a capture with this SHA-256 is already in the timeline.
    public func captureID(sha256: String) throws(SQLiteError) -> Int64? {
        try database.scalarInt("SELECT id FROM capture WHERE sha256 = ?", [.text(sha256)])
    }

    /// Every capture row, in id order.
    public func captures() throws(SQLiteError) -> [CaptureSummary] {
        let s = try database.prepare("""
            SELECT id, path, format_description, records, first_ts_us, last_ts_us, status, warnings, malformed_packets
            FROM capture ORDER BY id
            """)
        var out: [CaptureSummary] = []
        while try s.step() {
            out.append(CaptureSummary(id: s.int64(0), path: s.text(1) ?? "", formatDescription: s.text(2) ?? "",
                                      records: s.int(3), firstTimestamp: s.isNull(4) ? nil : s.int64(4),
                                      lastTimestamp: s.isNull(5) ? nil : s.int64(5), status: s.text(6) ?? "",
                                      warnings: s.text(7) ?? "[]", malformedPackets: s.int(8)))
        }
        return out
    }
}

/// One row of the `capture` table.
public struct CaptureSummary: Sendable {
    public var id: Int64
    public var path: String
    public var formatDescription: String
    public var records: Int
    public var firstTimestamp: Int64?
    public var lastTimestamp: Int64?
    public var status: String
    public var warnings: String
    public var malformedPackets: Int
}
