import BLECore
import BLEAnalysis

/// The report's tables, in the order the Markdown and HTML reports show them.
public enum ReportTables {
    typealias C = ReportTable.Column
    typealias Cell = ReportTable.Cell

    public static func make(_ s: FleetStatistics) -> [ReportTable] {
        [disconnectReasons(s), connectionFailures(s), attErrors(s), attTimeouts(s), smpFailures(s), hciCommandErrors(s),
         vendorCommandStatuses(s),
         latency(s), durations(s), connections(s),
         attBreakdown(s, "request", id: "att_errors_by_request", title: "ATT errors by request",
                      column: C("Request", "request"), note: "Each ATT Error Response counted under the request it answered."),
         attBreakdown(s, "characteristic", id: "att_errors_by_characteristic", title: "ATT errors by characteristic",
                      column: C("Characteristic", "characteristic"),
                      note: "The attribute handle of each Error Response, found in the connection's reconstructed GATT database (or another connection to the same device in the capture). Discovery requests (Read By Type, Read By Group Type, Find Information, Find By Type Value) name a range, not an attribute."),
         otherErrors(s)]
            + s.breakdowns.map { wide(s, $0) }
            + s.breakdowns.map { long(s, $0) }
            + [inputs(s)]
    }

    static func cb(_ c: CodeCount) -> Cell {
        guard !c.cbErrors.isEmpty else { return c.cbError.map { .text($0) } ?? .empty }
        return .text(c.cbErrors.map { "\($0.cbError ?? "none") ×\($0.count)" }.joined(separator: ", "))
    }

    /// The Android status an app's callback got for the code (the most frequent, with each
    /// status's count in the name cell when there are several).
    static func androidStatus(_ c: CodeCount) -> Cell { c.android.map { .int($0.status) } ?? .empty }
    static func androidName(_ c: CodeCount) -> Cell {
        guard !c.androids.isEmpty else { return c.android?.name.map { .text($0) } ?? .empty }
        return .text(c.androidBreakdown)
    }
    static let androidColumns = [C("Android status", "android_status", .number), C("Android name", "android_name")]

    static func share(_ n: Int, of total: Int) -> Cell {
        total > 0 ? .real(Double(n) * 100 / Double(total), digits: 1) : .empty
    }

    static func inputs(_ s: FleetStatistics) -> ReportTable {
        ReportTable(id: "inputs", title: "Inputs",
                    note: "Every file read (directories are walked recursively). A file that could not be read is listed with the reason and left out of every figure.",
                    columns: [C("File", "path"), C("Kind", "kind"), C("Status", "status"), C("Format", "format"),
                              C("Captures", "captures", .number), C("Reason or warnings", "reason")],
                    rows: s.inputs.map { i in
                        [.text(i.path), .text(i.kind ?? ""), .text(i.status.rawValue), .text(i.formatDescription ?? ""),
                         .int(i.captures), .text(([i.reason].compactMap { $0 } + i.warnings).joined(separator: "; "))]
                    })
    }

    static func disconnectReasons(_ s: FleetStatistics) -> ReportTable {
        let list = s.counts[.disconnect] ?? []
        let total = s.total(.disconnect)
        return ReportTable(
            id: "disconnect_reasons", title: "HCI disconnect reasons",
            note: "Disconnection Complete reasons on LE links (Core Vol 1 Part F). CoreBluetooth: what didDisconnectPeripheral / didFailToConnect would report (0x16 after the app's own cancel: no error); on links where the local device was the peripheral, a CBPeripheralManager app gets no disconnect callback, only didUnsubscribeFrom for each subscribed characteristic.",
            columns: [C("Code", "code", .code), C("Reason", "name"), C("CoreBluetooth", "cb_error")] + androidColumns +
                [C("Count", "count", .number), C("Share %", "share_percent", .number)],
            rows: list.map { [.code($0.key.code, digits: 2), .text($0.nameWithInference), cb($0), androidStatus($0), androidName($0), .int($0.count),
                              share($0.count, of: total)] })
    }

    static func connectionFailures(_ s: FleetStatistics) -> ReportTable {
        var rows: [[Cell]] = []
        if let c = s.count(.disconnect, 0x3E) {
            rows.append([.text("failed to be established (disconnect 0x3E)"), .code(0x3E, digits: 2), .text(c.nameWithInference), cb(c),
                         androidStatus(c), androidName(c), .int(c.count)])
        }
        for c in s.counts[.connectionFailed] ?? [] {
            rows.append([.text("LE Connection Complete with an error status"), .code(c.key.code, digits: 2), .text(c.name), cb(c),
                         androidStatus(c), androidName(c), .int(c.count)])
        }
        for c in s.counts[.connectionCancelled] ?? [] {
            rows.append([.text("cancelled by the host (LE Create Connection Cancel)"), .code(c.key.code, digits: 2), .text(c.name), cb(c),
                         androidStatus(c), androidName(c), .int(c.count)])
        }
        return ReportTable(
            id: "connection_failures", title: "Connection establishment failures and cancellations",
            note: "Attempts the controller reported as established but that ended with 0x3E before the first exchange, attempts LE Connection Complete reported with an error status, and attempts the host cancelled.",
            columns: [C("Outcome", "outcome"), C("Code", "code", .code), C("Name", "name"), C("CoreBluetooth", "cb_error")] + androidColumns +
                [C("Count", "count", .number)],
            rows: rows)
    }

