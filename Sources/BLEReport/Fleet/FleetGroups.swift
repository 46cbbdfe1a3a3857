import BLECore

extension FleetStatistics {
    /// Key columns of a connection's group in a dimension (not `.time`).
    static func groupKey(_ dimension: Dimension, capture: CaptureFacts, connection: ConnectionFact?,
                         identity: DeviceIdentity?) -> [String] {
        switch dimension {
        case .device:
            guard let connection else { return ["(no connection)", ""] }
            return [connection.knownPeer ?? "(unknown address)", identity?.name ?? ""]
        case .firmware:
            guard connection != nil else { return ["(no connection)", "", ""] }
            return [identity?.manufacturer ?? "?", identity?.model ?? "?", identity?.firmwareRevision ?? "?"]
        case .phone:
            // The phone is the capture's: errors without a connection count under it too.
            guard let phone = capture.phone else { return Dimension.unknownPhone }
            return [phone.manufacturer ?? "?", phone.model ?? "?",
                    phone.buildFingerprint ?? phone.androidVersion.map { "Android \($0)" } ?? "?"]
        case .capture:
            return [capture.label]
        case .time:
            return []
        }
    }

    /// Start of the period holding `ts`, in µs since the epoch.
    public static func periodStart(_ ts: Int64, period: String) -> Int64 {
        let hour: Int64 = 3_600_000_000, day = 24 * hour
        switch period {
        case "hour": return floorDiv(ts, hour).saturatingMultiplied(by: hour)
        case "day": return floorDiv(ts, day).saturatingMultiplied(by: day)
        default:
            // Weeks start on Monday; 1970-01-01 was a Thursday, so Monday 1969-12-29 is day -3.
            let d = floorDiv(ts, day)
            return (floorDiv(d + 3, 7) * 7 - 3).saturatingMultiplied(by: day)
        }
    }

    /// How a period is labelled: `2026-03-01 10:00`, `2026-03-01`, `week of 2026-02-23`.
    public static func periodLabel(_ start: Int64, period: String) -> String {
        let iso = Timestamp.iso8601(start)
        switch period {
        case "hour": return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5))
        case "day": return String(iso.prefix(10))
        default: return "week of " + String(iso.prefix(10))
        }
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// Rows of every breakdown.
    static func groupRows(_ captures: [CaptureFacts], identities: [[Int64: DeviceIdentity]],
                          period: String) -> [Dimension: [GroupRow]] {
        struct Accumulator {
            var rows: [[String]: GroupRow] = [:]
            var captureSets: [[String]: Set<Int>] = [:]
            mutating func touch(_ key: [String], capture: Int) -> [String] {
                if rows[key] == nil {
                    rows[key] = GroupRow(key: key, captures: 0, attempts: 0, connections: 0, connectedTime: 0, events: [:])
                }
                captureSets[key, default: []].insert(capture)
                return key
            }
        }
        var acc: [Dimension: Accumulator] = [:]
        for d in Dimension.allCases { acc[d] = Accumulator() }
        let hour: Int64 = 3_600_000_000
        let step = period == "hour" ? hour : (period == "day" ? 24 * hour : 168 * hour)
        // Each period's label is formatted once, not once per connection and event in it.
        var labels: [Int64: [String]] = [:]
        func periodKey(_ start: Int64) -> [String] {
            if let known = labels[start] { return known }
            let key = [periodLabel(start, period: period)]
            labels[start] = key
            return key
        }

        for (index, c) in captures.enumerated() {
            // A capture (and its phone) is a row even with no connection and no error.
            for d in [Dimension.capture, .phone] {
                _ = acc[d]!.touch(groupKey(d, capture: c, connection: nil, identity: nil), capture: index)
            }
            let byID = Dictionary(c.connections.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            for conn in c.connections {
                let identity = identities[index][conn.id]
                for d in Dimension.allCases where d != .time {
                    let key = acc[d]!.touch(groupKey(d, capture: c, connection: conn, identity: identity), capture: index)
                    if conn.isAttempt { acc[d]!.rows[key]!.attempts += 1 }
                    if conn.established {
                        acc[d]!.rows[key]!.connections += 1
                        acc[d]!.rows[key]!.connectedTime = acc[d]!.rows[key]!.connectedTime.saturatingAdding(conn.observedDuration)
                    }
                }
                // Time: the attempt counts where it completed; connected time is split over periods.
                if let at = conn.completedAt ?? conn.start {
                    let key = acc[.time]!.touch(periodKey(periodStart(at, period: period)), capture: index)
                    if conn.isAttempt { acc[.time]!.rows[key]!.attempts += 1 }
                    if conn.established { acc[.time]!.rows[key]!.connections += 1 }
                }
                // A span of absurd timestamps (more than 10,000 periods) is not split: it would take
                // millions of steps and say nothing.
                if conn.established, let start = conn.start, let end = conn.end, end > start,
                   end.saturatingSubtracting(start) / step <= 10_000 {
                    var t = start
                    while t < end {
                        let p = periodStart(t, period: period)
                        let upto = min(end, p.saturatingAdding(step))
                        let key = acc[.time]!.touch(periodKey(p), capture: index)
                        acc[.time]!.rows[key]!.connectedTime = acc[.time]!.rows[key]!.connectedTime.saturatingAdding(upto - t)
                        t = upto
                    }
                }
            }
            for e in c.events {
                let conn = e.connectionID.flatMap { byID[$0] }
                let identity = conn.flatMap { identities[index][$0.id] }
                let ek = EventKey(kind: e.kind, code: e.code)
                for d in Dimension.allCases {
                    let raw = d == .time ? periodKey(periodStart(e.timestamp, period: period))
                        : groupKey(d, capture: c, connection: conn, identity: identity)
                    let key = acc[d]!.touch(raw, capture: index)
                    acc[d]!.rows[key]!.events[ek, default: 0] += 1
                    acc[d]!.rows[key]!.outcomes[ek, default: .init()].cb[e.cbLabel, default: 0] += 1
                    if let a = e.android { acc[d]!.rows[key]!.outcomes[ek, default: .init()].android[a, default: 0] += 1 }
                }
            }
        }
        var out: [Dimension: [GroupRow]] = [:]
        for (d, a) in acc {
            out[d] = a.rows.values.map { row in
                var row = row
                row.captures = a.captureSets[row.key]?.count ?? 0
                return row
            }.sorted { bytesBefore($0.key.joined(separator: "\u{1}"), $1.key.joined(separator: "\u{1}")) }
        }
        return out
    }
}
