#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CPostgres

/// One libpq connection to the warehouse (PostgreSQL documentation chapter 34, "libpq").
///
/// Every value goes to the server as a parameter (`PQexecParams`, 34.3.1) or in a COPY stream
/// (`PQputCopyData`, 34.10): no statement is ever built from a value. Text is sent as UTF-8
/// (`client_encoding`), with NUL characters stored as U+2400 (`WarehouseText.storable`).
/// Used by one thread at a time (the ingest workers hand connections over through a pool).
public final class PostgresConnection: @unchecked Sendable {
    let conn: OpaquePointer
    public let url: WarehouseURL

    /// Connects, or throws `.unreachable` naming the host and port libpq tried.
    public init(_ url: WarehouseURL) throws(WarehouseError) {
        self.url = url
        // connect_timeout first, so a value in the URL (expanded from dbname) overrides it.
        let keywords = ["connect_timeout", "dbname"], values = ["10", url.conninfo]
        let connection: OpaquePointer? = withCStrings(keywords) { k in
            withCStrings(values) { v in PQconnectdbParams(k, v, 1) }
        }
        guard let connection else { throw WarehouseError(.unreachable, "cannot allocate a libpq connection") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let reason = url.redact(String(cString: PQerrorMessage(connection)).trimmingNewlines)
            let host = PQhost(connection).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? url.host
            let port = PQport(connection).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? url.port
            PQfinish(connection)
            throw WarehouseError(.unreachable, url.redact("cannot reach the warehouse at host \(host) port \(port): \(reason)"))
        }
        conn = connection
        // The server's notices (a WARNING as it shuts down) are not printed: libpq's default
        // writes them to stderr as they come, between the tool's own lines; what they say of a
        // lost connection, the failing statement's error says (`failure`).
        _ = PQsetNoticeProcessor(conn, { _, _ in }, nil)
        _ = PQsetClientEncoding(conn, "UTF8")
        try execute("SET client_min_messages = warning")
    }

    deinit { PQfinish(conn) }

    /// A server-side failure, or the connection lost (then `.unreachable`).
    ///
    /// The connection is lost when libpq says so, and also when the server said it was ending the
    /// session (`endsSession`) before libpq read the end of the stream: a server stopped in the
    /// middle of a COPY answers with its FATAL error first, and the connection still looks open
    /// while that result is read.
    func failure(_ what: String, _ result: OpaquePointer?) -> WarehouseError {
        var reason = result.map { String(cString: PQresultErrorMessage($0)) } ?? ""
        if reason.isEmpty { reason = String(cString: PQerrorMessage(conn)) }
        reason = url.redact(reason.trimmingNewlines)
        if PQstatus(conn) != CONNECTION_OK || result.map(Self.endsSession) ?? true {
            return WarehouseError(.unreachable, "lost the connection to the warehouse at host \(url.host) port \(url.port): \(reason)")
        }
        return WarehouseError(.query, "\(what): \(reason)")
    }

    /// Whether an error result says the session is over: severity FATAL or PANIC, an SQLSTATE of
    /// class 08 (connection exception, but 08P01) or 57P01-57P03 (admin shutdown, crash shutdown, cannot
    /// connect now), or no SQLSTATE at all: every error the server sends has one, so the error is
    /// libpq's own, which could not send the statement or read the answer ("server closed the
    /// connection unexpectedly" while the connection still looks open: a write to a server gone).
    /// No result (nil) is the same. PostgreSQL documentation, Appendix A (error codes) and 55.8
    /// (error fields: `V` the non-localized severity, `C` the SQLSTATE).
    static func endsSession(_ result: OpaquePointer) -> Bool {
        func field(_ code: Character) -> String? {
            PQresultErrorField(result, Int32(code.asciiValue ?? 0)).map { String(cString: $0) }
        }
        if let severity = field("V"), severity == "FATAL" || severity == "PANIC" { return true }
        guard let state = field("C"), !state.isEmpty else { return true }
        // 08P01 (protocol violation) is a statement the server refused, the session goes on.
        return (state.hasPrefix("08") && state != "08P01") || ["57P01", "57P02", "57P03"].contains(state)
    }

