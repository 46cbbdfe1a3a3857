import BLECore
import BLEAnalysis
import BLEReport

/// The breakdowns by device, firmware, capture and period (`FleetStatistics.groups`), grouped by
/// the server with the keys `FleetStatistics.groupKey` gives: a connection counts under its own
/// keys, an error under its connection's (or `(no connection)`).
enum WarehouseGroups {
    static let hour: Int64 = 3_600_000_000

    /// `hour`, `day` or `week`, from the span of what is counted, as `FleetStatistics.build` chooses.
    static func period(_ db: PostgresConnection) throws(WarehouseError) -> String {
        let row = try db.execute("""
            SELECT min(t), max(t) FROM (SELECT unnest(ARRAY[completed_ts_us, start_ts_us, end_ts_us]) AS t FROM ck
                                         UNION ALL SELECT ts_us FROM ek) x
            """).first ?? []
        let spread = (row.int64(1) ?? 0).saturatingSubtracting(row.int64(0) ?? 0)
        return spread <= 48 * hour ? "hour" : (spread <= 120 * 24 * hour ? "day" : "week")
    }

    static func step(_ period: String) -> Int64 { period == "hour" ? hour : (period == "day" ? 24 * hour : 168 * hour) }

    /// `pg_temp.period_start(ts)`: `FleetStatistics.periodStart` in SQL (floor division; weeks
    /// start on Monday, 1969-12-29 being day -3).
    static func createPeriodFunction(_ db: PostgresConnection, period: String) throws(WarehouseError) {
        let day: Int64 = 24 * hour
        let body: String
        if period == "week" {
            let d = "((ts - (((ts % \(day)) + \(day)) % \(day))) / \(day))"
            body = "(\(d) - (((\(d) + 3) % 7) + 7) % 7) * \(day)"
        } else {
            let s = step(period)
            body = "ts - (((ts % \(s)) + \(s)) % \(s))"
        }
        try db.execute("CREATE OR REPLACE FUNCTION pg_temp.period_start(ts bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT \(body) $$")
    }

    /// Key columns of a dimension for a connection (`ck`) and an error (`ek`).
    static func keys(_ d: Dimension) -> (connection: [String], error: [String]) {
        func viaConnection(_ expr: String, none: String) -> String { "CASE WHEN has_conn THEN \(expr) ELSE '\(none)' END" }
        switch d {
        case .device:
            let c = ["coalesce(peer, '(unknown address)')", "coalesce(r_name, '')", "''"]
            return (c, [viaConnection(c[0], none: "(no connection)"), viaConnection(c[1], none: ""), "''"])
        case .firmware:
            let c = ["coalesce(r_manufacturer, '?')", "coalesce(r_model, '?')", "coalesce(r_firmware, '?')"]
            return (c, [viaConnection(c[0], none: "(no connection)"), viaConnection(c[1], none: ""), viaConnection(c[2], none: "")])
        case .phone:
            // The capture's phone: an error without a connection counts under it too.
            let c = ["p_manufacturer", "p_model", "p_build"]
            return (c, c)
        case .capture, .time:
            return (["label", "''", "''"], ["label", "''", "''"])
        }
    }

    /// What each event gave an app: the CoreBluetooth label (`ErrorEvent.cbLabel`: $1 and $2 are
    /// `ErrorEvent.localPeripheral` and `PeripheralManagerView.reportLabel`) and the Android status.
    static let outcomeColumns = "coalesce(cb_error, CASE WHEN kind = 'disconnect' AND detail = $1 THEN $2 END), android_status, android_name"

