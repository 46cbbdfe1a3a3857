#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BLECore
import BLETimeline

/// A timeline as Chrome trace-event JSON (`{"traceEvents":[…]}`), which Perfetto's UI and
/// chrome://tracing open.
///
/// One process per capture; in it a track (thread) per LE connection named by the peer, with
/// the connection's lifetime as a complete ("X") slice and the ATT transactions the capturing
/// host sent nested in it as slices lasting their latency (a second track holds requests the
/// peer sent); errors are instant ("i") events on their connection's track (or on "HCI" when
/// they have none) and advertising reports instant events on an "advertising" track.
/// Timestamps are microseconds since the Unix epoch, as in the timeline.
///
/// Written event by event as the rows are read (issue 17): what is held is one event, the
/// next ATT transaction (which ends the one before it), and per connection its lifetime and
/// label, whatever the number of events.
public enum TraceExporter {
    /// Tracks: advertising, HCI errors without a connection, then two per connection.
    static let advertisingTrack: Int64 = 1
    static let hciTrack: Int64 = 2
    static func connectionTrack(_ id: Int64) -> Int64 { 1000 + id * 2 }
    static func peerRequestTrack(_ id: Int64) -> Int64 { 1001 + id * 2 }
    /// ATT transaction timeout (Core Vol 3 Part F 3.3.3): how long an unanswered request is drawn.
    static let attTimeout: Int64 = 30_000_000

    /// Writes the trace to `path` as it is made, through a temporary file renamed into place
    /// when complete (`TextFile.write`'s contract, without holding the text).
    public static func write(_ store: TimelineStore, captureID: Int64? = nil, to path: String) throws {
        // Worded as `TextFile.write`'s failures.
        func failure(_ message: String) -> ReportWriter.Failure { ReportWriter.Failure(message: "\(path): \(message)") }
        let temporary: TemporaryFile
        do {
            temporary = try TemporaryFile.beside(path)
        } catch {
            throw failure("cannot create: \(error.message)")
        }
        do {
            var writeError: String?
            try stream(store, captureID: captureID) { text in
                guard writeError == nil else { return }
                if !StandardStreams.write(text, to: temporary.descriptor) { writeError = String(cString: strerror(errno)) }
            }
            if let writeError { throw failure("write failed: \(writeError)") }
            do {
                try temporary.moveIntoPlace(path)
            } catch {
                throw failure("write failed: \(error.message)")
            }
        } catch {
            temporary.discard()
            throw error
        }
    }

    /// The trace, in blocks, to `sink`: `{"traceEvents":[`, one event a line, each but the last
    /// followed by a comma, then `],"displayTimeUnit":"ms"}`.
    static func stream(_ store: TimelineStore, captureID: Int64?, to sink: @escaping (String) -> Void) throws {
        let db = store.database
        var lines = LineStream(sink: sink)
        lines.line("{\"traceEvents\":[")
        // An event is written when the next one comes, which says whether it takes a comma.
        var previous: String?
        func emit(_ event: JSON) {
            if let previous { lines.line(previous + ",") }
            previous = event.serialized()
        }
        try forEachRow(db, "SELECT id, file_name, first_ts_us, last_ts_us FROM capture ORDER BY id") { row in
            guard let id = row[0].int64, captureID == nil || captureID == id else { return }
            try captureEvents(db, id: id, name: row[1].string ?? "", first: row[2].int64 ?? 0, last: row[3].int64 ?? 0, emit: emit)
        }
        lines.line(previous ?? "")
        lines.line("],\"displayTimeUnit\":\"ms\"}")
        lines.line("")
        lines.flush()
    }

    /// Calls `body` on each row of a query as it is stepped, none kept.
    static func forEachRow(_ db: SQLiteDatabase, _ sql: String, _ bindings: [SQLiteValue] = [],
                           _ body: ([SQLiteValue]) throws -> Void) throws {
        let s = try db.prepare(sql)
        defer { s.reset() }
        try s.bind(bindings)
        while try s.step() { try body(s.row()) }
    }

    static func meta(_ name: String, pid: Int64, tid: Int64, _ args: [(String, JSON)]) -> JSON {
        .object([("name", .string(name)), ("ph", .string("M")), ("pid", .int(pid)), ("tid", .int(tid)), ("args", .object(args))])
    }

    static func slice(_ name: String, cat: String, ts: Int64, dur: Int64, pid: Int64, tid: Int64, args: [(String, JSON)]) -> JSON {
        .object([("name", .string(name)), ("cat", .string(cat)), ("ph", .string("X")), ("ts", .int(ts)), ("dur", .int(max(0, dur))),
                 ("pid", .int(pid)), ("tid", .int(tid)), ("args", .object(args))])
    }

