import Foundation
import Testing
import BLEWarehouse

/// Names and strings from captures through COPY and bound parameters, read back byte for byte.
@Suite(.serialized) struct WarehouseTextTests {
    static let odd: [String] = [
        "plain", "tab\there", "new\nline", "cr\rlf\r\n", "back\\slash", "\\N", "\\.", "\\", "'; DROP TABLE odd; --",
        "\"double\" 'single'", "\u{1}\u{8}\u{B}\u{C}\u{1B}\u{7F}", "nul\0inside\0", String(decoding: [0xFF, 0xFE, 0x41, 0xC3], as: UTF8.self),
        "é中😀", "", "   ", "$1 $$ E'\\x00'",
    ]

    @Test func oddTextRoundTrips() throws {
        let cluster = try PostgresCluster.get()
        let db = try PostgresConnection(WarehouseURL(cluster.createDatabase()))
        try db.execute("CREATE TABLE odd (id integer, t text)")
        try db.copy(into: "odd", columns: ["id", "t"], rows: Self.odd.enumerated().map { [String($0), $1] as [String?] } + [["99", nil]])
        for (i, s) in Self.odd.enumerated() {
            try db.execute("INSERT INTO odd VALUES ($1, $2)", [String(100 + i), s])
        }
        let rows = try db.execute("SELECT id, t FROM odd ORDER BY id")
        #expect(rows.count == 2 * Self.odd.count + 1)
        for (i, s) in Self.odd.enumerated() {
            #expect(rows.first { $0[0] == String(i) }?[1] == WarehouseText.storable(s), "COPY \(i)")
            #expect(rows.first { $0[0] == String(100 + i) }?[1] == WarehouseText.storable(s), "parameter \(i)")
            #expect(try db.count("SELECT count(*) FROM odd WHERE t = $1", [s]) == 2, "\(i)")
        }
        #expect(rows.first { $0[0] == "99" }?[1] == nil)
        #expect(try db.count("SELECT count(*) FROM odd WHERE t IS NULL") == 1)
    }

    @Test func deviceNamesFromCapturesSurviveIngest() throws {
        let cluster = try PostgresCluster.get()
        let url = try cluster.createDatabase()
        let dir = Fixture.scratch()
        defer { Fixture.remove(dir) }
        // At most 29 bytes: a legacy advertising report carries 31 bytes of AD structures.
        let bytes = Array("x');DROP TABLE d;\t\"\\N\n\\.\r".utf8) + [0x00, 0x41, 0xFF, 0x42]
        try Fixture.advertisedName(bytes, peer: [0xC0, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE], into: dir + "/odd.btsnoop")
        let r = try Tool.run(["ingest", dir, "--warehouse", url])
        #expect(r.status == 0, "\(r.all)")
        let db = try PostgresConnection(WarehouseURL(url))
        let names = try db.execute("SELECT address, name FROM blereplay.device")
        #expect(names.count == 1)
        #expect(names.first?[0] == "C0:AA:BB:CC:DD:EE")
        // As the timeline keeps it: its device name ends at the first NUL (a NUL inside a value
        // reaches the warehouse as U+2400: oddTextRoundTrips).
        #expect(names.first?[1] == String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self))
        #expect(try db.count("SELECT count(*) FROM blereplay.capture") == 1)
        let out = Fixture.scratch()
        defer { Fixture.remove(out) }
        #expect(try Tool.run(["report", "--warehouse", url, "-o", out, "--quiet"]).status == 0)
        #expect(Fixture.read(out + "/connections.csv").contains("x');DROP TABLE d;"))
    }
}