    static func rows(_ db: PostgresConnection, period: String) throws(WarehouseError) -> [Dimension: [GroupRow]] {
        var out: [Dimension: [GroupRow]] = [:]
        let attempt = "CASE WHEN began_before_capture THEN 0 ELSE 1 END", established = "CASE WHEN established THEN 1 ELSE 0 END"
        for d in Dimension.allCases {
            let totalsSQL: String, eventsSQL: String
            if d == .time {
                let s = step(period)
                totalsSQL = """
                    WITH u AS (
                        SELECT pg_temp.period_start(coalesce(completed_ts_us, start_ts_us)) AS k1, capture_id, \(attempt) AS a,
                               \(established) AS e, 0::bigint AS d FROM ck WHERE coalesce(completed_ts_us, start_ts_us) IS NOT NULL
                        UNION ALL
                        SELECT p.p, capture_id, 0, 0, least(end_ts_us, p.p + \(s)) - greatest(start_ts_us, p.p)
                        FROM ck, LATERAL generate_series(pg_temp.period_start(start_ts_us), end_ts_us - 1, \(s)::bigint) AS p(p)
                        WHERE established AND start_ts_us IS NOT NULL AND end_ts_us > start_ts_us AND (end_ts_us - start_ts_us) / \(s) <= 10000
                        UNION ALL
                        SELECT pg_temp.period_start(ts_us), capture_id, 0, 0, 0 FROM ek
                    ) SELECT k1::text, '', '', count(DISTINCT capture_id), sum(a), sum(e), sum(d) FROM u GROUP BY 1
                    """
                eventsSQL = "SELECT pg_temp.period_start(ts_us)::text, '', '', kind, code, count(*), \(outcomeColumns) FROM ek GROUP BY 1, 4, 5, 7, 8, 9"
            } else {
                let k = keys(d)
                // A capture (and its phone) is a row even with no connection and no error.
                let everyCapture = d == .capture || d == .phone
                    ? "UNION ALL SELECT \(k.connection[0]), \(k.connection[1]), \(k.connection[2]), id, 0, 0, 0 FROM sel" : ""
                totalsSQL = """
                    WITH u AS (
                        SELECT \(k.connection[0]) AS k1, \(k.connection[1]) AS k2, \(k.connection[2]) AS k3, capture_id,
                               \(attempt) AS a, \(established) AS e, duration_us AS d FROM ck
                        UNION ALL
                        SELECT \(k.error[0]), \(k.error[1]), \(k.error[2]), capture_id, 0, 0, 0 FROM ek
                        \(everyCapture)
                    ) SELECT k1, k2, k3, count(DISTINCT capture_id), sum(a), sum(e), sum(d) FROM u GROUP BY 1, 2, 3
                    """
                eventsSQL = "SELECT \(k.error[0]), \(k.error[1]), \(k.error[2]), kind, code, count(*), \(outcomeColumns) FROM ek GROUP BY 1, 2, 3, 4, 5, 7, 8, 9"
            }
            func key(_ r: [String?]) -> [String] {
                if d == .time {
                    let start = r.int64(0) ?? 0
                    return [FleetStatistics.periodLabel(start, period: period)]
                }
                return Array([r.text(0) ?? "", r.text(1) ?? "", r.text(2) ?? ""].prefix(d.columns.count))
            }
            var rows: [[String]: GroupRow] = [:]
            for r in try db.execute(totalsSQL) {
                let k = key(r)
                rows[k] = GroupRow.make(key: k, captures: r.int(3) ?? 0, attempts: r.int(4) ?? 0, connections: r.int(5) ?? 0,
                                   connectedTime: r.int64(6) ?? 0, events: [:])
            }
            for r in try db.execute(eventsSQL, [ErrorEvent.localPeripheral, PeripheralManagerView.reportLabel]) {
                guard let kind = r.text(3).flatMap(ErrorEvent.Kind.init(rawValue:)) else { continue }
                let ek = EventKey.make(kind: kind, code: r.int(4) ?? 0), n = r.int(5) ?? 0
                let k = key(r)
                rows[k]?.events[ek, default: 0] += n
                // The group's own outcomes, tallied as the folder report tallies them (`ErrorEvent.cbLabel`).
                rows[k]?.outcomes[ek, default: .init()].cb[r.text(6) ?? "", default: 0] += n
                if let status = r.int(7) {
                    rows[k]?.outcomes[ek, default: .init()].android[AndroidGattStatus(status, r.text(8)), default: 0] += n
                }
            }
            out[d] = rows.values.sorted {
                Array($0.key.joined(separator: "\u{1}").utf8).lexicographicallyPrecedes(Array($1.key.joined(separator: "\u{1}").utf8))
            }
        }
        return out
    }
}
