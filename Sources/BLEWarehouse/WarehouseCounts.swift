import BLECore
import BLEAnalysis
import BLEReport

/// The code counts of the report (`FleetStatistics.counts`) and the ATT timeout table, from
/// `ek` grouped in the server: per kind and code the count and the name of the first occurrence
/// (captures by label, errors in packet order), per CoreBluetooth name a count, and per
/// combination of the columns a breakdown names (opcode, handle, attribute, sender, device) a
/// count, which the breakdowns are then summed from.
enum WarehouseCounts {
    /// One group of errors with the same breakdown columns.
    struct Group {
        var event: ErrorEvent
        var peer: String?
        var name: String?
        var count: Int
        /// Where its first error is: capture rank and ordinal, for the label a breakdown keeps.
        var first: Int64
    }

    static func groups(_ db: PostgresConnection) throws(WarehouseError) -> [Group] {
        try db.execute("""
            SELECT kind, code, opcode, opcode_name, handle, characteristic, descriptor, detail,
                   CASE WHEN kind = 'att-timeout' THEN coalesce(peer, '(unknown)') END,
                   CASE WHEN kind = 'att-timeout' THEN r_name END,
                   count(*), min(rank::bigint * 4294967296 + ordinal)
            FROM ek WHERE kind IN ('hci-command', 'vendor-command', 'att', 'att-timeout', 'smp', 'other', 'disconnect')
            GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
            """).compactMap { r in
            guard let kind = r.text(0).flatMap(ErrorEvent.Kind.init(rawValue:)) else { return nil }
            let event = ErrorEvent.make(kind: kind, timestamp: 0, packetID: 0, connectionID: nil, code: r.int(1) ?? 0, name: "",
                                   cbError: nil, opcode: r.int(2), opcodeName: r.text(3), handle: r.int(4),
                                   characteristic: r.text(5), descriptor: r.text(6), detail: r.text(7))
            return Group(event: event, peer: r.text(8), name: r.text(9), count: r.int(10) ?? 0, first: r.int64(11) ?? 0)
        }
    }

    /// `FleetStatistics.counts`, its breakdowns named as `FleetStatistics.build` names them.
    static func counts(_ db: PostgresConnection, groups: [Group]) throws(WarehouseError) -> [ErrorEvent.Kind: [CodeCount]] {
        var totals: [EventKey: (name: String, count: Int)] = [:]
        for r in try db.execute("SELECT kind, code, count(*), (array_agg(name ORDER BY rank, ordinal))[1] FROM ek GROUP BY 1, 2") {
            guard let kind = r.text(0).flatMap(ErrorEvent.Kind.init(rawValue:)) else { continue }
            totals[EventKey.make(kind: kind, code: r.int(1) ?? 0)] = (r.text(3) ?? "", r.int(2) ?? 0)
        }
        var cb: [EventKey: [String: Int]] = [:]
        // A peripheral manager gets no disconnect callback: labelled as `FleetStatistics.build` labels it.
        for r in try db.execute("""
            SELECT kind, code, coalesce(cb_error, CASE WHEN kind = 'disconnect' AND detail = $1 THEN $2 END), count(*)
            FROM ek GROUP BY 1, 2, 3
            """, [ErrorEvent.localPeripheral, PeripheralManagerView.reportLabel]) {
            guard let kind = r.text(0).flatMap(ErrorEvent.Kind.init(rawValue:)) else { continue }
            cb[EventKey.make(kind: kind, code: r.int(1) ?? 0), default: [:]][r.text(2) ?? "", default: 0] += r.int(3) ?? 0
        }
        // What an Android app got, per code: counted as `FleetStatistics.build` counts it.
        var android: [EventKey: [AndroidGattStatus: Int]] = [:]
        for r in try db.execute("""
            SELECT kind, code, android_status, android_name, count(*) FROM ek WHERE android_status IS NOT NULL GROUP BY 1, 2, 3, 4
            """) {
            guard let kind = r.text(0).flatMap(ErrorEvent.Kind.init(rawValue:)), let status = r.int(2) else { continue }
            android[EventKey.make(kind: kind, code: r.int(1) ?? 0), default: [:]][AndroidGattStatus(status, r.text(3)), default: 0] += r.int(4) ?? 0
        }
        // Breakdown -> part id -> (label of the earliest error, count).
        var parts: [EventKey: [String: [String: (label: String, first: Int64, count: Int)]]] = [:]
        for g in groups {
            let e = g.event
            let key = EventKey.make(kind: e.kind, code: e.code)
            func part(_ breakdown: String, _ id: String, _ label: String) {
                var entry = parts[key, default: [:]][breakdown, default: [:]][id] ?? (label, g.first, 0)
                if g.first < entry.first { entry = (label, g.first, entry.count) }
                entry.count += g.count
                parts[key, default: [:]][breakdown, default: [:]][id] = entry
            }
            switch e.kind {
            case .hciCommand, .vendorCommand:
                part("command", e.opcode.map { hex($0, width: 4) } ?? "?", e.commandLabel)
            case .att, .attTimeout:
                if e.kind == .att {
                    let op = e.opcode.map { hex($0) } ?? "?"
                    part("request", op, "\(op) \(e.opcodeName ?? "unknown request")")
                }
                let a = FleetStatistics.attributeLabel(e)
                part("characteristic", a.id, a.label)
                if let d = e.detail { part("sender", d, d) }
                if e.kind == .attTimeout {
                    let peer = g.peer ?? "(unknown)"
                    part("device", peer, g.name.map { "\(peer) \($0)" } ?? peer)
                }
            case .smp:
                if let d = e.detail { part("sender", d, d) }
            case .other:
                if let d = e.detail { part("context", d, d) }
            case .disconnect:
                if e.isInferred { part("source", ErrorEvent.inferredOnAir, ErrorEvent.inferredOnAir) }
            default:
                break
            }
        }
        var out: [ErrorEvent.Kind: [CodeCount]] = [:]
        for (key, t) in totals {
            let list = CodeCount.CBCount.ranked((cb[key] ?? [:]).map { CodeCount.CBCount.make(cbError: $0.key.isEmpty ? nil : $0.key, count: $0.value) })
            let byPart = (parts[key] ?? [:]).mapValues { ids in
                ids.map { CodeCount.Part.make(id: $0.key, label: $0.value.label, count: $0.value.count) }.sorted()
            }
            out[key.kind, default: []].append(CodeCount.make(key: key, name: t.name, cbError: list.first?.cbError,
                                                         cbErrors: list.count > 1 ? list : [], count: t.count, parts: byPart,
                                                         androidTally: android[key] ?? [:]))
        }
        return out.mapValues { $0.sorted { ($1.count, $0.key.code) < ($0.count, $1.key.code) } }
    }

    /// The `att_timeouts` table's rows.
    static func attTimeouts(_ groups: [Group]) -> [ATTTimeoutRow] {
        var counts: [[String]: (opcode: Int, count: Int)] = [:]
        for g in groups where g.event.kind == .attTimeout {
            let e = g.event
            let key = [e.opcodeName ?? "", FleetStatistics.attributeLabel(e).label, g.peer ?? "(unknown)", g.name ?? "", e.detail ?? "", hex(e.code)]
            counts[key, default: (e.code, 0)].count += g.count
        }
        return ATTTimeoutRow.ordered(counts.map { k, v in
            ATTTimeoutRow(opcode: v.opcode, request: k[0], characteristic: k[1], address: k[2], name: k[3], requester: k[4], count: v.count)
        })
    }
}
