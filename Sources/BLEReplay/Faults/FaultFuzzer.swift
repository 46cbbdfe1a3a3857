import BLECore
import BLEDecode

/// `--seed N --runs K` (Docs/replay.md "Seeded fault runs"): K runs, each with one fault drawn
/// from the seeded generator and placed on something the central sends (the recorded central's
/// requests, or a script's, counted in a run without the fault) and can happen on its links
/// (a MIC failure only where a link was encrypted), then a summary of which runs broke the
/// expectations and which faults never fired. Each run prints its fault in the `--inject`
/// grammar so it can be re-run alone.
public enum FaultFuzzer {
    public struct Run: Sendable {
        public var index: Int
        public var seed: UInt64
        public var fault: FaultSpec
        public var passed: Bool
        /// The fault fired; a run whose fault never fired tested nothing and fails.
        public var fired: Bool = true
        /// The first failed check or divergence.
        public var detail: String
        /// How long the run simulated, in virtual microseconds (its JUnit testcase's `time`).
        public var simulatedUs: Int64 = 0
    }

    /// Where seeded faults can be aimed: request kinds with how many of each one link carried,
    /// and when each peripheral's link was encrypted (only then can it end with a MIC failure).
    struct Targets {
        var requests: [(key: ATTMatchKey, count: Int)]
        /// A peer and the stretch of session time its link was up and encrypted, in session order.
        var encrypted: [(peer: String, from: Int64, to: Int64)]
        var span: Int64

        init(requests: [ATTMatchKey: Int], encrypted: [(peer: String, from: Int64, to: Int64)], span: Int64) {
            self.requests = requests.map { ($0.key, $0.value) }
                .sorted { ($0.key.opcode.rawValue, $0.key.handle ?? 0) < ($1.key.opcode.rawValue, $1.key.handle ?? 0) }
            self.encrypted = encrypted.sorted { ($0.from, $0.peer) < ($1.from, $1.peer) }
            self.span = span
        }
    }

    /// What the recorded central sent: the targets of a faithful replay, whose central is the recorded one.
    static func targets(_ session: RecordedSession) -> Targets {
        var counts: [ATTMatchKey: Int] = [:]
        for c in session.connections where c.isEstablished {
            var perConnection: [ATTMatchKey: Int] = [:]
            for p in c.pdus where p.fromCentral && ATTOpcode(p.data[0]).kind == .request {
                perConnection[ATTMatchKey(pdu: p.data), default: 0] += 1
            }
            for (k, n) in perConnection { counts[k] = max(counts[k] ?? 0, n) }
        }
        // A peer named by address only: `peer=` takes an address. From the recorded encryption
        // (or the start, for a link encrypted before the capture) to the link's end: a MIC failure
        // drawn outside it never fires (the peer has no link, or none encrypted, then).
        var encrypted: [(peer: String, from: Int64, to: Int64)] = []
        for c in session.connections where c.isEstablished && c.encrypted {
            guard let peer = c.peer?.address.description else { continue }
            let on = c.security.first { if case .encryptionChange(0, true) = $0.kind { return true } else { return false } }?.time
            let from = c.offset.saturatingAdding(on ?? 0)
            let to = c.offset.saturatingAdding(c.disconnect?.time ?? c.end)
            if to > from { encrypted.append((peer, from, to)) }
        }
        return Targets(requests: counts, encrypted: encrypted, span: max(1_000_000, session.end))
    }

    /// What a central script sends: a run of the script with no fault of its own drawn, whose
    /// peripherals count the requests they receive. The script's links are never encrypted
    /// (pairing is not simulated), so no MIC failure is drawn for them.
    static func targets(_ session: RecordedSession, script: CentralScript, configuration: ReplayConfiguration) -> Targets {
        var c = configuration
        c.keepTrace = false
        let (_, world) = ScriptReplay.run(session, script: script, configuration: c)
        return Targets(requests: world.requestsReceived, encrypted: [], span: max(1_000_000, world.now))
    }

    /// One random fault.
    public static func randomFault(_ session: RecordedSession, rng: inout SplitMix64) -> FaultSpec {
        randomFault(targets(session), rng: &rng)
    }

