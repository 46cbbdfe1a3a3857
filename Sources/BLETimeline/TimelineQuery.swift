import BLECore
import BLEDecode

/// Which packets `timeline` shows.
public struct PacketFilter: Sendable {
    public var captureID: Int64?
    public var connectionID: Int64?
    /// Peer address of the connection, or advertiser address.
    public var address: String?
    public var layer: String?
    /// Only packets with an error row or a decode problem.
    public var errorsOnly = false
    public var limit: Int?
    /// Also load each packet's decoded fields (`timeline -v`).
    public var withFields = false
    public init() {}
}

/// One packet row as `timeline` prints it.
public struct PacketRow: Sendable {
    public var captureID: Int64
    public var id: Int
    public var timestamp: Int64
    /// Seconds since the capture's first HCI packet.
    public var relative: Int64
    public var direction: String
    public var kind: String
    public var length: Int
    public var layer: String
    public var summary: String
    public var connectionID: Int64?
    public var fileOffset: Int
    public var malformed: Bool
    public var raw: [UInt8]?
    public var problems: [String]
    /// Decoded fields, in wire order (only with `PacketFilter.withFields`).
    public var fields: [(String, String)] = []

    /// `  1234   12.345678 rx att       Rcvd Handle Value Notification, Handle: 0x0012`
    public func textLine() -> String {
        let idText = String(id)
        let pad = String(repeating: " ", count: max(0, 7 - idText.count))
        let t = Self.seconds(relative)
        let tPad = String(repeating: " ", count: max(0, 12 - t.count))
        let layerText = layer + String(repeating: " ", count: max(0, 9 - layer.count))
        let conn = connectionID.map { " [conn \($0)]" } ?? ""
        return "\(pad)\(idText) \(tPad)\(t) \(direction) \(layerText) \(summary)\(conn)\(malformed ? " [malformed]" : "")"
    }

    public func verboseLines() -> [String] {
        var out = ["        time \(Timestamp.iso8601(timestamp))  kind \(kind)  length \(length)  file offset \(fileOffset)"]
        for (name, value) in fields { out.append("        \(name): \(value)") }
        for p in problems { out.append("        problem: \(p)") }
        if let raw, !raw.isEmpty {
            var i = 0
            while i < raw.count {
                let chunk = raw[i..<min(raw.count, i + 16)]
                out.append("        \(hex(i, width: 4).dropFirst(2))  " + chunk.map(hex2).joined(separator: " ").lowercased())
                i += 16
            }
        }
        return out
    }

    /// One NDJSON object.
    public func jsonLine() -> String {
        var s = "{\"capture_id\":\(captureID),\"id\":\(id),\"ts_us\":\(timestamp),\"direction\":\"\(direction)\","
        s += "\"kind\":\"\(kind)\",\"length\":\(length),\"layer\":\"\(layer)\",\"summary\":\(JSON.quote(summary)),"
        s += "\"connection_id\":\(connectionID.map { String($0) } ?? "null"),\"malformed\":\(malformed)"
        if let raw { s += ",\"raw\":\"\(hexString(raw))\"" }
        if !problems.isEmpty { s += ",\"problems\":[\(problems.map(JSON.quote).joined(separator: ","))]" }
        if !fields.isEmpty {
            s += ",\"fields\":" + JSON.object(fields.map { ($0.0, .string($0.1)) }).serialized()
        }
        return s + "}"
    }

    static func seconds(_ us: Int64) -> String {
        let sign = us < 0 ? "-" : ""
        let a = us.magnitude   // abs(Int64.min) would trap
        let frac = String(a % 1_000_000)
        return "\(sign)\(a / 1_000_000).\(String(repeating: "0", count: 6 - frac.count))\(frac)"
    }
}

/// Read-side queries over a timeline.
public struct TimelineQuery {
    public let store: TimelineStore
    public init(store: TimelineStore) { self.store = store }

