import BLECore
import BLEAnalysis

/// `report.json`: the figures as data (documented in Docs/report.md). Keys keep their order;
/// every list is sorted, so the same inputs give the same bytes.
public enum ReportJSON {
    /// Bumped when a key changes meaning or goes away (new keys may appear without a bump).
    public static let schemaVersion: Int64 = 1

    public static func make(_ s: FleetStatistics) -> JSON {
        var fields: [(String, JSON)] = []
        fields.append(("schema_version", .int(schemaVersion)))
        fields.append(("captures", int(s.captures.count)))
        fields.append(("inputs", inputs(s)))
        fields.append(("connections", connections(s)))
        fields.append(("disconnect_reasons", .array((s.counts[.disconnect] ?? []).map { code($0) })))
        fields.append(("connection_failures", .array(connectionFailures(s))))
        fields.append(("hci_command_errors", .array((s.counts[.hciCommand] ?? []).map(hciCommand))))
        fields.append(("vendor_command_statuses", .array((s.counts[.vendorCommand] ?? []).map(vendorCommand))))
        fields.append(("att_errors", .array((s.counts[.att] ?? []).map(attError))))
        fields.append(("att_timeouts", .array((s.counts[.attTimeout] ?? []).map(attTimeout))))
        fields.append(("smp_failures", .array((s.counts[.smp] ?? []).map { code($0, extra: [("sent_by", counts($0.parts["sender"]))]) })))
        fields.append(("other_errors", .array((s.counts[.other] ?? []).map { code($0, extra: [("contexts", counts($0.parts["context"]))]) })))
        fields.append(("att_latency", .array(s.latency.map(latency))))
        fields.append(("by_device", groups(s, .device)))
        fields.append(("by_firmware", groups(s, .firmware)))
        if s.breakdowns.contains(.phone) { fields.append(("by_phone", groups(s, .phone))) }
        fields.append(("by_capture", groups(s, .capture)))
        fields.append(("by_period", .object([("period", .string(s.period)), ("rows", groups(s, .time))])))
        return .object(fields)
    }

    static func hciCommand(_ c: CodeCount) -> JSON {
        code(c, extra: [("commands", parts(c.parts["command"], key: "opcode"))])
    }

    /// A vendor command's first return byte: `code` the byte, `commands` those that returned it.
    static func vendorCommand(_ c: CodeCount) -> JSON {
        .object([("code", int(c.key.code)), ("count", int(c.count)), ("commands", parts(c.parts["command"], key: "opcode"))])
    }

    static func attError(_ c: CodeCount) -> JSON {
        let peer = c.parts["sender"]?.first { $0.id == "peer" }?.count ?? 0
        return code(c, extra: [("from_peer", int(peer)), ("requests", parts(c.parts["request"], key: "opcode")),
                               ("characteristics", parts(c.parts["characteristic"], key: "characteristic"))])
    }

    static func attTimeout(_ c: CodeCount) -> JSON {
        .object([("opcode", int(c.key.code)), ("name", .string(c.name)), ("count", int(c.count)),
                 ("characteristics", parts(c.parts["characteristic"], key: "characteristic")),
                 ("devices", parts(c.parts["device"], key: "address"))])
    }

    /// `{id: count}` of a breakdown.
    static func counts(_ list: [CodeCount.Part]?) -> JSON {
        .object((list ?? []).map { ($0.id, int($0.count)) })
    }

    static func int(_ v: Int) -> JSON { .int(Int64(v)) }

    /// `{code, name, count, cb_error, android_status, android_name}` (+ `cb_errors`, `android_statuses`
    /// when the code maps to several).
    static func code(_ c: CodeCount, extra: [(String, JSON)] = []) -> JSON {
        var fields: [(String, JSON)] = [("code", int(c.key.code)), ("name", .string(c.name)), ("count", int(c.count)),
                                         ("cb_error", JSON(c.cbError))]
        // Disconnects diagnose inferred on air (`ErrorEvent.inferredOnAir`): only when there are any.
        if c.inferred > 0 { fields.append(("inferred", int(c.inferred))) }
        if !c.cbErrors.isEmpty {
            fields.append(("cb_errors", .array(c.cbErrors.map { .object([("cb_error", JSON($0.cbError)), ("count", int($0.count))]) })))
        }
        fields.append(("android_status", JSON(c.android?.status)))
        fields.append(("android_name", JSON(c.android?.name)))
        if !c.androids.isEmpty {
            // Those that got no status where others did: a null status with its count.
            let none: [JSON] = c.androidNone > 0
                ? [.object([("android_status", .null), ("android_name", .null), ("count", int(c.androidNone))])] : []
            fields.append(("android_statuses", .array(c.androids.map {
                .object([("android_status", int($0.android.status)), ("android_name", JSON($0.android.name)), ("count", int($0.count))])
            } + none)))
        }
        return .object(fields + extra)
    }