    static func randomFault(_ targets: Targets, rng: inout SplitMix64) -> FaultSpec {
        let requests = targets.requests
        let span = targets.span
        func match() -> FaultMatch? {
            guard !requests.isEmpty else { return nil }
            let t = rng.pick(requests)
            return FaultMatch(opcode: t.key.opcode, handle: t.key.handle, occurrence: 1 + rng.below(t.count))
        }
        switch rng.below(6) {
        case 0:
            if let m = match() { return FaultSpec(kind: .disconnect(.connectionTimeout, .after(m))) }
        case 1:
            if let m = match() { return FaultSpec(kind: .dropResponse(m)) }
        case 2:
            if let m = match() { return FaultSpec(kind: .delayResponse(m, by: rng.inRange(1...20) * 500_000)) }
        case 3:
            let codes: [UInt8] = [0x0E, 0x05, 0x0F, 0x11, 0x80]
            if let m = match() { return FaultSpec(kind: .attError(ATTErrorCode(rng.pick(codes)), m)) }
        case 4:
            return FaultSpec(kind: .latencyScale(Double(rng.inRange(15...50)) / 10))
        default:
            break
        }
        // 0x3D Connection Terminated due to MIC Failure needs an encrypted link: drawn only where
        // one was, aimed at that peer, at a moment its link was up and encrypted.
        let reasons: [UInt8] = targets.encrypted.isEmpty ? [0x08, 0x13, 0x22] : [0x08, 0x13, 0x22, 0x3D]
        let reason = rng.pick(reasons)
        guard reason == 0x3D else {
            return FaultSpec(kind: .disconnect(HCIStatusCode(reason), .at(rng.inRange(0...span / 1000) * 1000)))
        }
        let window = rng.pick(targets.encrypted)
        // Whole milliseconds inside the window, short of its end (the link is down by then).
        let first = (window.from + 999) / 1000, last = max(first, (window.to - 1) / 1000)
        return FaultSpec(kind: .disconnect(HCIStatusCode(reason), .at(rng.inRange(first...last) * 1000)), peer: window.peer)
    }

    /// Seeds of the K runs: the sequence of a generator seeded with N.
    static func runSeeds(_ seed: UInt64, _ runs: Int) -> [UInt64] {
        var g = SplitMix64(seed: seed)
        return (0..<runs).map { _ in g.next() }
    }

    public static func scriptRuns(_ session: RecordedSession, script: CentralScript, configuration: ReplayConfiguration,
                                  runs: Int, seed: UInt64) -> [Run] {
        let targets = targets(session, script: script, configuration: configuration)
        return runSeeds(seed, runs).enumerated().map { i, runSeed in
            var rng = SplitMix64(seed: runSeed)
            let fault = randomFault(targets, rng: &rng)
            var c = configuration
            c.seed = runSeed
            c.faults.append(fault)
            c.keepTrace = false
            let (r, world) = ScriptReplay.run(session, script: script, configuration: c)
            let fired = world.firedFaultIndices.contains(c.faults.count - 1) || isLatencyScale(fault)
            let firstFailure = r.checks.first { !$0.passed }.map { "\($0.label): \($0.message)" }
            return Run(index: i + 1, seed: runSeed, fault: fault, passed: r.passed, fired: fired,
                       detail: firstFailure ?? (r.finished ? "all \(r.checks.count) checks passed" : "did not finish: \(r.unfinishedReason ?? "")"),
                       simulatedUs: r.simulatedSpan)
        }
    }

    public static func faithfulRuns(_ session: RecordedSession, configuration: ReplayConfiguration, runs: Int, seed: UInt64) -> [Run] {
        let targets = targets(session)
        return runSeeds(seed, runs).enumerated().map { i, runSeed in
            var rng = SplitMix64(seed: runSeed)
            let fault = randomFault(targets, rng: &rng)
            var c = configuration
            c.seed = runSeed
            c.faults.append(fault)
            c.keepTrace = false
            // Only the first connection that did not reproduce is reported: no verdict is kept.
            var first: ConnectionVerdict?
            let (r, world) = FaithfulReplay.run(session, configuration: c, keepingVerdicts: false) { v in
                if first == nil, !v.reproduced { first = v }
            }
            let fired = world.firedFaultIndices.contains(c.faults.count - 1) || isLatencyScale(fault)
            let detail = first.flatMap { v in v.divergence.map { "connection \(v.connectionID): \($0.kind): expected \($0.expected), got \($0.got)" } }
            return Run(index: i + 1, seed: runSeed, fault: fault, passed: r.passed, fired: fired, detail: detail ?? "reproduced anyway",
                       simulatedUs: r.simulatedSpan)
        }
    }