    /// Calls `body` for each packet matching `filter`, in capture and frame order, streaming.
    public func forEachPacket(_ filter: PacketFilter, _ body: (PacketRow) throws -> Void) throws {
        let db = store.database
        // Relative times start at the first HCI packet: PacketLogger notes can be stamped days earlier.
        var starts: [Int64: Int64] = [:]
        for row in try db.rows("""
            SELECT capture_id, coalesce(min(CASE WHEN kind <> 'note' THEN ts_us END), min(ts_us)) FROM packet GROUP BY capture_id
            """) {
            if let c = row[0].int64, let t = row[1].int64 { starts[c] = t }
        }
        var clauses: [String] = []
        var bindings: [SQLiteValue] = []
        if let c = filter.captureID { clauses.append(PacketKey.inCapture("?", column: "p.rowid")); bindings.append(.integer(c)) }
        if let c = filter.connectionID { clauses.append("p.connection_id = ?"); bindings.append(.integer(c)) }
        if let l = filter.layer { clauses.append("p.layer = ?"); bindings.append(.text(l)) }
        if let a = filter.address {
            clauses.append("""
                (p.connection_id IN (SELECT id FROM connection WHERE peer_address = ?)
                 OR EXISTS (SELECT 1 FROM adv_report r WHERE r.capture_id = p.capture_id AND r.packet_id = p.frame AND r.address = ?))
                """)
            bindings += [.text(a), .text(a)]
        }
        if filter.errorsOnly {
            clauses.append("""
                (p.malformed = 1 OR EXISTS (SELECT 1 FROM error e WHERE e.capture_id = p.capture_id AND e.packet_id = p.frame))
                """)
        }
        var sql = """
            SELECT p.capture_id, p.frame, p.ts_us, p.direction, p.kind, p.length, p.layer, p.summary, p.connection_id,
                   p.file_offset, p.malformed, p.raw,
                   (SELECT group_concat(d.layer || ' ' || d.kind || ' at byte ' || d.file_offset || ': ' || d.reason, char(10))
                      FROM decode_problem d WHERE p.malformed = 1 AND d.capture_id = p.capture_id AND d.packet_id = p.frame)
            FROM packet p
            """
        if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
        sql += " ORDER BY p.rowid"
        if let limit = filter.limit { sql += " LIMIT \(max(0, limit))" }
        let s = try db.prepare(sql)
        try s.bind(bindings)
        while try s.step() {
            let captureID = s.int64(0)
            let ts = s.int64(2)
            let row = PacketRow(
                captureID: captureID, id: s.int(1), timestamp: ts, relative: ts.saturatingSubtracting(starts[captureID] ?? ts),
                direction: s.text(3) ?? "", kind: s.text(4) ?? "", length: s.int(5), layer: s.text(6) ?? "",
                summary: s.text(7) ?? "", connectionID: s.isNull(8) ? nil : s.int64(8), fileOffset: s.int(9),
                malformed: s.int(10) != 0, raw: s.blob(11),
                problems: s.text(12).map { $0.split(separator: "\n").map(String.init) } ?? [])
            var r = row
            if filter.withFields { r.fields = try decodedFields(captureID: captureID, frame: r.id) }
            try body(r)
        }
    }

    /// What the timeline knows about one packet beyond its summary, decoded again where stored raw.
    func decodedFields(captureID: Int64, frame: Int) throws -> [(String, String)] {
        let db = store.database
        let key: [SQLiteValue] = [.integer(captureID), .integer(Int64(frame))]
        var out: [(String, String)] = []
        for r in try db.rows("SELECT pdu FROM att_pdu WHERE capture_id = ?1 AND packet_id = ?2", key) {
            guard let bytes = r[0].blob else { continue }
            if let pdu = try? ATTPDU(decoding: bytes[...]) {
                out += pdu.fields.map { ("ATT \($0.0)", $0.1) }
            } else {
                out.append(("ATT", "malformed: " + hexString(bytes)))
            }
        }
        for r in try db.rows("SELECT name, detail FROM smp_event WHERE capture_id = ?1 AND packet_id = ?2", key) {
            out.append(("SMP \(r[0].string ?? "")", r[1].string ?? ""))
        }
        for r in try db.rows("""
            SELECT address, address_type, event_type, rssi, data FROM adv_report WHERE capture_id = ?1 AND packet_id = ?2
            """, key) {
            let data = AdvertisingData(decoding: (r[4].blob ?? [])[...])
            out.append(("report", "\(r[0].string ?? "") (\(r[1].string ?? "")) event type \(hex(r[2].int ?? 0)) RSSI \(r[3].int.map { "\($0) dBm" } ?? "n/a")"))
            out += data.fields.map { ("  \($0.0)", $0.1) }
        }
        for r in try db.rows("SELECT name, status, detail FROM link_event WHERE capture_id = ?1 AND packet_id = ?2", key) {
            out.append((r[0].string ?? "", [r[1].int.map { "status \(hex($0))" }, r[2].string].compactMap { $0 }.joined(separator: " ")))
        }
        for r in try db.rows("SELECT layer, code, name, cb_error, context FROM error WHERE capture_id = ?1 AND packet_id = ?2", key) {
            out.append(("\(r[0].string ?? "") \(r[4].string ?? "")", "\(hex(r[1].int ?? 0)) \(r[2].string ?? "")" + (r[3].string.map { " → \($0)" } ?? "")))
        }
        return out
    }
}
