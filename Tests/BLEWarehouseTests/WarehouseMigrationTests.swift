import Foundation
import Testing
import BLEWarehouse

/// Warehouse schema version 2 adds `android_status` and `android_name` to `error` and `finding`.
/// A version 1 warehouse is migrated by the next `ingest`, keeps its rows, and the report over it
/// prints the Android columns for what is ingested after.
@Suite("Warehouse migration", .serialized)
struct WarehouseMigrationTests {
    @Test func aVersion1WarehouseGainsTheAndroidColumns() throws {
        let cluster = try PostgresCluster.get()
        let url = try cluster.createDatabase()
        #expect(try Tool.run(["ingest", Fixture.sample("heart-rate-supervision-timeout.btsnoop"), "--warehouse", url]).status == 0)
        let db = try PostgresConnection(WarehouseURL(url))
        // Back to version 1's shape.
        try db.execute("DROP VIEW blereplay.disconnect_reasons")
        for table in ["error", "finding"] {
            try db.execute("ALTER TABLE blereplay.\(table) DROP COLUMN android_status, DROP COLUMN android_name")
        }
        try db.execute("""
            CREATE VIEW blereplay.disconnect_reasons AS
            SELECT capture_id, connection_id, ts_us, packet_id, code AS reason, name, cb_error FROM blereplay.error WHERE kind = 'disconnect'
            """)
        try db.execute("UPDATE blereplay.schema_info SET version = 1")

        #expect(try Tool.run(["ingest", Fixture.sample("pairing-failed.btsnoop"), "--warehouse", url]).status == 0)
        #expect(try db.count("SELECT version FROM blereplay.schema_info") == WarehouseSchema.version)
        #expect(try db.count("SELECT count(*) FROM blereplay.capture") == 2)
        // The capture ingested before the migration keeps NULL; the one after has its statuses.
        #expect(try db.count("SELECT count(*) FROM blereplay.error WHERE capture_id = (SELECT min(id) FROM blereplay.capture) AND android_status IS NOT NULL") == 0)
        #expect(try db.count("""
            SELECT count(*) FROM blereplay.disconnect_reasons
            WHERE capture_id = (SELECT max(id) FROM blereplay.capture) AND android_status IS NOT NULL
            """) > 0)
        let out = Fixture.scratch()
        defer { Fixture.remove(out) }
        let report = try Tool.run(["report", "--warehouse", url, "-o", out])
        #expect(report.status == 0, "\(report.all)")
        let csv = Fixture.read(out + "/disconnect_reasons.csv")
        #expect(csv.hasPrefix("code,code_hex,name,cb_error,android_status,android_name,count,share_percent\n"))
    }
}