    /// Runs one statement with its parameters (`$1`, `$2`, … bound to `parameters`; nil is NULL)
    /// and returns the rows, every value as text (nil for NULL).
    @discardableResult
    public func execute(_ sql: String, _ parameters: [String?] = []) throws(WarehouseError) -> [[String?]] {
        let storable = parameters.map { $0.map(WarehouseText.storable) }
        let result: OpaquePointer? = withOptionalCStrings(storable) { values in
            PQexecParams(conn, sql, Int32(storable.count), nil, values, nil, nil, 0)
        }
        defer { PQclear(result) }
        guard let result else { throw failure("query", nil) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return []
        case PGRES_TUPLES_OK:
            var rows: [[String?]] = []
            let n = PQntuples(result), m = PQnfields(result)
            rows.reserveCapacity(Int(n))
            for r in 0..<n {
                var row: [String?] = []
                row.reserveCapacity(Int(m))
                for c in 0..<m {
                    row.append(PQgetisnull(result, r, c) == 1 ? nil : String(cString: PQgetvalue(result, r, c)))
                }
                rows.append(row)
            }
            return rows
        default:
            throw failure(Self.firstWords(sql), result)
        }
    }

    /// Runs statements without parameters (DDL), several separated by semicolons.
    public func executeScript(_ sql: String) throws(WarehouseError) {
        let result = PQexec(conn, sql)
        defer { PQclear(result) }
        guard let result, PQresultStatus(result) == PGRES_COMMAND_OK || PQresultStatus(result) == PGRES_TUPLES_OK
                || PQresultStatus(result) == PGRES_EMPTY_QUERY else {
            throw failure("schema statement", result)
        }
    }

    /// `COPY table (columns) FROM STDIN` with `rows` in COPY's text format (`CopyText`).
    public func copy(into table: String, columns: [String], rows: [[String?]]) throws(WarehouseError) {
        guard !rows.isEmpty else { return }
        let start = PQexec(conn, "COPY \(table) (\(columns.joined(separator: ", "))) FROM STDIN")
        let started = start.map { PQresultStatus($0) == PGRES_COPY_IN } ?? false
        if !started {
            let error = failure("COPY \(table)", start)
            PQclear(start)
            throw error
        }
        PQclear(start)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 16)
        func flush() -> Bool {
            defer { buffer.removeAll(keepingCapacity: true) }
            return buffer.withUnsafeBufferPointer { b in
                b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) { PQputCopyData(conn, $0, Int32(b.count)) == 1 }
            }
        }
        var ok = true
        for row in rows where ok {
            CopyText.appendRow(row, to: &buffer)
            if buffer.count >= 1 << 16 { ok = flush() }
        }
        if ok && !buffer.isEmpty { ok = flush() }
        if PQputCopyEnd(conn, ok ? nil : "client gave up") != 1 { ok = false }
        // The results are read to the end before the failure is told apart (`failure`): the
        // connection's state is known only then.
        var failed: OpaquePointer?
        while let result = PQgetResult(conn) {
            if PQresultStatus(result) != PGRES_COMMAND_OK && failed == nil { failed = result } else { PQclear(result) }
        }
        if let failed {
            let error = failure("COPY \(table)", failed)
            PQclear(failed)
            throw error
        }
        if !ok { throw failure("COPY \(table)", nil) }
    }

    /// The statement's first words, to name it in an error without its values.
    static func firstWords(_ sql: String) -> String {
        sql.split(whereSeparator: { $0 == " " || $0 == "\n" }).prefix(3).joined(separator: " ")
    }
}

/// C strings for an array of Swift strings, alive for the call.
func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    withOptionalCStrings(strings.map { Optional($0) }, body)
}

func withOptionalCStrings<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { s -> UnsafeMutablePointer<CChar>? in
        guard let s else { return nil }
        return strdup(s)
    }
    defer { for p in pointers { free(p) } }
    pointers.append(nil)
    return pointers.withUnsafeBufferPointer { buffer in
        buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) { body($0) }
    }
}
