import Testing
@testable import BLETimeline

/// `RepeatedBindings` binds only what differs from the row before (issue 12: the per-packet
/// insert repeats most columns). Every row must still hold exactly the values asked for: a
/// repeated value, a change, a change to and from NULL, a literal after an integer.
@Suite("repeated bindings")
struct RepeatedBindingsTests {
    /// Rows as (integer or NULL, literal) pairs, seeded SplitMix64 so every transition occurs.
    static func rows(count: Int, seed: UInt64) -> [(Int64?, StaticString)] {
        var state = seed
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let literals: [StaticString] = ["tx", "rx", "?"]
        return (0..<count).map { _ in
            let r = next()
            let value: Int64? = r % 4 == 0 ? nil : Int64(r % 3)   // few values: runs repeat
            return (value, literals[Int((r >> 8) % 3)])
        }
    }

    @Test(arguments: [1 as UInt64, 2, 3])
    func everyRowHoldsItsOwnValues(seed: UInt64) throws {
        let db = try SQLiteDatabase(path: ":memory:")
        try db.execute("CREATE TABLE t (n INTEGER, a INTEGER, d TEXT)")
        let insert = try db.prepare("INSERT INTO t (n, a, d) VALUES (?1, ?2, ?3)")
        var bindings = RepeatedBindings()
        let rows = Self.rows(count: 500, seed: seed)
        for (n, row) in rows.enumerated() {
            insert.bindInt(n, at: 1)
            bindings.bindInt(row.0, at: 2, of: insert)
            bindings.bindStatic(row.1, at: 3, of: insert)
            try insert.run()
        }
        let stored = try db.rows("SELECT a, d FROM t ORDER BY n")
        #expect(stored.count == rows.count)
        for (got, want) in zip(stored, rows) {
            #expect(got == [want.0.map { .integer($0) } ?? .null, .text(want.1.description)])
        }
    }
}
