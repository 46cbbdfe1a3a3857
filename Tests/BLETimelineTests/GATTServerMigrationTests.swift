import Foundation
import Testing
import BLETimeline

/// Schema version 3 files every GATT row under its server ('remote' the peer's, 'local' this
/// device's own). A version 2 timeline, whose GATT tables had no such column, opens with its rows
/// kept as the peer's, and `gatt_value` can then hold both sides' value of one handle.
@Suite("Timeline migration: GATT server column")
struct GATTServerMigrationTests {
    /// The GATT tables as version 2 created them.
    static let version2 = """
        CREATE TABLE gatt_service (connection_id INTEGER NOT NULL, uuid TEXT NOT NULL, start_handle INTEGER NOT NULL,
            end_handle INTEGER NOT NULL, is_primary INTEGER NOT NULL DEFAULT 1);
        CREATE TABLE gatt_characteristic (connection_id INTEGER NOT NULL, service_uuid TEXT, uuid TEXT NOT NULL,
            declaration_handle INTEGER NOT NULL, value_handle INTEGER NOT NULL, properties INTEGER NOT NULL);
        CREATE TABLE gatt_descriptor (connection_id INTEGER NOT NULL, characteristic_uuid TEXT, uuid TEXT NOT NULL, handle INTEGER NOT NULL);
        CREATE TABLE gatt_value (connection_id INTEGER NOT NULL, handle INTEGER NOT NULL, value BLOB NOT NULL, source TEXT NOT NULL,
            packet_id INTEGER NOT NULL, PRIMARY KEY (connection_id, handle));
        CREATE TABLE gatt_include (connection_id INTEGER NOT NULL, service_start_handle INTEGER NOT NULL, declaration_handle INTEGER NOT NULL,
            included_start_handle INTEGER NOT NULL, included_end_handle INTEGER NOT NULL, uuid TEXT);
        INSERT INTO gatt_service VALUES (1, '180D', 12, 17, 1);
        INSERT INTO gatt_characteristic VALUES (1, '180D', '2A37', 13, 14, 16);
        INSERT INTO gatt_descriptor VALUES (1, '2A37', '2902', 15);
        INSERT INTO gatt_value VALUES (1, 14, x'0645', 'notification', 200);
        INSERT INTO gatt_include VALUES (1, 12, 16, 30, 35, NULL);
        """

    @Test func aVersion2TimelineKeepsItsGATTRowsAsThePeers() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gatt-server-migration-\(UUID().uuidString).db").path
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        _ = try AndroidStatusMigrationTests.olderTimeline(
            at: path, version: 2,
            replacing: "DROP TABLE gatt_service; DROP TABLE gatt_characteristic; DROP TABLE gatt_descriptor; DROP TABLE gatt_value; DROP TABLE gatt_include;",
            with: Self.version2)

        let db = try TimelineStore(path: path).database
        #expect(try db.scalarInt("PRAGMA user_version") == TimelineSchema.version)
        func rows(_ sql: String) throws -> [String] {
            try db.rows(sql).map { $0.map { $0.string ?? $0.int.map(String.init) ?? "NULL" }.joined(separator: " ") }
        }
        #expect(try rows("SELECT * FROM gatt_services") == ["1 180D 12 17 remote"])
        #expect(try rows("SELECT * FROM gatt_characteristics") == ["1 180D 2A37 13 14 16 remote"])
        #expect(try rows("SELECT * FROM gatt_descriptors") == ["1 2A37 2902 15 remote"])
        #expect(try rows("SELECT connection_id, handle, hex(value), source, packet_id, server FROM gatt_value") == ["1 14 0645 notification 200 remote"])
        #expect(try rows("SELECT server FROM gatt_include") == ["remote"])
        // The local server's value of the same handle is a row of its own.
        try db.execute("INSERT INTO gatt_value (connection_id, handle, value, source, packet_id, server) VALUES (1, 14, x'01', 'read', 300, 'local')")
        #expect(try db.scalarInt("SELECT count(*) FROM gatt_value WHERE connection_id = 1 AND handle = 14") == 2)
        #expect(try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'gatt_value_v2'") == 0)
    }
}
