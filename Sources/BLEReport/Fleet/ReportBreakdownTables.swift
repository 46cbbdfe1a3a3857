import BLECore

extension ReportTables {
    static func file(_ d: Dimension) -> String {
        switch d {
        case .device: "device"
        case .firmware: "firmware"
        case .phone: "phone"
        case .capture: "capture"
        case .time: "period"
        }
    }

    static func keyColumns(_ d: Dimension) -> [C] {
        switch d {
        case .device: [C("Address", "address"), C("Name", "name")]
        case .firmware: [C("Manufacturer", "manufacturer"), C("Model", "model"), C("Firmware", "firmware")]
        case .phone: [C("Phone manufacturer", "phone_manufacturer"), C("Phone model", "phone_model"),
                      C("Build fingerprint", "build_fingerprint")]
        case .capture: [C("Capture", "capture")]
        case .time: [C("Period (UTC)", "period")]
        }
    }

    static func denominators(_ g: GroupRow) -> [Cell] {
        [.int(g.captures), .int(g.attempts), .int(g.connections), .real(g.connectionHours, digits: 3)]
    }

    static let denominatorColumns = [C("Captures", "captures", .number), C("Attempts", "attempts", .number),
                                     C("Connections", "connections", .number), C("Connection hours", "connection_hours", .number)]

    /// One row per group with the headline counts.
    static func wide(_ s: FleetStatistics, _ d: Dimension) -> ReportTable {
        let rows: [[Cell]] = (s.groups[d] ?? []).map { g in
            func sum(_ kind: ErrorEvent.Kind, _ code: Int? = nil) -> Int {
                g.events.filter { $0.key.kind == kind && (code == nil || $0.key.code == code) }.values.reduce(0, +)
            }
            return g.key.map { Cell.text($0) } + denominators(g) + [
                .int(sum(.disconnect)), .int(sum(.disconnect, 0x08)), .int(sum(.disconnect, 0x3E)),
                .int(sum(.connectionFailed)), .int(sum(.connectionCancelled)), .int(sum(.hciCommand)), .int(sum(.att)),
                .int(sum(.attTimeout)), .int(sum(.smp)),
            ]
        }
        let period = d == .time ? " (one row per \(s.period))" : ""
        return ReportTable(
            id: "by_\(file(d))", title: "By \(d.title)\(period)",
            note: "Attempts: LE Connection Complete events; connections: the established ones (not those that ended with 0x3E before they came up); connection hours: connected time seen in the captures. Failed attempts: an error status; cancelled ones (the host's LE Create Connection Cancel) are apart, as in the summary, and count under the peer the Create Connection named. Errors without a connection (HCI command failures) are under (no connection).",
            columns: keyColumns(d) + denominatorColumns + [
                C("Disconnects", "disconnects", .number), C("0x08 timeouts", "disconnect_0x08", .number),
                C("0x3E failed to establish", "disconnect_0x3e", .number), C("Failed attempts", "attempt_failures", .number),
                C("Cancelled attempts", "attempt_cancels", .number),
                C("HCI command errors", "hci_command_errors", .number), C("ATT errors", "att_errors", .number),
                C("ATT timeouts", "att_timeouts", .number), C("SMP failures", "smp_failures", .number),
            ],
            rows: rows)
    }

    /// One row per group and code, with rates: "disconnect 0x08 per hour of connection, by
    /// firmware revision" is the `events_by_firmware` rows with event `disconnect`, code 0x08.
    static func long(_ s: FleetStatistics, _ d: Dimension) -> ReportTable {
        var names: [EventKey: CodeCount] = [:]
        for list in s.counts.values { for c in list { names[c.key] = c } }
        var rows: [[Cell]] = []
        for g in s.groups[d] ?? [] {
            for (key, n) in g.events.sorted(by: { $0.key < $1.key }) where key.kind != .other {
                let c = names[key]
                // The group's own outcome: another group's events may have given an app something else.
                let own = g.outcomes[key]
                let cbError = own.map(\.cbError) ?? c?.cbError
                let android = own.map { $0.android(total: n) } ?? c?.android
                let perHour: Cell = g.connectedTime > 0 ? .real(Double(n) / g.connectionHours, digits: 2) : .empty
                let per100: Cell = g.connections > 0 ? .real(Double(n) * 100 / Double(g.connections), digits: 1) : .empty
                rows.append(g.key.map { Cell.text($0) } + denominators(g) + [
                    .text(key.kind.rawValue), .code(key.code, digits: 2), .text(c?.name ?? ""),
                    .text(cbError ?? ""), android.map { .int($0.status) } ?? .empty, .text(android?.name ?? ""),
                    .int(n), perHour, per100,
                ])
            }
        }
        let period = d == .time ? " (one row per \(s.period) and code)" : ""
        return ReportTable(
            id: "events_by_\(file(d))", title: "Error codes by \(d.title)\(period)",
            note: "Every counted code per group with rates: per hour of connection and per 100 established connections. Android status and name: what an Android app's callback got (the most frequent). Event: disconnect, connection-failed, connection-cancelled, hci-command, att, att-timeout (code = request opcode), smp.",
            // The code's name is `name` here, so a device's name is `device_name` (a CSV header
            // with `name` twice loses one of them in csv.DictReader and most CSV tools).
            columns: keyColumns(d).map { $0.csv == "name" ? C("Device name", "device_name") : $0 } + denominatorColumns + [
                C("Event", "event"), C("Code", "code", .code), C("Name", "name"), C("CoreBluetooth", "cb_error"),
            ] + ReportTables.androidColumns + [
                C("Count", "count", .number), C("Per connection hour", "per_connection_hour", .number),
                C("Per 100 connections", "per_100_connections", .number),
            ],
            rows: rows)
    }
}
