import BLECore

/// The short text the `report` command prints, and the headline lines the Markdown and HTML
/// reports open with.
public enum ReportSummary {
    /// `0x13 Remote User Terminated Connection ×2 (CBError.peripheralDisconnected; Android 19 GATT_CONN_TERMINATE_PEER_USER)`.
    public static func codeLine(_ c: CodeCount) -> String {
        let cb = c.cbErrors.isEmpty ? c.cbError
            : c.cbErrors.map { "\($0.cbError ?? "no error") ×\($0.count)" }.joined(separator: ", ")
        let android = c.androids.isEmpty ? c.android.map { "Android \($0)" }
            : "Android " + c.androidBreakdown
        let views = [cb, android].compactMap { $0 }
        return "\(hex(c.key.code)) \(c.nameWithInference) ×\(c.count)" + (views.isEmpty ? "" : " (" + views.joined(separator: "; ") + ")")
    }

    /// Headline figures, one per line, without the file list.
    public static func headlines(_ s: FleetStatistics) -> [String] {
        let read = s.inputs.filter { $0.status == .read || $0.status == .partial }.count
        let failed = s.failedInputs.count
        var lines: [String] = []
        lines.append("\(s.captures.count) capture(s) from \(read) file(s)" + (failed > 0 ? ", \(failed) file(s) could not be read" : "")
                     + "; \(s.attempts) LE connection attempt(s), \(s.established) established"
                     // Not a funnel: a link that began before its capture is established with no attempt in it.
                     + (s.beganBefore > 0 ? " (counting \(s.beganBefore) link(s) that began before their capture, with no attempt in it)" : "") + ", "
                     + "\(TextFormat.fixed(Double(s.connectedTime) / 3_600_000_000, 2)) connection hour(s)"
                     + (s.bredrLinks > 0 ? " (\(s.bredrLinks) BR/EDR link(s) not counted)" : ""))
        func list(_ title: String, _ kind: ErrorEvent.Kind, limit: Int = 6) {
            let all = s.counts[kind] ?? []
            guard !all.isEmpty else {
                lines.append("\(title): none")
                return
            }
            var text = all.prefix(limit).map(codeLine).joined(separator: "; ")
            if all.count > limit { text += "; … \(all.count - limit) more" }
            lines.append("\(title) (\(s.total(kind))): \(text)")
        }
        list("disconnect reasons", .disconnect)
        let failures = s.total(.connectionFailed), cancels = s.total(.connectionCancelled)
        let dropped = s.count(.disconnect, 0x3E)
        let onAir = dropped?.inferred ?? 0
        let notEstablished = (dropped?.count ?? 0) - onAir
        // Two ways an attempt fails: LE Connection Complete reports success and the link drops
        // with 0x3E before it comes up, or the Complete itself carries an error status (0x3E too).
        // An air capture has no Complete: a peripheral that never answered its CONNECT_IND is a
        // 0x3E diagnose infers (Core v5.4 Vol 6 Part B 4.5.2), said apart.
        lines.append("connection attempts: \(notEstablished) reported complete then dropped with 0x3E before coming up, "
                     + (onAir > 0 ? "\(onAir) never answered on air (0x3E inferred), " : "")
                     + "\(failures) completed with an error status, \(cancels) cancelled by the host")
        list("HCI command failures", .hciCommand)
        // Vendor commands' first return bytes are the vendor's (Core v5.4 Vol 4 Part E 5.4.1): apart,
        // by the commands that returned them, never named as HCI codes.
        if let vendor = s.counts[.vendorCommand], !vendor.isEmpty {
            lines.append("vendor command statuses, not HCI codes (\(s.total(.vendorCommand))): " + vendor.prefix(4).map { c in
                "\(hex(c.key.code)) ×\(c.count) (" + (c.parts["command"] ?? []).map(\.label).joined(separator: ", ") + ")"
            }.joined(separator: "; ") + (vendor.count > 4 ? "; … \(vendor.count - 4) more" : ""))
        }
        list("ATT errors", .att)
        let timeouts = s.counts[.attTimeout] ?? []
        lines.append("ATT timeouts: " + (timeouts.isEmpty ? "none" : "\(s.total(.attTimeout)) (" + timeouts.map { "\($0.name.replacing(" timed out", with: "")) ×\($0.count)" }.joined(separator: ", ") + ")"))
        list("SMP pairing failures", .smp)
        let local = s.latency.filter { $0.key.requester == "local" && !$0.samples.isEmpty }
            .sorted { ($1.samples.count, $0.key.opcode) < ($0.samples.count, $1.key.opcode) }
        if !local.isEmpty {
            lines.append("ATT latency p50/p95/p99/max: " + local.prefix(4).map { r in
                "\(r.name) " + [0.5, 0.95, 0.99].map { TextFormat.duration(r.percentile($0) ?? 0) }.joined(separator: " / ")
                    + " / " + TextFormat.duration(r.samples.max ?? 0)
            }.joined(separator: "; "))
        }
        return lines
    }

    /// What `blereplay report` prints on stdout.
    public static func text(_ s: FleetStatistics, written: [String]) -> String {
        var out = "blereplay report: " + headlines(s).joined(separator: "\n") + "\n"
        let failed = s.failedInputs
        if !failed.isEmpty {
            out += "not read: \(failed.count) file(s), each with its reason on stderr and in the Inputs table\n"
        }
        if !written.isEmpty {
            let csv = written.filter { $0.hasSuffix(".csv") }
            let other = written.filter { !$0.hasSuffix(".csv") }
            out += "written: " + other.joined(separator: ", ")
            if let first = csv.first {
                let dir = first.lastIndex(of: "/").map { String(first[...$0]) } ?? "./"
                out += (other.isEmpty ? "" : ", ") + "\(csv.count) CSV tables in \(dir)"
            }
            out += "\n"
        }
        return out
    }

    /// The reason without the path it repeats.
    public static func shortReason(_ i: InputOutcome) -> String {
        var r = i.reason ?? i.status.rawValue
        for prefix in ["error: ", "\(i.path): "] where r.hasPrefix(prefix) { r = String(r.dropFirst(prefix.count)) }
        if r.hasPrefix("\(i.path): ") { r = String(r.dropFirst(i.path.count + 2)) }
        return r
    }
}