    static func instant(_ name: String, cat: String, ts: Int64, pid: Int64, tid: Int64, args: [(String, JSON)]) -> JSON {
        .object([("name", .string(name)), ("cat", .string(cat)), ("ph", .string("i")), ("s", .string("t")), ("ts", .int(ts)),
                 ("pid", .int(pid)), ("tid", .int(tid)), ("args", .object(args))])
    }

    struct Lifetime {
        var start: Int64
        var end: Int64
    }

    static func captureEvents(_ db: SQLiteDatabase, id pid: Int64, name: String, first: Int64, last: Int64,
                              emit: (JSON) -> Void) throws {
        let capture: [SQLiteValue] = [.integer(pid)]
        emit(meta("process_name", pid: pid, tid: 0, [("name", .string("capture \(pid): \(name)"))]))
        emit(meta("thread_name", pid: pid, tid: advertisingTrack, [("name", .string("advertising"))]))
        emit(meta("thread_sort_index", pid: pid, tid: advertisingTrack, [("sort_index", .int(0))]))
        emit(meta("thread_name", pid: pid, tid: hciTrack, [("name", .string("HCI (no connection)"))]))
        emit(meta("thread_sort_index", pid: pid, tid: hciTrack, [("sort_index", .int(1))]))
        var names: [String: String] = [:]
        for row in try db.rows("SELECT address, name FROM devices WHERE name IS NOT NULL") {
            if let a = row[0].string, let n = row[1].string { names[a] = n }
        }
        // Connections: a track each, the lifetime as a slice.
        var lifetimes: [Int64: Lifetime] = [:]
        var labels: [Int64: String] = [:]
        try forEachRow(db, """
            SELECT c.id, c.handle, c.peer_address, c.status, c.connected_ts_us, c.disconnected_ts_us, c.disconnect_reason,
                   (SELECT min(p.ts_us) FROM packet p WHERE p.connection_id = c.id),
                   (SELECT max(p.ts_us) FROM packet p WHERE p.connection_id = c.id),
                   (SELECT e.cb_error FROM errors e WHERE e.connection_id = c.id AND e.context = 'disconnect' LIMIT 1),
                   (SELECT e.android_status FROM errors e WHERE e.connection_id = c.id AND e.context = 'disconnect' LIMIT 1),
                   (SELECT e.android_name FROM errors e WHERE e.connection_id = c.id AND e.context = 'disconnect' LIMIT 1)
            FROM connections c WHERE c.capture_id = ?1 ORDER BY c.id
            """, capture) { row in
            guard let id = row[0].int64 else { return }
            let handle = row[1].int ?? 0, peer = row[2].string ?? "?", status = row[3].int ?? 0
            let label = "conn \(hex(handle, width: 4)) \(peer)" + (names[peer].map { " \($0)" } ?? "")
            let track = connectionTrack(id)
            emit(meta("thread_name", pid: pid, tid: track, [("name", .string(label))]))
            emit(meta("thread_sort_index", pid: pid, tid: track, [("sort_index", .int(10 + id * 2))]))
            labels[id] = label
            guard status == 0 else {
                let at = row[7].int64 ?? first
                let code = HCIStatusCode(UInt8(truncatingIfNeeded: status))
                let what = status == 0x02 ? "cancelled connection attempt" : "failed connection attempt"
                emit(instant("\(what) \(hex(status)) \(code.name)", cat: "connection", ts: at, pid: pid, tid: track,
                             args: [("status", .int(Int64(status))), ("peer", .string(peer))]))
                return
            }
            let start = row[4].int64 ?? row[7].int64 ?? first
            let end = row[5].int64 ?? max(row[8].int64 ?? last, last)
            lifetimes[id] = Lifetime(start: start, end: max(start, end))
            var args: [(String, JSON)] = [("handle", .int(Int64(handle))), ("peer", .string(peer))]
            if let reason = row[6].int {
                args.append(("disconnect_reason", .int(Int64(reason))))
                args.append(("reason_name", .string(HCIStatusCode(UInt8(truncatingIfNeeded: reason)).name)))
            } else {
                args.append(("open_at_end", .bool(true)))
            }
            if let cb = row[9].string { args.append(("cb_error", .string(cb))) }
            if let status = row[10].int {
                args.append(("android_status", .int(Int64(status))))
                if let name = row[11].string { args.append(("android_name", .string(name))) }
            }
            emit(slice("connection \(peer)", cat: "connection", ts: start, dur: max(start, end).saturatingSubtracting(start), pid: pid, tid: track, args: args))
        }
        try transactions(db, pid: pid, lifetimes: lifetimes, labels: labels, last: last, emit: emit)
        // Errors.
        try forEachRow(db, """
            SELECT packet_id, ts_us, connection_id, layer, context, code, name, cb_error, android_status, android_name FROM errors
            WHERE capture_id = ?1 ORDER BY packet_id
            """, capture) { row in
            let connection = row[2].int64
            let track = connection.map(connectionTrack) ?? hciTrack
            let code = row[5].int ?? 0
            var args: [(String, JSON)] = [("packet", JSON(row[0].int)), ("layer", JSON(row[3].string)), ("context", JSON(row[4].string)),
                                          ("code", .int(Int64(code)))]
            if let cb = row[7].string { args.append(("cb_error", .string(cb))) }
            if let status = row[8].int {
                args.append(("android_status", .int(Int64(status))))
                if let name = row[9].string { args.append(("android_name", .string(name))) }
            }
            emit(instant("\(row[3].string ?? "") \(row[4].string ?? "") \(hex(code)) \(row[6].string ?? "")", cat: "error",
                               ts: row[1].int64 ?? first, pid: pid, tid: track, args: args))
        }
        // Advertising.
        try forEachRow(db, """
            SELECT packet_id, ts_us, address, rssi, name, event_type, scan_response FROM adv_reports
            WHERE capture_id = ?1 ORDER BY packet_id
            """, capture) { row in
            let address = row[2].string ?? "?"
            let label = (row[6].int == 1 ? "SCAN_RSP " : "ADV ") + address + ((row[4].string ?? names[address]).map { " \($0)" } ?? "")
            emit(instant(label, cat: "advertising", ts: row[1].int64 ?? first, pid: pid, tid: advertisingTrack,
                         args: [("packet", JSON(row[0].int)), ("rssi", JSON(row[3].int)), ("event_type", JSON(row[5].int))]))
        }
    }

