import BLECore

/// An open timeline file: schema checks, migrations, and the queries other stages share.
public final class TimelineStore {
    public let database: SQLiteDatabase
    public var path: String { database.path }

    /// Why a file cannot be used as a timeline.
    public struct OpenError: Error, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "\(path): \(message)" }
    }

    /// Opens an existing timeline (or creates the schema in a new, empty file).
    public init(path: String, readOnly: Bool = false) throws(OpenError) {
        do {
            database = try SQLiteDatabase(path: path, readOnly: readOnly)
            try Self.checkSchema(database, path: path, create: !readOnly)
        } catch let e as OpenError {
            throw e
        } catch {
            throw OpenError(path: path, message: "not a blereplay timeline (\(error))")
        }
    }

    static func checkSchema(_ db: SQLiteDatabase, path: String, create: Bool) throws {
        let version = try db.scalarInt("PRAGMA user_version") ?? 0
        if version == TimelineSchema.version {
            return
        }
        if version > TimelineSchema.version {
            throw OpenError(path: path, message: "timeline schema version \(version) was written by a newer blereplay (this one reads \(TimelineSchema.version))")
        }
        if version > 0 {
            do {
                try TimelineMigration.migrate(db, from: version)
            } catch {
                throw OpenError(path: path, message: "cannot migrate timeline schema version \(version) to \(TimelineSchema.version): \(error)")
            }
            return
        }
        // version 0: a new file, or a SQLite file that is not ours.
        let tables = try db.scalarInt("SELECT count(*) FROM sqlite_master") ?? 0
        if tables > 0 {
            throw OpenError(path: path, message: "a SQLite file that is not a blereplay timeline (user_version 0 with \(tables) objects)")
        }
        guard create else { throw OpenError(path: path, message: "empty file, not a timeline") }
        try db.execute("PRAGMA page_size = 16384; BEGIN; \(TimelineSchema.tables) \(TimelineSchema.views) PRAGMA user_version = \(TimelineSchema.version); COMMIT;")
    }

    /// Builds the query indexes (idempotent; run after bulk imports).
    public func createIndexes() throws(SQLiteError) {
        try database.execute(TimelineSchema.indexes)
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