    static func isLatencyScale(_ f: FaultSpec) -> Bool {
        if case .latencyScale = f.kind { return true }
        return false
    }

    /// One testcase per run, named by the fault in the `--inject` grammar so a failed one can be
    /// re-run alone; a run that broke the expectations, or whose fault never fired, fails.
    public static func junit(_ runs: [Run], title: String, seed: UInt64) -> JUnitReport {
        let cases = runs.map { r in
            JUnitReport.TestCase(
                className: "replay.runs", name: "run \(r.index) --inject '\(r.fault)'", time: Double(max(0, r.simulatedUs)) / 1e6,
                failure: !r.fired ? ("the fault never fired", "the fault never fired: this run tested nothing (seed \(r.seed))")
                    : r.passed ? nil : (r.detail, "run \(r.index) (seed \(r.seed)): \(r.detail)"))
        }
        return JUnitReport(suiteName: "blereplay replay --runs \(runs.count) --seed \(seed): \(title)", cases: cases)
    }

    static func render(_ runs: [Run], title: String, json: Bool, junitPath: String? = nil, seed: UInt64 = 0) -> ReplayOutcome {
        var out = ReplayOutcome()
        if let junitPath {
            do { try TextFile.write(junit(runs, title: title, seed: seed).xml(), to: junitPath) } catch {
                out.stderr.append("blereplay replay: \(error)")
                out.status = .badInput
                return out
            }
        }
        let unfired = runs.filter { !$0.fired }
        let broken = runs.filter { !$0.passed && $0.fired }
        if json {
            out.stdout = JSON.object([
                ("mode", .string(title)),
                ("runs", .array(runs.map { r in
                    .object([("run", .int(Int64(r.index))), ("seed", .string(String(r.seed))), ("fault", .string(r.fault.description)),
                             ("passed", .bool(r.passed)), ("fired", .bool(r.fired)), ("detail", .string(r.detail))])
                })),
                ("broken", .int(Int64(broken.count))),
                ("never_fired", .int(Int64(unfired.count))),
            ]).serialized(pretty: true) + "\n"
        } else {
            var lines = ["\(title): \(runs.count) runs with one random fault each"]
            for r in runs {
                let status = !r.fired ? "NOT FIRED" : (r.passed ? "held " : "BROKE")
                lines.append("  run \(r.index)  \(status)  --inject '\(r.fault)'  (seed \(r.seed))")
                if !r.fired {
                    lines.append("        the fault never fired: this run tested nothing")
                } else if !r.passed {
                    lines.append("        \(r.detail)")
                }
            }
            lines.append("  \(broken.count) of \(runs.count) runs broke" +
                         (broken.isEmpty ? "" : ": " + broken.map { String($0.index) }.joined(separator: ", ")))
            if !unfired.isEmpty {
                lines.append("  \(unfired.count) run(s) whose fault never fired: " + unfired.map { String($0.index) }.joined(separator: ", "))
            }
            out.stdout = lines.map(TextFormat.printable).joined(separator: "\n") + "\n"
        }
        out.status = broken.isEmpty && unfired.isEmpty ? .passed : .failed
        return out
    }

    static func scriptOutcome(_ session: RecordedSession, script: CentralScript, configuration: ReplayConfiguration, runs: Int,
                              seed: UInt64, json: Bool, junitPath: String? = nil) -> ReplayOutcome {
        render(scriptRuns(session, script: script, configuration: configuration, runs: runs, seed: seed),
               title: "script \(script.name) against \(session.fileName)", json: json, junitPath: junitPath, seed: seed)
    }

    static func faithfulOutcome(_ sessions: [RecordedSession], configuration: ReplayConfiguration, runs: Int, seed: UInt64,
                                json: Bool, junitPath: String? = nil) -> ReplayOutcome {
        guard let session = sessions.first else { return ReplayOutcome(stdout: "", stderr: ["no capture"], status: .badInput) }
        return render(faithfulRuns(session, configuration: configuration, runs: runs, seed: seed),
                      title: "faithful replay of \(session.fileName)", json: json, junitPath: junitPath, seed: seed)
    }
}