    /// ATT transactions as slices nested in their connection's lifetime, never overlapping
    /// the next transaction on the same track (Perfetto requires slices on a track to nest):
    /// each is written when the row after it has been read.
    static func transactions(_ db: SQLiteDatabase, pid: Int64, lifetimes: [Int64: Lifetime], labels: [Int64: String],
                             last: Int64, emit: (JSON) -> Void) throws {
        var opNames: [Int: String] = [:]
        for row in try db.rows("SELECT DISTINCT opcode, opcode_name FROM att_pdu WHERE capture_id = ?1", [.integer(pid)]) {
            if let op = row[0].int, let n = row[1].string { opNames[op] = n }
        }
        // Rows come by connection: a connection's peer track is named before its first request
        // from the peer, once.
        var peerTrackNamed: Int64?
        func transaction(_ row: [SQLiteValue], next: [SQLiteValue]?) {
            guard let connection = row[0].int64, let life = lifetimes[connection], let ts = row[8].int64 else { return }
            let track = row[9].string == "rx" ? peerRequestTrack(connection) : connectionTrack(connection)
            if track == peerRequestTrack(connection), peerTrackNamed != connection {
                peerTrackNamed = connection
                emit(meta("thread_name", pid: pid, tid: track, [("name", .string((labels[connection] ?? "") + " (requests from the peer)"))]))
                emit(meta("thread_sort_index", pid: pid, tid: track, [("sort_index", .int(11 + connection * 2))]))
            }
            let op = row[3].int ?? 0
            let outcome = row[6].string ?? "?"
            var end = row[5].int64.map { ts.saturatingAdding($0) } ?? min(ts.saturatingAdding(attTimeout), life.end)
            if outcome == "pending" && row[5].isNull { end = min(last, life.end) }
            if let next, next[0].int64 == connection, next[9].string == row[9].string, let nextTS = next[8].int64 {
                end = min(end, nextTS)
            }
            let start = max(ts, life.start)
            end = min(max(end, start), life.end)
            let handle = row[4].int
            var args: [(String, JSON)] = [("outcome", .string(outcome)), ("request_packet", JSON(row[1].int)),
                                          ("response_packet", JSON(row[2].int)), ("latency_us", JSON(row[5].int64))]
            if let handle { args.append(("handle", .int(Int64(handle)))) }
            if let e = row[7].int {
                args.append(("error_code", .int(Int64(e))))
                args.append(("error_name", .string(ATTErrorCode(UInt8(truncatingIfNeeded: e)).name)))
            }
            let name = (opNames[op] ?? "ATT \(hex(op))") + (handle.map { " \(hex($0, width: 4))" } ?? "")
                + (outcome == "ok" ? "" : " [\(outcome)]")
            emit(slice(name, cat: "att", ts: start, dur: end.saturatingSubtracting(start), pid: pid, tid: track, args: args))
        }
        var held: [SQLiteValue]?
        try forEachRow(db, """
            SELECT t.connection_id, t.request_packet_id, t.response_packet_id, t.opcode, t.handle, t.latency_us, t.outcome,
                   t.error_code, t.request_ts_us, t.direction
            FROM att_transaction t JOIN connections c ON c.id = t.connection_id
            WHERE c.capture_id = ?1 ORDER BY t.connection_id, t.direction, t.request_ts_us, t.request_packet_id
            """, [.integer(pid)]) { row in
            if let held { transaction(held, next: row) }
            held = row
        }
        if let held { transaction(held, next: nil) }
    }
}
