import BLECore
import BLEReport

/// ATT latency per request and connection durations (`FleetStatistics.latency`, `.durations`),
/// summarised by the server (`SampleSummarySQL`).
enum WarehouseFigures {
    static func latency(_ db: PostgresConnection) throws(WarehouseError) -> [LatencyRow] {
        var outcomes: [LatencyKey: [String: Int]] = [:]
        for r in try db.execute("""
            SELECT t.opcode, t.requester, t.outcome, count(*) FROM blereplay.att_transaction t JOIN sel s ON s.id = t.capture_id
            GROUP BY 1, 2, 3
            """) {
            guard let op = r.int(0), let requester = r.text(1), let outcome = r.text(2) else { continue }
            outcomes[LatencyKey(opcode: op, requester: requester), default: [:]][outcome] = r.int(3) ?? 0
        }
        var names: [Int: String] = [:]
        for r in try db.execute("""
            SELECT t.opcode, (array_agg(t.opcode_name ORDER BY s.rank) FILTER (WHERE t.opcode_name IS NOT NULL))[1]
            FROM blereplay.att_transaction t JOIN sel s ON s.id = t.capture_id GROUP BY 1
            """) {
            if let op = r.int(0), let name = r.text(1) { names[op] = name }
        }
        let samples = try SampleSummarySQL.summaries(db, source: """
            SELECT t.opcode::text AS k1, t.requester AS k2, t.latency_us AS v FROM blereplay.att_transaction t
            JOIN sel s ON s.id = t.capture_id WHERE t.outcome IN ('ok', 'error') AND t.latency_us IS NOT NULL
            """, bounds: Histogram.latencyBounds)
        let empty = SampleSummary(sorted: [], bounds: Histogram.latencyBounds)
        return outcomes.keys.sorted().map { k in
            LatencyRow.make(key: k, name: names[k.opcode] ?? "ATT opcode \(hex(k.opcode))", outcomes: outcomes[k] ?? [:],
                       samples: samples[[String(k.opcode), k.requester]] ?? empty)
        }
    }

    static func durations(_ db: PostgresConnection) throws(WarehouseError) -> DurationStats {
        let complete = "established AND NOT (began_before_capture OR open_at_end)"
        let summaries = try SampleSummarySQL.summaries(db, source: """
            SELECT 'all' AS k1, NULL::text AS k2, duration_us AS v FROM ck WHERE \(complete)
            UNION ALL SELECT 'reason', disconnect_reason::text, duration_us FROM ck WHERE \(complete) AND disconnect_reason IS NOT NULL
            UNION ALL SELECT 'open', NULL, duration_us FROM ck WHERE established AND open_at_end
            """, bounds: DurationStats.bucketBounds)
        let partial = try db.execute("SELECT count(*) FROM ck WHERE established AND (began_before_capture OR open_at_end)").first?.int(0) ?? 0
        let empty = SampleSummary(sorted: [], bounds: DurationStats.bucketBounds)
        let all = summaries[["all", nil]] ?? empty
        var rows = [DurationStats.Row.make(reason: nil, label: "all (complete connections)", samples: all)]
        let reasons = summaries.keys.filter { $0[0] == "reason" }.compactMap { $0[1].flatMap { Int($0) } }.sorted()
        for reason in reasons {
            rows.append(DurationStats.Row.make(reason: reason, label: "\(hex(reason)) \(HCIStatusCode(UInt8(truncatingIfNeeded: reason)).name)",
                                          samples: summaries[["reason", String(reason)]] ?? empty))
        }
        if let open = summaries[["open", nil]], !open.isEmpty {
            rows.append(DurationStats.Row.make(reason: nil, label: "still open at the end of the capture (lower bound)", samples: open))
        }
        return DurationStats.make(complete: all, partial: partial, byReason: rows)
    }
}
