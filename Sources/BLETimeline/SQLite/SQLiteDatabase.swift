#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CSQLite

/// SQLITE_TRANSIENT tells SQLite to copy bound text and blobs before the call returns.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A connection to one SQLite file: every C call goes through this wrapper and `SQLiteStatement`.
public final class SQLiteDatabase {
    let handle: OpaquePointer
    public let path: String

    /// Memory statistics take a global mutex on every allocation; the tool does not need them.
    /// Effective only before SQLite initialises, so it runs once, before the first open.
    private static let configured: Bool = {
        _ = csqlite_disable_memory_statistics()
        return true
    }()

    /// Opens (and creates, unless `readOnly`) the database at `path`.
    /// How long a statement waits for another connection's lock before failing with SQLITE_BUSY.
    public static let busyTimeoutMilliseconds: Int32 = 30_000

    public init(path: String, readOnly: Bool = false) throws(SQLiteError) {
        _ = Self.configured
        var db: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let failure = db.map { SQLiteDatabase.failure($0, rc) } ?? SQLiteError(code: rc, message: "cannot open")
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: failure.code, message: "\(path): \(failure.message)", systemErrno: failure.systemErrno)
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, Self.busyTimeoutMilliseconds)
    }

    /// True while a transaction is open (`sqlite3_get_autocommit` is 0).
    public var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Tests: from now on a lock this connection would wait for fails at once with SQLITE_BUSY,
    /// and `counter` counts those times (the busy timeout no longer applies). `counter` must
    /// outlive the connection's use.
    func countLockWaits(in counter: UnsafeMutablePointer<Int32>) {
        _ = csqlite_count_lock_waits(handle, counter)
    }

    deinit {
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws(SQLiteError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            var failure = error(rc)
            if let errorMessage { failure.message = String(cString: errorMessage) }
            sqlite3_free(errorMessage)
            throw failure
        }
    }

    /// Prepared statements of `run`, `rows` and `scalarInt`, by SQL text. Preparing a query costs
    /// tens of thousands of instructions and the analysis asks the same few queries per connection
    /// and per finding. Bounded, because some callers write values into the text.
    private var cache: [String: SQLiteStatement] = [:]
    static let cachedStatementLimit = 256

    /// The cached statement for `sql`, reset, with no values bound. Only the calls below
    /// use it, each to completion, so a cached statement is never stepped by two callers at once
    /// (`forEachRow`'s body runs other queries, never its own).
    private func cachedStatement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let cached = cache[sql] {
            cached.reset()
            cached.clearBindings()
            return cached
        }
        let s = try prepare(sql)
        // A pragma's answer may be fixed when it is prepared (`table_info`): always asked afresh.
        if cache.count < Self.cachedStatementLimit && !sql.hasPrefix("PRAGMA") { cache[sql] = s }
        return s
    }

    /// Runs one statement with bindings through a cached prepared statement.
    public func run(_ sql: String, _ values: [SQLiteValue]) throws(SQLiteError) {
        let s = try cachedStatement(sql)
        try s.bind(values)
        try s.run()
    }

    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try SQLiteStatement(database: self, sql: sql)
    }

    /// The first column of the first row of a query, as an integer.
    public func scalarInt(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> Int64? {
        let s = try cachedStatement(sql)
        // Reset when done: a statement left on a row would keep its read transaction open.
        defer { s.reset() }
        try s.bind(bindings)
        guard try s.step() else { return nil }
        return s.isNull(0) ? nil : s.int64(0)
    }

    /// All rows of a query.
    public func rows(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        let s = try cachedStatement(sql)
        defer { s.reset() }
        try s.bind(bindings)
        var out: [[SQLiteValue]] = []
        while try s.step() { out.append(s.row()) }
        return out
    }

    /// Each row of a query, read in place from the cached statement (nothing is materialised):
    /// for queries whose rows are counted or filtered rather than kept. `body` must not run
    /// another query with the same SQL text.
    public func forEachRow(_ sql: String, _ bindings: [SQLiteValue] = [],
                           _ body: (SQLiteStatement) throws -> Void) throws {
        let s = try cachedStatement(sql)
        defer { s.reset() }
        try s.bind(bindings)
        while try s.step() { try body(s) }
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The error of the call that just returned `rc`: call it before any other call on the handle.
    func error(_ rc: Int32) -> SQLiteError {
        Self.failure(handle, rc)
    }

    static func failure(_ handle: OpaquePointer, _ rc: Int32) -> SQLiteError {
        // errno as the failing call left it, before anything below can change it: SQLite's own
        // record of it (`sqlite3_system_errno`) is reset by the clean-up after a failed write.
        let lastErrno = errno
        // The extended code of the failing call when the handle still holds it (same primary code).
        let extended = sqlite3_extended_errcode(handle)
        let code = extended & 0xFF == rc & 0xFF ? extended : rc
        let message = extended & 0xFF == rc & 0xFF ? String(cString: sqlite3_errmsg(handle)) : String(cString: sqlite3_errstr(rc))
        var systemErrno = sqlite3_system_errno(handle)
        if systemErrno == 0, [SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN].contains(rc & 0xFF),
           [ENOSPC, EFBIG, EDQUOT, EIO, EACCES, EPERM, EROFS].contains(lastErrno) {
            systemErrno = lastErrno
        }
        return SQLiteError(code: code, message: message, systemErrno: systemErrno)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}

/// A value read from or bound to SQLite.
public enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public var int: Int? { if case .integer(let v) = self { return Int(v) }; return nil }
    public var int64: Int64? { if case .integer(let v) = self { return v }; return nil }
    public var string: String? {
        switch self {
        case .text(let s): s
        case .integer(let v): String(v)
        case .real(let d): String(d)
        default: nil
        }
    }
    public var blob: [UInt8]? { if case .blob(let b) = self { return b }; return nil }
    public var isNull: Bool { self == .null }
}

/// A prepared statement, reset and re-bound for every row of a bulk insert.
public final class SQLiteStatement {
    let statement: OpaquePointer
    /// Unowned: the database caches its statements, so a strong reference would keep both alive forever.
    unowned let database: SQLiteDatabase

    init(database: SQLiteDatabase, sql: String) throws(SQLiteError) {
        var s: OpaquePointer?
        let rc = sqlite3_prepare_v2(database.handle, sql, -1, &s, nil)
        guard rc == SQLITE_OK, let s else {
            var failure = database.error(rc)
            failure.message += " in: \(sql)"
            throw failure
        }
        statement = s
        self.database = database
    }

    deinit { sqlite3_finalize(statement) }

    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        sqlite3_reset(statement)
        for (i, v) in values.enumerated() { try bind(v, at: Int32(i + 1)) }
    }

    public func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(statement, index)
        case .integer(let v): rc = sqlite3_bind_int64(statement, index, v)
        case .real(let d): rc = sqlite3_bind_double(statement, index, d)
        case .text(let s): rc = sqlite3_bind_text(statement, index, s, -1, sqliteTransient)
        case .blob(let b):
            rc = b.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), sqliteTransient) }
        }
        if rc != SQLITE_OK { throw database.error(rc) }
    }

    // Fast typed binds for the hot insert paths (no enum boxing).
    @inline(__always) public func bindInt(_ v: Int64?, at i: Int32) {
        if let v { sqlite3_bind_int64(statement, i, v) } else { sqlite3_bind_null(statement, i) }
    }
    @inline(__always) public func bindInt(_ v: Int?, at i: Int32) { bindInt(v.map(Int64.init), at: i) }
    @inline(__always) public func bindText(_ s: String?, at i: Int32) {
        guard var s else { sqlite3_bind_null(statement, i); return }
        s.withUTF8 { buf in
            _ = sqlite3_bind_text(statement, i, UnsafeRawPointer(buf.baseAddress!).assumingMemoryBound(to: CChar.self),
                                  Int32(buf.count), sqliteTransient)
        }
    }
    @inline(__always) public func bindBlob(_ b: [UInt8]?, at i: Int32) {
        guard let b else { sqlite3_bind_null(statement, i); return }
        _ = b.withUnsafeBytes { raw in
            raw.isEmpty ? sqlite3_bind_zeroblob(statement, i, 0)
                        : sqlite3_bind_blob(statement, i, raw.baseAddress, Int32(raw.count), sqliteTransient)
        }
    }

    /// Binds text that lives as long as the program (a literal): SQLite keeps the pointer instead
    /// of copying the bytes, which matters on the per-packet insert path.
    @inline(__always) public func bindStatic(_ s: StaticString, at i: Int32) {
        if s.hasPointerRepresentation {
            sqlite3_bind_text(statement, i, UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self),
                              Int32(s.utf8CodeUnitCount), nil)   // nil is SQLITE_STATIC
        } else {
            bindText(s.description, at: i)
        }
    }

    /// Binds `text` at `textIndex` and `blob` at `blobIndex` without copying either, runs the
    /// statement, and unbinds both while their storage is still borrowed: the bulk-insert form of
    /// `bindText` + `bindBlob` + `run` that saves SQLite two allocations and copies per row.
    public func run(borrowing text: String?, at textIndex: Int32, _ blob: [UInt8]?, at blobIndex: Int32) throws(SQLiteError) {
        var text = text
        var rc: Int32 = SQLITE_DONE
        var failure: SQLiteError?
        func step(_ t: UnsafeBufferPointer<UInt8>?, _ b: UnsafeRawBufferPointer?) {
            if let t, let base = t.baseAddress, !t.isEmpty {
                sqlite3_bind_text(statement, textIndex, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self),
                                  Int32(t.count), nil)
            } else if t != nil {
                sqlite3_bind_text(statement, textIndex, "", 0, sqliteTransient)
            } else {
                sqlite3_bind_null(statement, textIndex)
            }
            if let b {
                if b.isEmpty { sqlite3_bind_zeroblob(statement, blobIndex, 0) }
                else { sqlite3_bind_blob(statement, blobIndex, b.baseAddress, Int32(b.count), nil) }
            } else {
                sqlite3_bind_null(statement, blobIndex)
            }
            rc = sqlite3_step(statement)
            if rc != SQLITE_DONE && rc != SQLITE_ROW { failure = database.error(rc) }
            sqlite3_reset(statement)
            // The buffers are only borrowed for this call: SQLite must not see them again.
            sqlite3_bind_null(statement, textIndex)
            sqlite3_bind_null(statement, blobIndex)
        }
        func withBlob(_ t: UnsafeBufferPointer<UInt8>?) {
            if let blob { blob.withUnsafeBytes { step(t, $0) } } else { step(t, nil) }
        }
        if text != nil { text!.withUTF8 { withBlob($0) } } else { withBlob(nil) }
        if let failure { throw failure }
    }

    /// Runs an insert/update to completion, then resets the statement for the next row.
    public func run() throws(SQLiteError) {
        let rc = sqlite3_step(statement)
        if rc != SQLITE_DONE && rc != SQLITE_ROW {
            let failure = database.error(rc)
            sqlite3_reset(statement)
            throw failure
        }
        sqlite3_reset(statement)
    }

    /// Steps a query; true while a row is available.
    public func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(statement)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw database.error(rc)
    }

    public func reset() { sqlite3_reset(statement) }
    /// Sets every parameter back to NULL.
    public func clearBindings() { sqlite3_clear_bindings(statement) }

    public var columnCount: Int32 { sqlite3_column_count(statement) }
    public func columnName(_ i: Int32) -> String { String(cString: sqlite3_column_name(statement, i)) }
    public func isNull(_ i: Int32) -> Bool { sqlite3_column_type(statement, i) == SQLITE_NULL }
    public func isBlob(_ i: Int32) -> Bool { sqlite3_column_type(statement, i) == SQLITE_BLOB }
    public func int64(_ i: Int32) -> Int64 { sqlite3_column_int64(statement, i) }
    public func int(_ i: Int32) -> Int { Int(sqlite3_column_int64(statement, i)) }
    public func optionalInt(_ i: Int32) -> Int? { isNull(i) ? nil : int(i) }
    public func optionalInt64(_ i: Int32) -> Int64? { isNull(i) ? nil : int64(i) }
    public func text(_ i: Int32) -> String? {
        guard let p = sqlite3_column_text(statement, i) else { return nil }
        return String(cString: p)
    }
    public func blob(_ i: Int32) -> [UInt8]? {
        guard sqlite3_column_type(statement, i) != SQLITE_NULL else { return nil }
        let n = Int(sqlite3_column_bytes(statement, i))
        guard n > 0, let p = sqlite3_column_blob(statement, i) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }

    public func value(_ i: Int32) -> SQLiteValue {
        switch sqlite3_column_type(statement, i) {
        case SQLITE_INTEGER: .integer(int64(i))
        case SQLITE_FLOAT: .real(sqlite3_column_double(statement, i))
        case SQLITE_TEXT: .text(text(i) ?? "")
        case SQLITE_BLOB: .blob(blob(i) ?? [])
        default: .null
        }
    }

    public func row() -> [SQLiteValue] { (0..<columnCount).map { value($0) } }
}
