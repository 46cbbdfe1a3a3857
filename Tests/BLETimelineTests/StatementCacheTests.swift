import Foundation
import Testing
@testable import BLETimeline

/// `rows`, `scalarInt` and `run` keep their prepared statements by SQL text (issue 12: the
/// analysis asks the same queries per connection and per finding, and preparing cost more than
/// running them). A kept statement must behave as a fresh one: current rows, no values left
/// from the last call, no lock held between calls, pragmas asked afresh.
@Suite("prepared-statement cache")
struct StatementCacheTests {
    static func file() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("stmtcache-\(UUID().uuidString).db").path
    }

    @Test func keptStatementsSeeNewRowsAndForgetOldValues() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        try db.execute("CREATE TABLE t (a INTEGER, b TEXT)")
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 0)
        try db.run("INSERT INTO t VALUES (?1, ?2)", [.integer(1), .text("x")])
        try db.run("INSERT INTO t VALUES (?1, ?2)", [.integer(2)])   // ?2 not given: NULL, not "x"
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 2)
        #expect(try db.rows("SELECT a, b FROM t ORDER BY a") == [[.integer(1), .text("x")], [.integer(2), .null]])
        #expect(try db.rows("SELECT ?1, ?2", [.integer(7), .integer(8)]) == [[.integer(7), .integer(8)]])
        #expect(try db.rows("SELECT ?1, ?2", [.integer(9)]) == [[.integer(9), .null]])
    }

    /// A statement stopped on its first row (`scalarInt`) would keep its read lock, and another
    /// connection could not write: it is reset when the call returns.
    @Test func noLockIsHeldBetweenCalls() throws {
        let path = Self.file()
        defer { unlink(path) }
        let first = try SQLiteDatabase(path: path)
        try first.execute("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2), (3)")
        #expect(try first.scalarInt("SELECT a FROM t ORDER BY a") == 1)
        #expect(try first.rows("SELECT a FROM t WHERE a > ?1", [.integer(1)]).count == 2)
        let second = try SQLiteDatabase(path: path)
        try second.execute("PRAGMA busy_timeout = 100; BEGIN EXCLUSIVE; INSERT INTO t VALUES (4); COMMIT")
        #expect(try first.scalarInt("SELECT a FROM t ORDER BY a DESC") == 4)
    }

    /// `PRAGMA table_info` is answered when prepared: after a schema change it must not repeat
    /// the old answer. Statements past the cache's bound still run.
    @Test func pragmasAndUncachedStatementsAreAskedAfresh() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        try db.execute("CREATE TABLE t (a INTEGER)")
        #expect(try db.rows("PRAGMA table_info(t)").count == 1)
        try db.execute("ALTER TABLE t ADD COLUMN b TEXT")
        #expect(try db.rows("PRAGMA table_info(t)").count == 2)
        for i in 0..<(SQLiteDatabase.cachedStatementLimit + 10) {
            #expect(try db.scalarInt("SELECT \(i) + count(*) FROM t") == Int64(i))
        }
    }
}