    static func hciCommandErrors(_ s: FleetStatistics) -> ReportTable {
        var rows: [[Cell]] = []
        for c in s.counts[.hciCommand] ?? [] {
            for p in c.parts["command"] ?? [] {
                rows.append([.code(c.key.code, digits: 2), .text(c.name), .text(p.label), .int(p.count)])
            }
        }
        return ReportTable(
            id: "hci_command_errors", title: "HCI command failures",
            note: "Command Status and Command Complete events with a non-zero status, by status code and command.",
            columns: [C("Status", "code", .code), C("Name", "name"), C("Command", "command"), C("Count", "count", .number)],
            rows: rows)
    }

    /// Vendor commands' first return bytes, apart from HCI statuses: Core v5.4 Vol 4 Part E 5.4.1
    /// leaves OGF 0x3F's return parameters to the vendor.
    static func vendorCommandStatuses(_ s: FleetStatistics) -> ReportTable {
        var rows: [[Cell]] = []
        for c in s.counts[.vendorCommand] ?? [] {
            for p in c.parts["command"] ?? [] {
                rows.append([.code(c.key.code, digits: 2), .text(p.label), .int(p.count)])
            }
        }
        return ReportTable(
            id: "vendor_command_statuses", title: "Vendor command statuses",
            note: "Command Complete events of vendor-specific commands (OGF 0x3F) with a non-zero first return byte, by byte and command. Their return parameters are the vendor's, not the Bluetooth spec's: the byte is no HCI error code. Where the command's definer (Android's stack, for its LE vendor commands) reads it as a status, the command says so.",
            columns: [C("First return byte", "code", .code), C("Command", "command"), C("Count", "count", .number)],
            rows: rows)
    }

    static func attErrors(_ s: FleetStatistics) -> ReportTable {
        let total = s.total(.att)
        return ReportTable(
            id: "att_errors", title: "ATT error codes",
            note: "ATT Error Responses (Core Vol 3 Part F 3.4.1.1) and the CBATTError an app sees. From peer: sent by the remote GATT server.",
            columns: [C("Code", "code", .code), C("Name", "name"), C("CoreBluetooth", "cb_error")] + androidColumns +
                [C("Count", "count", .number), C("From peer", "from_peer", .number), C("Share %", "share_percent", .number)],
            rows: (s.counts[.att] ?? []).map { c in
                let peer = c.parts["sender"]?.first { $0.id == "peer" }?.count ?? 0
                return [.code(c.key.code, digits: 2), .text(c.name), cb(c), androidStatus(c), androidName(c), .int(c.count), .int(peer),
                        share(c.count, of: total)]
            })
    }

    static func attBreakdown(_ s: FleetStatistics, _ part: String, id: String, title: String, column: C, note: String) -> ReportTable {
        var rows: [[Cell]] = []
        for c in s.counts[.att] ?? [] {
            for p in c.parts[part] ?? [] {
                rows.append([.code(c.key.code, digits: 2), .text(c.name), cb(c), .text(p.label), .int(p.count)])
            }
        }
        return ReportTable(id: id, title: title, note: note,
                           columns: [C("Code", "code", .code), C("Name", "name"), C("CoreBluetooth", "cb_error"), column, C("Count", "count", .number)],
                           rows: rows)
    }

    static func attTimeouts(_ s: FleetStatistics) -> ReportTable {
        let rows: [[Cell]] = s.attTimeouts.map { r in
            [.code(r.opcode, digits: 2), .text(r.request), .text(r.characteristic), .text(r.address), .text(r.name), .text(r.requester), .int(r.count)]
        }
        return ReportTable(
            id: "att_timeouts", title: "ATT timeouts",
            note: "Requests left without a response for the 30 s ATT transaction timeout (Core Vol 3 Part F 3.3.3); after one, no further request may be sent on that bearer.",
            columns: [C("Opcode", "opcode", .code), C("Request", "request"), C("Characteristic", "characteristic"),
                      C("Device", "address"), C("Name", "device_name"), C("Requester", "requester"), C("Count", "count", .number)],
            rows: rows)
    }

    static func smpFailures(_ s: FleetStatistics) -> ReportTable {
        ReportTable(
            id: "smp_failures", title: "SMP pairing failures",
            note: "Pairing Failed reasons (Core Vol 3 Part H 3.5.5). Sent by: which side gave up.",
            columns: [C("Code", "code", .code), C("Reason", "name"), C("CoreBluetooth", "cb_error"), C("Sent by", "sent_by"), C("Count", "count", .number)],
            rows: (s.counts[.smp] ?? []).map { c in
                let by = (c.parts["sender"] ?? []).map { "\($0.label) ×\($0.count)" }.joined(separator: ", ")
                return [.code(c.key.code, digits: 2), .text(c.name), cb(c), .text(by), .int(c.count)]
            })
    }

