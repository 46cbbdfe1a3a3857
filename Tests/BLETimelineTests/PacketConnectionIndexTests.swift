import Foundation
import Testing
import BLETimeline

/// `packet_connection` is a partial index over the packets of a connection (issue 12,
/// `TimelineSchema.indexes`): the packets outside any connection are not in it, and every query
/// that looks packets up by connection still finds them through it.
@Suite("packet_connection index")
struct PacketConnectionIndexTests {
    static func imported(_ sample: String) throws -> (path: String, db: SQLiteDatabase) {
        let path = TestPaths.temporaryFile("packet-connection-\(UUID().uuidString)-\(sample).db")
        try? FileManager.default.removeItem(atPath: path)
        _ = try Importer.importCaptures([TestPaths.sample(sample)], into: path)
        return (path, try SQLiteDatabase(path: path, readOnly: true))
    }

    /// The index holds one entry per packet with a connection and none for the others: counted
    /// through `dbstat`'s cells of the index's leaf pages, against the table's own count.
    @Test func theIndexHoldsOnlyPacketsOfAConnection() throws {
        let (path, db) = try Self.imported("heart-rate-supervision-timeout.btsnoop")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let linked = try #require(try db.scalarInt("SELECT count(*) FROM packet WHERE connection_id IS NOT NULL"))
        let all = try #require(try db.scalarInt("SELECT count(*) FROM packet"))
        #expect(linked > 0 && linked < all, "the sample has packets in and out of connections")
        let entries = try #require(try db.scalarInt("SELECT sum(ncell) FROM dbstat WHERE name = 'packet_connection' AND pagetype = 'leaf'"))
        let interior = try #require(try db.scalarInt("SELECT coalesce(sum(ncell), 0) FROM dbstat WHERE name = 'packet_connection' AND pagetype = 'internal'"))
        #expect(entries + interior == linked)
    }

    /// The analysis's and the exporter's lookups by connection, as they are written, use it.
    @Test(arguments: [
        "SELECT count(*) FROM packet p WHERE p.connection_id = ?1",
        "SELECT min(p.ts_us) FROM packet p WHERE p.connection_id = ?1",
        "SELECT frame FROM packet WHERE connection_id = ?1 AND kind = 'evt' AND summary LIKE '%Long Term Key Request%'",
        "SELECT id, ts_us FROM packets WHERE connection_id = ?1",
    ])
    func lookupsByConnectionUseTheIndex(_ query: String) throws {
        let (path, db) = try Self.imported("heart-rate-supervision-timeout.btsnoop")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let plan = try db.rows("EXPLAIN QUERY PLAN \(query)", [.integer(1)]).compactMap { $0[3].string }
        #expect(plan.contains { $0.contains("INDEX packet_connection") }, "\(plan)")
    }
}
