import Foundation
import Testing
import BLETimeline

/// Schema version 5 adds `android_status` and `android_name` to `error` and `finding` (and to
/// the `errors` and `findings` views). A version 4 timeline, whose tables had neither, opens with
/// its rows kept and the two columns NULL until the analysis fills them.
@Suite("Timeline migration: Android status columns")
struct AndroidStatusMigrationTests {
    /// `error` and `finding` as version 4 created them.
    static let version4 = """
        CREATE TABLE error (capture_id INTEGER NOT NULL, packet_id INTEGER NOT NULL, ts_us INTEGER NOT NULL, connection_id INTEGER,
            layer TEXT NOT NULL, context TEXT NOT NULL, code INTEGER NOT NULL, name TEXT NOT NULL, cb_error TEXT, opcode INTEGER,
            handle INTEGER);
        CREATE TABLE finding (connection_id INTEGER, capture_id INTEGER NOT NULL, severity TEXT NOT NULL, code TEXT NOT NULL,
            title TEXT NOT NULL, detail TEXT NOT NULL, evidence_packet_ids TEXT NOT NULL, cb_error TEXT);
        INSERT INTO error VALUES (1, 40, 1000, 1, 'hci', 'disconnect', 8, 'Connection Timeout', 'CBError.connectionTimeout', NULL, NULL);
        INSERT INTO finding VALUES (1, 1, 'error', 'supervision-timeout', 'Link lost', 'detail', '[40]', 'CBError.connectionTimeout');
        """

    @Test func aVersion4TimelineGainsTheColumns() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("android-status-migration-\(UUID().uuidString).db").path
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        let old = try Self.olderTimeline(at: path, version: 4, replacing: "DROP INDEX IF EXISTS error_connection; DROP TABLE error; DROP TABLE finding;",
                                         with: Self.version4)
        #expect(try old.rows("PRAGMA table_info(error)").compactMap { $0[1].string }.contains("android_status") == false)

        let db = try TimelineStore(path: path).database
        #expect(try db.scalarInt("PRAGMA user_version") == TimelineSchema.version)
        #expect(TimelineSchema.version >= 5)  // the columns came with version 5 (6: capture_packet_scan, issue 12)
        func rows(_ sql: String) throws -> [String] {
            try db.rows(sql).map { $0.map { $0.string ?? $0.int.map(String.init) ?? "NULL" }.joined(separator: " ") }
        }
        #expect(try rows("SELECT code, cb_error, android_status, android_name FROM errors") == ["8 CBError.connectionTimeout NULL NULL"])
        #expect(try rows("SELECT code, cb_error, android_status, android_name FROM findings") == ["supervision-timeout CBError.connectionTimeout NULL NULL"])
        // The columns take values as the analysis writes them.
        try db.execute("UPDATE error SET android_status = 8, android_name = 'GATT_CONN_TIMEOUT'")
        #expect(try rows("SELECT android_status, android_name FROM errors") == ["8 GATT_CONN_TIMEOUT"])
    }

    /// A current timeline rewritten into an older version's shape: views dropped (the migration
    /// builds them again), `drop` run, `tables` created, `user_version` set back.
    static func olderTimeline(at path: String, version: Int, replacing drop: String, with tables: String) throws -> SQLiteDatabase {
        _ = try TimelineStore(path: path)
        let old = try SQLiteDatabase(path: path)
        for view in try old.rows("SELECT name FROM sqlite_master WHERE type = 'view'").compactMap({ $0[0].string }) {
            try old.execute("DROP VIEW \(view)")
        }
        try old.execute("BEGIN; \(drop) \(tables) PRAGMA user_version = \(version); COMMIT;")
        return old
    }
}
