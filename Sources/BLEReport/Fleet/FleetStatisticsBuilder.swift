import BLECore
import BLEAnalysis

extension FleetStatistics {
    /// Computes every figure of the report from the captures read. Deterministic: the same
    /// captures give the same figures in the same order, whatever order they were read in.
    public static func build(inputs: [InputOutcome], captures unsorted: [CaptureFacts]) -> FleetStatistics {
        let captures = unsorted.sorted { bytesBefore($0.label, $1.label) }
        let identities = resolveIdentities(captures)
        // The span of what is counted (connections and errors), not of the captures' first and
        // last records, which can be notes stamped days away from the traffic.
        var times: [Int64] = []
        for c in captures {
            for conn in c.connections { times += [conn.completedAt, conn.start, conn.end].compactMap { $0 } }
            times += c.events.map(\.timestamp)
        }
        let first = times.min() ?? 0, last = times.max() ?? 0
        let spread = last.saturatingSubtracting(first)
        let period = spread <= 48 * 3_600_000_000 ? "hour" : (spread <= 120 * 86_400_000_000 ? "day" : "week")
        return FleetStatistics(
            inputs: inputs, captures: captures, counts: codeCounts(captures, identities: identities),
            latency: latencyRows(captures), durations: durationStats(captures),
            groups: groupRows(captures, identities: identities, period: period), period: period, identities: identities,
            attTimeouts: attTimeoutRows(captures, identities: identities), laneOrder: laneOrder(captures))
    }

    /// The `att_timeouts` table's rows.
    static func attTimeoutRows(_ captures: [CaptureFacts], identities: [[Int64: DeviceIdentity]]) -> [ATTTimeoutRow] {
        var counts: [[String]: (opcode: Int, count: Int)] = [:]
        for (index, c) in captures.enumerated() {
            let peers = Dictionary(c.connections.map { ($0.id, $0.knownPeer) }, uniquingKeysWith: { a, _ in a })
            for e in c.events where e.kind == .attTimeout {
                let peer = e.connectionID.flatMap { peers[$0] ?? nil } ?? "(unknown)"
                let name = e.connectionID.flatMap { identities[index][$0]?.name } ?? ""
                counts[[e.opcodeName ?? "", attributeLabel(e).label, peer, name, e.detail ?? "", hex(e.code)], default: (e.code, 0)].count += 1
            }
        }
        return ATTTimeoutRow.ordered(counts.map { k, v in
            ATTTimeoutRow(opcode: v.opcode, request: k[0], characteristic: k[1], address: k[2], name: k[3], requester: k[4], count: v.count)
        })
    }

    /// Captures with trouble first, then by label (`laneOrder`).
    static func laneOrder(_ captures: [CaptureFacts]) -> [Int] {
        func trouble(_ c: CaptureFacts) -> Int {
            c.events.filter { e in
                switch e.kind {
                case .disconnect: e.code != 0x13 && e.code != 0x16
                case .connectionFailed, .attTimeout, .smp: true
                default: false
                }
            }.count
        }
        let scores = captures.map(trouble)
        return captures.indices.filter { !captures[$0].connections.isEmpty }.sorted { a, b in
            (-scores[a], captures[a].label) < (-scores[b], captures[b].label)
        }
    }

    static func bytesBefore(_ a: String, _ b: String) -> Bool {
        Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
    }

