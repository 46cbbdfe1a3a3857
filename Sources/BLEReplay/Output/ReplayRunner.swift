import BLECore

/// What `blereplay replay` was asked to do (the command line, parsed).
public struct ReplayRequest: Sendable {
    public var configuration = ReplayConfiguration()
    public var script: CentralScript?
    public var runs: Int?
    public var seed: UInt64 = 0
    public var json = false
    public var junitPath: String?
    public var capturePath: String?
    public var unmatchedGiven = false
    public var bench = false

    public init() {}
}

/// What the command prints and how it ends.
public struct ReplayOutcome: Sendable {
    public enum Status: Sendable { case passed, failed, badInput }
    public var stdout = ""
    public var stderr: [String] = []
    public var status: Status = .passed
}

/// Runs a replay request over the sessions of a timeline: faithful replay by default, a central
/// script with `script`, seeded fault runs with `runs`, the benchmark with `bench`.
public enum ReplayRunner {
    public static func run(_ sessions: [RecordedSession], _ request: ReplayRequest) -> ReplayOutcome {
        if request.bench { return ReplayBench.outcome(sessions) }
        if let script = request.script { return ScriptReplay.outcome(sessions, script: script, request: request) }
        return faithful(sessions, request)
    }

    static func faithful(_ sessions: [RecordedSession], _ request: ReplayRequest) -> ReplayOutcome {
        var outcome = ReplayOutcome()
        var configuration = request.configuration
        if !request.unmatchedGiven { configuration.unmatched = .strict }
        if let runs = request.runs {
            return FaultFuzzer.faithfulOutcome(sessions, configuration: configuration, runs: runs, seed: request.seed, json: request.json)
        }
        var results: [FaithfulReplayResult] = []
        var worlds: [ReplayWorld] = []
        for s in sessions {
            let (r, w) = FaithfulReplay.run(s, configuration: configuration)
            results.append(r)
            worlds.append(w)
        }
        if request.json {
            let doc: JSON = results.count == 1 ? FaithfulReport.json(results[0]) : .array(results.map(FaithfulReport.json))
            outcome.stdout = doc.serialized(pretty: true) + "\n"
        } else {
            for r in results { FaithfulReport.write(r, to: &outcome.stdout) }
        }
        if let path = request.junitPath {
            do { try TextFile.write(FaithfulReport.junit(results).xml(), to: path) } catch {
                outcome.stderr.append("blereplay replay: \(error)")
                outcome.status = .badInput
            }
        }
        if let path = request.capturePath {
            if worlds.count > 1 { outcome.stderr.append("note: the timeline holds \(worlds.count) captures; writing the first one's replay") }
            if let w = worlds.first {
                do { try w.trace.writeBtsnoop(to: path) } catch {
                    outcome.stderr.append("blereplay replay: \(error)")
                    outcome.status = .badInput
                }
            }
        }
        if outcome.status == .passed, !results.allSatisfy(\.passed) { outcome.status = .failed }
        return outcome
    }
}
