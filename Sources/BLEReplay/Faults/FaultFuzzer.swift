import BLECore
import BLEDecode

/// `--seed N --runs K` (Docs/replay.md "Seeded fault runs"): K runs, each with one fault drawn
/// from the seeded generator and placed on something the recording shows the peripheral
/// receiving, then a summary of which runs broke the expectations. Each run prints its fault
/// in the `--inject` grammar so it can be re-run alone.
public enum FaultFuzzer {
    public struct Run: Sendable {
        public var index: Int
        public var seed: UInt64
        public var fault: FaultSpec
        public var passed: Bool
        /// The first failed check or divergence.
        public var detail: String
    }

    /// The request kinds the peripherals were seen to receive, with how often (per connection).
    static func targets(_ session: RecordedSession) -> [(key: ATTMatchKey, count: Int)] {
        var counts: [ATTMatchKey: Int] = [:]
        for c in session.connections where c.isEstablished {
            var perConnection: [ATTMatchKey: Int] = [:]
            for p in c.pdus where p.fromCentral && ATTOpcode(p.bytes[0]).kind == .request {
                perConnection[ATTMatchKey(pdu: p.bytes), default: 0] += 1
            }
            for (k, n) in perConnection { counts[k] = max(counts[k] ?? 0, n) }
        }
        return counts.map { ($0.key, $0.value) }.sorted { ($0.key.opcode.rawValue, $0.key.handle ?? 0) < ($1.key.opcode.rawValue, $1.key.handle ?? 0) }
    }

    /// One random fault.
    public static func randomFault(_ session: RecordedSession, rng: inout SplitMix64) -> FaultSpec {
        let targets = targets(session)
        let span = max(1_000_000, session.end)
        func match() -> FaultMatch? {
            guard !targets.isEmpty else { return nil }
            let t = rng.pick(targets)
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
        let reasons: [UInt8] = [0x08, 0x13, 0x22, 0x3D]
        return FaultSpec(kind: .disconnect(HCIStatusCode(rng.pick(reasons)), .at(rng.inRange(0...span / 1000) * 1000)))
    }

    /// Seeds of the K runs: the sequence of a generator seeded with N.
    static func runSeeds(_ seed: UInt64, _ runs: Int) -> [UInt64] {
        var g = SplitMix64(seed: seed)
        return (0..<runs).map { _ in g.next() }
    }

    public static func scriptRuns(_ session: RecordedSession, script: CentralScript, configuration: ReplayConfiguration,
                                  runs: Int, seed: UInt64) -> [Run] {
        runSeeds(seed, runs).enumerated().map { i, runSeed in
            var rng = SplitMix64(seed: runSeed)
            let fault = randomFault(session, rng: &rng)
            var c = configuration
            c.seed = runSeed
            c.faults.append(fault)
            c.keepTrace = false
            let (r, _) = ScriptReplay.run(session, script: script, configuration: c)
            let firstFailure = r.checks.first { !$0.passed }.map { "\($0.label): \($0.message)" }
            return Run(index: i + 1, seed: runSeed, fault: fault, passed: r.passed,
                       detail: firstFailure ?? (r.finished ? "all \(r.checks.count) checks passed" : "did not finish: \(r.events.last ?? "")"))
        }
    }

    public static func faithfulRuns(_ session: RecordedSession, configuration: ReplayConfiguration, runs: Int, seed: UInt64) -> [Run] {
        runSeeds(seed, runs).enumerated().map { i, runSeed in
            var rng = SplitMix64(seed: runSeed)
            let fault = randomFault(session, rng: &rng)
            var c = configuration
            c.seed = runSeed
            c.faults.append(fault)
            c.keepTrace = false
            let (r, _) = FaithfulReplay.run(session, configuration: c)
            let first = r.verdicts.first { !$0.reproduced }
            let detail = first.flatMap { v in v.divergence.map { "connection \(v.connectionID): \($0.kind): expected \($0.expected), got \($0.got)" } }
            return Run(index: i + 1, seed: runSeed, fault: fault, passed: r.allReproduced, detail: detail ?? "reproduced anyway")
        }
    }

    static func render(_ runs: [Run], title: String, json: Bool) -> ReplayOutcome {
        var out = ReplayOutcome()
        let broken = runs.filter { !$0.passed }
        if json {
            out.stdout = JSON.object([
                ("mode", .string(title)),
                ("runs", .array(runs.map { r in
                    .object([("run", .int(Int64(r.index))), ("seed", .string(String(r.seed))), ("fault", .string(r.fault.description)),
                             ("passed", .bool(r.passed)), ("detail", .string(r.detail))])
                })),
                ("broken", .int(Int64(broken.count))),
            ]).serialized(pretty: true) + "\n"
        } else {
            var lines = ["\(title): \(runs.count) runs with one random fault each"]
            for r in runs {
                lines.append("  run \(r.index)  \(r.passed ? "held " : "BROKE")  --inject '\(r.fault)'  (seed \(r.seed))")
                if !r.passed { lines.append("        \(r.detail)") }
            }
            lines.append("  \(broken.count) of \(runs.count) runs broke" +
                         (broken.isEmpty ? "" : ": " + broken.map { String($0.index) }.joined(separator: ", ")))
            out.stdout = lines.joined(separator: "\n") + "\n"
        }
        out.status = broken.isEmpty ? .passed : .failed
        return out
    }

    static func scriptOutcome(_ session: RecordedSession, script: CentralScript, configuration: ReplayConfiguration, runs: Int,
                              seed: UInt64, json: Bool) -> ReplayOutcome {
        render(scriptRuns(session, script: script, configuration: configuration, runs: runs, seed: seed),
               title: "script \(script.name) against \(session.fileName)", json: json)
    }

    static func faithfulOutcome(_ sessions: [RecordedSession], configuration: ReplayConfiguration, runs: Int, seed: UInt64,
                                json: Bool) -> ReplayOutcome {
        guard let session = sessions.first else { return ReplayOutcome(stdout: "", stderr: ["no capture"], status: .badInput) }
        return render(faithfulRuns(session, configuration: configuration, runs: runs, seed: seed),
                      title: "faithful replay of \(session.fileName)", json: json)
    }
}