    static func otherErrors(_ s: FleetStatistics) -> ReportTable {
        var rows: [[Cell]] = []
        for c in s.counts[.other] ?? [] {
            for p in c.parts["context"] ?? [] {
                rows.append([.text(p.label), .code(c.key.code, digits: 2), .text(c.name), .int(p.count)])
            }
        }
        return ReportTable(
            id: "other_errors", title: "Other errors",
            note: "Error rows of the timeline not counted above: encryption changes, connection updates, L2CAP rejects, link events, hardware errors.",
            columns: [C("Layer and context", "context"), C("Code", "code", .code), C("Name", "name"), C("Count", "count", .number)],
            rows: rows)
    }

    static func latency(_ s: FleetStatistics) -> ReportTable {
        ReportTable(
            id: "att_latency", title: "ATT latency per request",
            note: "Time from request to response (or Error Response), nearest-rank percentiles over every answered request. Requester local: the capturing host asked, the peer answered.",
            columns: [C("Requester", "requester"), C("Opcode", "opcode", .code), C("Request", "request"),
                      C("Transactions", "transactions", .number), C("OK", "ok", .number), C("Error", "error", .number),
                      C("Timeout", "timeout", .number), C("Unanswered", "unanswered", .number),
                      C("p50", "p50", .duration), C("p95", "p95", .duration), C("p99", "p99", .duration), C("Max", "max", .duration)],
            rows: s.latency.map { r in
                let o = r.outcomes
                let pct: (Double) -> Cell = { p in r.percentile(p).map { .duration($0) } ?? .empty }
                return [.text(r.key.requester), .code(r.key.opcode, digits: 2), .text(r.name), .int(r.transactions),
                        .int(o["ok"] ?? 0), .int(o["error"] ?? 0), .int(o["timeout"] ?? 0),
                        .int((o["disconnected"] ?? 0) + (o["pending"] ?? 0)), pct(0.5), pct(0.95), pct(0.99),
                        r.samples.max.map { .duration($0) } ?? .empty]
            })
    }

    static func durations(_ s: FleetStatistics) -> ReportTable {
        ReportTable(
            id: "connection_durations", title: "Connection durations",
            note: "From LE Connection Complete to Disconnection Complete, by disconnect reason. \(s.durations.partial) connection(s) began before their capture or outlived it; only the still-open ones are listed, as lower bounds.",
            columns: [C("Connections", "group"), C("Count", "count", .number), C("p50", "p50", .duration),
                      C("p95", "p95", .duration), C("Max", "max", .duration), C("Total", "total", .duration)],
            rows: s.durations.byReason.map { r in
                let p: (Double) -> Cell = { r.samples.percentile($0).map { .duration($0) } ?? .empty }
                return [.text(r.label), .int(r.samples.count), p(0.5), p(0.95), r.samples.max.map { .duration($0) } ?? .empty,
                        .duration(r.samples.sum)]
            })
    }

    static func connections(_ s: FleetStatistics) -> ReportTable {
        var rows: [[Cell]] = []
        for (index, c) in s.captures.enumerated() {
            for conn in c.connections {
                let id = s.identities[index][conn.id]
                let start = conn.completedAt ?? conn.start
                rows.append([
                    .text(c.label), .code(conn.handle, digits: 4), .text(conn.knownPeer ?? ""), .text(id?.name ?? ""),
                    .text(id?.model ?? ""), .text(id?.firmwareRevision ?? ""), .code(conn.status, digits: 2),
                    .text(start.map(Timestamp.iso8601) ?? ""), conn.established ? .duration(conn.observedDuration) : .empty,
                    conn.disconnectReason.map { .code($0, digits: 2) } ?? .empty,
                    .text(conn.disconnectReason.map { HCIStatusCode(UInt8(truncatingIfNeeded: $0)).name }
                          ?? (conn.openAtEnd ? "open at the end of the capture" : "")),
                    .text(conn.coreBluetoothEnd ?? ""), .int(conn.beganBeforeCapture ? 1 : 0),
                ])
            }
        }
        return ReportTable(
            id: "connections", title: "Connections",
            note: "Every LE connection attempt of every capture, and the links that began before their capture (Began before capture = 1: no attempt in it, so no LE Connection Complete; their status is 0x00 as in the timeline and the time shown is their first packet).",
            columns: [C("Capture", "capture"), C("Handle", "handle", .code), C("Peer", "address"), C("Name", "name"),
                      C("Model", "model"), C("Firmware", "firmware"), C("Status", "status", .code), C("Completed at (UTC)", "completed_at"),
                      C("Duration", "duration", .duration), C("Reason", "reason", .code), C("Reason name", "reason_name"),
                      C("CoreBluetooth", "cb_error"), C("Began before capture", "began_before_capture", .number)],
            rows: rows)
    }
}