    /// Breakdown parts; a hex id (`0x200D`) becomes an integer under `key`, other ids stay text.
    static func parts(_ list: [CodeCount.Part]?, key: String) -> JSON {
        .array((list ?? []).map { p in
            let id: JSON = p.id.hasPrefix("0x") ? (Int(p.id.dropFirst(2), radix: 16).map { int($0) } ?? .string(p.id)) : .string(p.id)
            let name = p.label.hasPrefix(p.id + " ") ? String(p.label.dropFirst(p.id.count + 1)) : p.label
            return .object([(key, id), ("name", .string(name)), ("count", int(p.count))])
        })
    }

    static func inputs(_ s: FleetStatistics) -> JSON {
        func n(_ st: InputOutcome.Status) -> JSON { int(s.inputs.filter { $0.status == st }.count) }
        return .object([
            ("read", n(.read)), ("partial", n(.partial)), ("failed", n(.failed)), ("duplicate", n(.duplicate)),
            ("files", .array(s.inputs.map { i in
                .object([("path", .string(i.path)), ("kind", JSON(i.kind)), ("status", .string(i.status.rawValue)),
                         ("format", JSON(i.formatDescription)), ("captures", int(i.captures)), ("reason", JSON(i.reason)),
                         ("warnings", .array(i.warnings.map { .string($0) }))])
            })),
        ])
    }

    static func hours(_ us: Int64) -> JSON {
        .double(Double(TextFormat.fixed(Double(us) / 3_600_000_000, 6)) ?? 0)
    }

    static func connections(_ s: FleetStatistics) -> JSON {
        let d = s.durations
        let all = d.complete
        func pct(_ p: Double) -> JSON { all.percentile(p).map { .int($0) } ?? .null }
        return .object([
            ("attempts", int(s.attempts)), ("established", int(s.established)),
            ("began_before_capture", int(s.beganBefore)),
            ("failed_to_establish", int(s.count(.disconnect, 0x3E)?.count ?? 0)),
            ("failed", int(s.total(.connectionFailed))), ("cancelled", int(s.total(.connectionCancelled))),
            ("connected_us", .int(s.connectedTime)), ("connection_hours", hours(s.connectedTime)),
            ("bredr_links_not_counted", int(s.bredrLinks)),
            ("durations", .object([
                ("complete", int(all.count)), ("partial", int(d.partial)),
                ("p50_us", pct(0.5)), ("p95_us", pct(0.95)), ("max_us", all.max.map { .int($0) } ?? .null),
                ("histogram", .array(zip(DurationStats.bucketLabels, d.histogram).map {
                    .object([("range", .string($0.0)), ("count", int($0.1))])
                })),
            ])),
        ])
    }

    static func connectionFailures(_ s: FleetStatistics) -> [JSON] {
        var out: [JSON] = []
        if let c = s.count(.disconnect, 0x3E) {
            out.append(code(c, extra: [("outcome", .string("failed-to-establish"))]))
        }
        out += (s.counts[.connectionFailed] ?? []).map { code($0, extra: [("outcome", .string("failed"))]) }
        out += (s.counts[.connectionCancelled] ?? []).map { code($0, extra: [("outcome", .string("cancelled"))]) }
        return out
    }

    static func latency(_ r: LatencyRow) -> JSON {
        func pct(_ p: Double) -> JSON { r.percentile(p).map { .int($0) } ?? .null }
        return .object([
            ("requester", .string(r.key.requester)), ("opcode", int(r.key.opcode)), ("name", .string(r.name)),
            ("transactions", int(r.transactions)),
            ("outcomes", .object(r.outcomes.sorted { $0.key < $1.key }.map { ($0.key, int($0.value)) })),
            ("p50_us", pct(0.5)), ("p95_us", pct(0.95)), ("p99_us", pct(0.99)), ("max_us", r.samples.max.map { .int($0) } ?? .null),
            ("histogram", .array(r.samples.histogram.map { int($0) })),
        ])
    }

    static func groups(_ s: FleetStatistics, _ d: Dimension) -> JSON {
        var names: [EventKey: CodeCount] = [:]
        for list in s.counts.values { for c in list { names[c.key] = c } }
        return .array((s.groups[d] ?? []).map { g in
            var fields: [(String, JSON)] = zip(d.columns, g.key).map { ($0.0, .string($0.1)) }
            fields += [("captures", int(g.captures)), ("attempts", int(g.attempts)), ("connections", int(g.connections)),
                       ("connected_us", .int(g.connectedTime)), ("connection_hours", hours(g.connectedTime))]
            fields.append(("events", .array(g.events.sorted { $0.key < $1.key }.map { key, n in
                .object([("event", .string(key.kind.rawValue)), ("code", int(key.code)),
                         ("name", .string(names[key]?.name ?? "")), ("count", int(n))])
            })))
            return .object(fields)
        })
    }
}