    /// Each connection's identity: what was read on it, then what its capture knows about the
    /// address, then what the whole fleet knows when all captures agree on a field (a firmware
    /// revision seen with two values is left unknown rather than guessed).
    static func resolveIdentities(_ captures: [CaptureFacts]) -> [[Int64: DeviceIdentity]] {
        var seen: [String: [[String]]] = [:]   // address -> per field, the values seen
        func note(_ address: String, _ i: DeviceIdentity) {
            var fields = seen[address] ?? [[], [], [], []]
            for (n, v) in [i.name, i.manufacturer, i.model, i.firmwareRevision].enumerated() {
                if let v, !fields[n].contains(v) { fields[n].append(v) }
            }
            seen[address] = fields
        }
        for c in captures {
            for conn in c.connections {
                if let peer = conn.knownPeer { note(peer, conn.identity.filled(from: c.devices[peer])) }
            }
        }
        let fleet = seen.mapValues { fields in
            let one = fields.map { $0.count == 1 ? $0[0] : nil }
            return DeviceIdentity(name: fields[0].sorted().first, manufacturer: one[1], model: one[2], firmwareRevision: one[3])
        }
        return captures.map { c in
            var out: [Int64: DeviceIdentity] = [:]
            for conn in c.connections {
                guard let peer = conn.knownPeer else { continue }
                out[conn.id] = conn.identity.filled(from: c.devices[peer]).filled(from: fleet[peer])
            }
            return out
        }
    }

    /// Code counts per kind with their breakdowns.
    static func codeCounts(_ captures: [CaptureFacts], identities: [[Int64: DeviceIdentity]]) -> [ErrorEvent.Kind: [CodeCount]] {
        struct Tally {
            var name = ""
            var count = 0
            var cb: [String: Int] = [:]   // "" for none
            var android: [AndroidGattStatus: Int] = [:]
            var parts: [String: [String: (label: String, count: Int)]] = [:]
            mutating func part(_ breakdown: String, _ id: String, _ label: String) {
                parts[breakdown, default: [:]][id, default: (label, 0)].count += 1
            }
        }
        var tallies: [EventKey: Tally] = [:]
        for (index, c) in captures.enumerated() {
            let peers = Dictionary(c.connections.map { ($0.id, $0.knownPeer) }, uniquingKeysWith: { a, _ in a })
            for e in c.events {
                let key = EventKey(kind: e.kind, code: e.code)
                var t = tallies[key] ?? Tally()
                if t.count == 0 { t.name = e.name }
                t.count += 1
                t.cb[e.cbLabel, default: 0] += 1
                if let a = e.android { t.android[a, default: 0] += 1 }
                switch e.kind {
                case .hciCommand, .vendorCommand:
                    t.part("command", e.opcode.map { hex($0, width: 4) } ?? "?", e.commandLabel)
                case .att, .attTimeout:
                    if e.kind == .att {
                        let op = e.opcode.map { hex($0) } ?? "?"
                        t.part("request", op, "\(op) \(e.opcodeName ?? "unknown request")")
                    }
                    let a = attributeLabel(e)
                    t.part("characteristic", a.id, a.label)
                    if let d = e.detail { t.part("sender", d, d) }
                    if e.kind == .attTimeout {
                        let peer = e.connectionID.flatMap { peers[$0] ?? nil } ?? "(unknown)"
                        let name = e.connectionID.flatMap { identities[index][$0]?.name }
                        t.part("device", peer, name.map { "\(peer) \($0)" } ?? peer)
                    }
                case .smp:
                    if let d = e.detail { t.part("sender", d, d) }
                case .other:
                    if let d = e.detail { t.part("context", d, d) }
                case .disconnect:
                    if e.isInferred { t.part("source", ErrorEvent.inferredOnAir, ErrorEvent.inferredOnAir) }
                default:
                    break
                }
                tallies[key] = t
            }
        }
        var out: [ErrorEvent.Kind: [CodeCount]] = [:]
        for (key, t) in tallies {
            let cb = CodeCount.CBCount.ranked(t.cb.map { CodeCount.CBCount(cbError: $0.key.isEmpty ? nil : $0.key, count: $0.value) })
            let parts = t.parts.mapValues { list in
                list.map { CodeCount.Part(id: $0.key, label: $0.value.label, count: $0.value.count) }.sorted()
            }
            let a = CodeCount.androidFields(t.android, total: t.count)
            out[key.kind, default: []].append(CodeCount(key: key, name: t.name, cbError: cb.first?.cbError,
                                                         cbErrors: cb.count > 1 ? cb : [], android: a.android,
                                                         androids: a.androids, androidNone: a.none, count: t.count, parts: parts))
        }
        return out.mapValues { $0.sorted { ($1.count, $0.key.code) < ($0.count, $1.key.code) } }
    }

