import Foundation
import Testing
import BLETimeline

/// A timeline written by blereplay's schema version 1 opens, is migrated in place, and answers
/// every documented view exactly as a fresh import does.
@Suite("Timeline schema migration")
struct TimelineMigrationTests {
    static let views = ["captures", "packets", "adv_reports", "connections", "att_pdus", "att_transactions",
                        "gatt_services", "gatt_characteristics", "gatt_descriptors", "errors", "smp_events", "findings"]

    /// Version 1's two tables whose shape changed, as that release created them.
    static let version1 = """
        CREATE TABLE packet (
            rowid INTEGER PRIMARY KEY, capture_id INTEGER NOT NULL, frame INTEGER NOT NULL, ts_us INTEGER NOT NULL,
            direction TEXT NOT NULL, kind TEXT NOT NULL, length INTEGER NOT NULL, layer TEXT NOT NULL,
            summary TEXT NOT NULL, connection_id INTEGER, file_offset INTEGER NOT NULL, original_length INTEGER NOT NULL,
            controller_index INTEGER NOT NULL DEFAULT 0, raw_type INTEGER NOT NULL DEFAULT 0,
            malformed INTEGER NOT NULL DEFAULT 0, raw BLOB);
        CREATE TABLE att_pdu (
            capture_id INTEGER NOT NULL, packet_id INTEGER NOT NULL, ts_us INTEGER NOT NULL, connection_id INTEGER NOT NULL,
            direction TEXT NOT NULL, opcode INTEGER NOT NULL, opcode_name TEXT NOT NULL, handle INTEGER,
            error_code INTEGER, request_opcode INTEGER, value BLOB, malformed INTEGER NOT NULL DEFAULT 0, pdu BLOB NOT NULL);
        CREATE INDEX packet_capture_frame ON packet(capture_id, frame);
        CREATE INDEX packet_connection ON packet(connection_id, frame);
        CREATE INDEX att_pdu_connection ON att_pdu(connection_id, packet_id);
        CREATE VIEW packets AS
            SELECT frame AS id, ts_us, direction, kind, length, summary, capture_id, connection_id, layer, raw FROM packet;
        """

    /// Rewrites a current timeline into version 1's shape, as an older blereplay left it.
    static func downgrade(_ path: String) throws {
        let db = try SQLiteDatabase(path: path)
        for view in try db.rows("SELECT name FROM sqlite_master WHERE type = 'view'").compactMap({ $0[0].string }) {
            try db.execute("DROP VIEW \(view)")
        }
        try db.execute("""
            BEGIN;
            DROP INDEX packet_connection;
            DROP INDEX att_pdu_connection;
            ALTER TABLE packet RENAME TO packet_v2;
            ALTER TABLE att_pdu RENAME TO att_pdu_v2;
            \(version1)
            INSERT INTO packet SELECT rowid, capture_id, frame, ts_us, direction, kind, length, layer, summary, connection_id,
                                      file_offset, length, controller_index, raw_type, malformed, raw FROM packet_v2;
            INSERT INTO att_pdu SELECT capture_id, packet_id, ts_us, connection_id, direction, opcode, opcode_name, handle,
                                       error_code, request_opcode, substr(pdu, value_offset + 1, value_length), malformed, pdu
                                FROM att_pdu_v2 ORDER BY rowid;
            DROP TABLE packet_v2;
            DROP TABLE att_pdu_v2;
            PRAGMA user_version = 1;
            COMMIT;
            """)
    }

    static func contents(_ path: String, _ view: String) throws -> [[SQLiteValue]] {
        try SQLiteDatabase(path: path, readOnly: true).rows("SELECT * FROM \(view)")
    }

    @Test(arguments: ["auth-errors.btsnoop", "pairing-failed.btsnoop", "heart-rate-supervision-timeout.btsnoop"])
    func aVersion1TimelineIsMigratedWithTheSameViews(_ sample: String) throws {
        let fresh = TestPaths.temporaryFile("migrate-fresh-\(sample).db")
        let old = TestPaths.temporaryFile("migrate-old-\(sample).db")
        defer { for p in [fresh, old] { try? FileManager.default.removeItem(atPath: p) } }
        _ = try Importer.importCaptures([TestPaths.sample(sample)], into: fresh)
        try FileManager.default.copyItem(atPath: fresh, toPath: old)
        try Self.downgrade(old)
        #expect(try SQLiteDatabase(path: old).scalarInt("PRAGMA user_version") == 1)
        #expect(try Self.contents(old, "packets").count > 0)

        let migrated = try TimelineStore(path: old)
        #expect(try migrated.database.scalarInt("PRAGMA user_version") == TimelineSchema.version)
        #expect(try migrated.database.scalarInt("SELECT count(*) FROM sqlite_master WHERE name IN ('packet_v1', 'att_pdu_v1')") == 0)
        #expect(try migrated.database.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'packet_connection'") == 1)
        for view in Self.views {
            #expect(try Self.contents(old, view) == Self.contents(fresh, view), "\(view)")
        }
    }

