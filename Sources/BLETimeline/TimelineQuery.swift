import BLECore
import BLEDecode

/// Read-side queries over a timeline.
public struct TimelineQuery {
    public let store: TimelineStore
    public init(store: TimelineStore) { self.store = store }

    /// Each capture's time origin: the timestamp of its first record (in frame order) that is
    /// not a note, or of its first record when all are notes. Relative times (`timeline`'s
    /// second column, `--since`) count from it. Notes are left out because a PacketLogger
    /// note can be stamped days before the traffic; the first record, not the smallest
    /// timestamp, because a capture's clock can step back.
    public func timeOrigins() throws -> [Int64: Int64] {
        let db = store.database
        var out: [Int64: Int64] = [:]
        let first = try db.prepare("""
            SELECT coalesce((SELECT ts_us FROM packet WHERE \(PacketKey.inCapture("?1")) AND kind <> 'note' ORDER BY rowid LIMIT 1),
                            (SELECT ts_us FROM packet WHERE \(PacketKey.inCapture("?1")) ORDER BY rowid LIMIT 1))
            """)
        for row in try db.rows("SELECT id FROM capture ORDER BY id") {
            guard let c = row[0].int64 else { continue }
            try first.bind([.integer(c)])
            if try first.step(), !first.isNull(0) { out[c] = first.int64(0) }
        }
        return out
    }

    /// `ts - origin`, saturating (timestamps read from a file can be anything).
    static func relative(_ ts: Int64, origin: Int64?) -> Int64 {
        guard let origin else { return 0 }
        return ts.saturatingSubtracting(origin)
    }

    /// The SQL that selects the packets `filter` names, and the values it binds. Time windows,
    /// the attribute handle (`AttributeHandleMatch`) and the limit are applied while walking.
    func selection(_ filter: PacketFilter) -> SQLConditions {
        var q = SQLConditions()
        if let c = filter.captureID { q.add(PacketKey.inCapture(q.bind(.integer(c)), column: "p.rowid")) }
        if let c = filter.connectionID { q.add("p.connection_id = \(q.bind(.integer(c)))") }
        if let l = filter.layer { q.add("p.layer = \(q.bind(.text(l)))") }
        if let h = filter.connectionHandle {
            q.add("p.connection_id IN (SELECT id FROM connection WHERE handle = \(q.bind(.integer(Int64(h)))))")
        }
        if let c = filter.controllerIndex { q.add("p.controller_index = \(q.bind(.integer(Int64(c))))") }
        if let a = filter.address {
            let v = q.bind(.text(a))
            q.add("""
                (p.connection_id IN (SELECT id FROM connection WHERE peer_address = \(v))
                 OR p.rowid IN (SELECT \(PacketKey.sql(capture: "capture_id", frame: "packet_id")) FROM adv_report WHERE address = \(v)))
                """)
        }
        if let o = filter.attOpcode {
            q.add("p.rowid IN (SELECT \(PacketKey.sql(capture: "capture_id", frame: "packet_id")) FROM att_pdu WHERE opcode = \(q.bind(.integer(Int64(o)))))")
        }
        if let s = filter.minimumSeverity {
            let list = PacketFilter.severities(atLeast: s).map { q.bind(.text($0)) }.joined(separator: ", ")
            q.add("""
                p.rowid IN (SELECT \(PacketKey.sql(capture: "f.capture_id", frame: "j.value"))
                            FROM finding f, json_each(f.evidence_packet_ids) j WHERE f.severity IN (\(list.isEmpty ? "NULL" : list)))
                """)
        }
        if filter.errorsOnly {
            q.add("""
                (p.malformed = 1 OR p.rowid IN (SELECT \(PacketKey.sql(capture: "capture_id", frame: "packet_id")) FROM error))
                """)
        }
        return q
    }

    /// Calls `body` for each packet matching `filter`, in capture and frame order, streaming:
    /// one query over the packets and, with `withFields`, one cursor per detail table walked
    /// alongside it, whatever the number of packets.
    public func forEachPacket(_ filter: PacketFilter, _ body: (PacketRow) throws -> Void) throws {
        let db = store.database
        let origins = try timeOrigins()
        let q = selection(filter)
        let sql = """
            SELECT p.capture_id, p.frame, p.ts_us, p.direction, p.kind, p.length, p.layer, p.summary, p.connection_id,
                   p.file_offset, p.malformed, p.raw,
                   (SELECT group_concat(d.layer || ' ' || d.kind || ' at byte ' || d.file_offset || ': ' || d.reason, char(10))
                      FROM decode_problem d WHERE p.malformed = 1 AND d.capture_id = p.capture_id AND d.packet_id = p.frame)
            FROM packet p\(q.whereClause) ORDER BY p.rowid
            """
        let s = try db.prepare(sql)
        try s.bind(q.values)
        let details = filter.withFields ? try PacketDetailsReader(database: db, captureID: filter.captureID) : nil
        let handleKeys = try filter.attributeHandle.map { try AttributeHandleMatch.keys(handle: $0, captureID: filter.captureID, db: db) }
        var emitted = 0
        while try s.step() {
            if let limit = filter.limit, emitted >= limit { break }
            let captureID = s.int64(0)
            if let handleKeys, !handleKeys.contains(PacketKey.make(capture: captureID, frame: s.int(1))) { continue }
            let ts = s.int64(2)
            let origin = origins[captureID]
            if let since = filter.since, ts < since.absolute(origin: origin ?? ts) { continue }
            if let until = filter.until, ts > until.absolute(origin: origin ?? ts) { continue }
            var row = PacketRow(
                captureID: captureID, id: s.int(1), timestamp: ts, relative: Self.relative(ts, origin: origin),
                direction: s.text(3) ?? "", kind: s.text(4) ?? "", length: s.int(5), layer: s.text(6) ?? "",
                summary: s.text(7) ?? "", connectionID: s.isNull(8) ? nil : s.int64(8), fileOffset: s.int(9),
                malformed: s.int(10) != 0, raw: s.blob(11),
                problems: s.text(12).map { $0.split(separator: "\n").map(String.init) } ?? [])
            if let details { row.details = try details.details(of: row) }
            emitted += 1
            try body(row)
        }
    }

    /// The frames of each capture that `filter` selects (time window included, limit ignored),
    /// for commands that filter something other than packets by them (`diagnose`).
    public func matchingFrames(_ filter: PacketFilter) throws -> [Int64: Set<Int>] {
        var f = filter
        f.withFields = false
        f.limit = nil
        var out: [Int64: Set<Int>] = [:]
        try forEachPacket(f) { out[$0.captureID, default: []].insert($0.id) }
        return out
    }
}