    static func latencyRows(_ captures: [CaptureFacts]) -> [LatencyRow] {
        var outcomes: [LatencyKey: [String: Int]] = [:]
        var samples: [LatencyKey: [Int64]] = [:]
        var names: [Int: String] = [:]
        for c in captures {
            for (k, o) in c.outcomes { outcomes[k, default: [:]].merge(o, uniquingKeysWith: +) }
            for (k, s) in c.latencies { samples[k, default: []] += s }
            names.merge(c.attOpcodeNames) { a, _ in a }
        }
        return outcomes.keys.sorted().map { k in
            LatencyRow(key: k, name: names[k.opcode] ?? "ATT opcode \(hex(k.opcode))", outcomes: outcomes[k] ?? [:],
                       samples: SampleSummary(sorted: (samples[k] ?? []).sorted(), bounds: Histogram.latencyBounds))
        }
    }

    static func durationStats(_ captures: [CaptureFacts]) -> DurationStats {
        var complete: [Int64] = []
        var partial = 0
        var byReason: [Int: [Int64]] = [:]
        var open: [Int64] = []
        for c in captures {
            for conn in c.connections where conn.established {
                if conn.beganBeforeCapture || conn.openAtEnd {
                    partial += 1
                    if conn.openAtEnd { open.append(conn.observedDuration) }
                    continue
                }
                complete.append(conn.observedDuration)
                if let r = conn.disconnectReason { byReason[r, default: []].append(conn.observedDuration) }
            }
        }
        func summary(_ s: [Int64]) -> SampleSummary { SampleSummary(sorted: s.sorted(), bounds: DurationStats.bucketBounds) }
        var rows = [DurationStats.Row(reason: nil, label: "all (complete connections)", samples: summary(complete))]
        for (reason, s) in byReason.sorted(by: { $0.key < $1.key }) {
            rows.append(DurationStats.Row(reason: reason, label: "\(hex(reason)) \(HCIStatusCode(UInt8(truncatingIfNeeded: reason)).name)",
                                          samples: summary(s)))
        }
        if !open.isEmpty {
            rows.append(DurationStats.Row(reason: nil, label: "still open at the end of the capture (lower bound)", samples: summary(open)))
        }
        return DurationStats(complete: summary(complete), partial: partial, byReason: rows)
    }
}

extension CodeCount {
    /// Android statuses by count, most frequent first (ties by status).
    public static func androidCounts(_ tally: [AndroidGattStatus: Int]) -> [AndroidCount] {
        tally.map { AndroidCount(android: $0.key, count: $0.value) }
            .sorted { ($1.count, $0.android.status) < ($0.count, $1.android.status) }
    }

    /// A code's Android fields from its statuses' tally and its count: `android` the most frequent
    /// outcome (nil when no status applies to most of them), `androids` the breakdown when the
    /// events differ, `androidNone` how many got no status where others did (Docs/android.md: a
    /// host cancel that was not Android's 30 s timeout gives an app nothing). One status on a
    /// few events was shown as every event's: 133 GATT_ERROR for 12 cancels, one of them Android's.
    static func androidFields(_ tally: [AndroidGattStatus: Int], total: Int) -> (android: AndroidGattStatus?, androids: [AndroidCount], none: Int) {
        let counts = androidCounts(tally)
        let none = max(0, total - counts.reduce(0) { $0 + $1.count })
        guard let top = counts.first else { return (nil, [], 0) }
        guard none > 0 else { return (top.android, counts.count > 1 ? counts : [], 0) }
        return (top.count >= none ? top.android : nil, counts, none)
    }
}