    /// Version 4 -> 5: `capture` gains the phone identity columns, NULL for the captures already
    /// in it; every view answers as a fresh import does.
    @Test func aVersion4TimelineGainsThePhoneColumns() throws {
        let fresh = TestPaths.temporaryFile("migrate-fresh-v4.db")
        let old = TestPaths.temporaryFile("migrate-old-v4.db")
        defer { for p in [fresh, old] { try? FileManager.default.removeItem(atPath: p) } }
        _ = try Importer.importCaptures([TestPaths.sample("auth-errors.btsnoop")], into: fresh)
        try FileManager.default.copyItem(atPath: fresh, toPath: old)
        let db = try SQLiteDatabase(path: old)
        for view in try db.rows("SELECT name FROM sqlite_master WHERE type = 'view'").compactMap({ $0[0].string }) {
            try db.execute("DROP VIEW \(view)")
        }
        for column in PhoneIdentityColumns.names { try db.execute("ALTER TABLE capture DROP COLUMN \(column)") }
        try db.execute("PRAGMA user_version = 4")

        let migrated = try TimelineStore(path: old)
        #expect(try migrated.database.scalarInt("PRAGMA user_version") == TimelineSchema.version)
        let columns = try migrated.database.rows("PRAGMA table_info(capture)").compactMap { $0[1].string }
        #expect(PhoneIdentityColumns.names.allSatisfy(columns.contains))
        #expect(try migrated.database.scalarInt("SELECT count(*) FROM captures WHERE phone_model IS NULL") == 1)
        for view in Self.views {
            #expect(try Self.contents(old, view) == Self.contents(fresh, view), "\(view)")
        }
    }

    /// Version 5 -> 6: the table `capture_packet_scan` (issue 12) is created, empty: a capture
    /// imported before has no row (the replay scans its packets as before), and the views answer
    /// as a fresh import's do.
    @Test func aVersion5TimelineGainsThePacketScanTable() throws {
        let fresh = TestPaths.temporaryFile("migrate-fresh-v5.db")
        let old = TestPaths.temporaryFile("migrate-old-v5.db")
        defer { for p in [fresh, old] { try? FileManager.default.removeItem(atPath: p) } }
        _ = try Importer.importCaptures([TestPaths.sample("auth-errors.btsnoop")], into: fresh)
        #expect(try StoredPacketScan.read(1, db: SQLiteDatabase(path: fresh)) != nil)
        try FileManager.default.copyItem(atPath: fresh, toPath: old)
        let db = try SQLiteDatabase(path: old)
        for view in try db.rows("SELECT name FROM sqlite_master WHERE type = 'view'").compactMap({ $0[0].string }) {
            try db.execute("DROP VIEW \(view)")
        }
        try db.execute("DROP TABLE capture_packet_scan; PRAGMA user_version = 5")

        let migrated = try TimelineStore(path: old)
        #expect(try migrated.database.scalarInt("PRAGMA user_version") == TimelineSchema.version)
        #expect(try migrated.database.scalarInt("SELECT count(*) FROM capture_packet_scan") == 0)
        #expect(try StoredPacketScan.read(1, db: migrated.database) == nil)
        for view in Self.views {
            #expect(try Self.contents(old, view) == Self.contents(fresh, view), "\(view)")
        }
    }

    @Test func aNewerTimelineIsRefused() throws {
        let path = TestPaths.temporaryFile("migrate-newer.db")
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try Importer.importCaptures([TestPaths.sample("auth-errors.btsnoop")], into: path)
        try SQLiteDatabase(path: path).execute("PRAGMA user_version = \(TimelineSchema.version + 1)")
        #expect(throws: TimelineStore.OpenError.self) { try TimelineStore(path: path) }
    }
}
