import BLECapture
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
    /// What the report's waiting text (`SpillText`) holds in memory before it goes to a file.
    var spillLimit = 1 << 20

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
    /// With `output`, a faithful replay's report goes there as it is made (in blocks, issue 17)
    /// and the outcome's `stdout` stays empty; without, the report is the outcome's `stdout`.
    /// The runner takes `sessions` over: a faithful replay lets each capture's GATT databases and
    /// advertising go once its models are built, when nothing else holds them (issue 17).
    public static func run(_ sessions: consuming [RecordedSession], _ request: ReplayRequest,
                           output: ((String) -> Void)? = nil) -> ReplayOutcome {
        if request.bench { return ReplayBench.outcome(sessions) }
        if let script = request.script { return ScriptReplay.outcome(sessions, script: script, request: request) }
        return faithful(consume sessions, request, output: output)
    }

    /// Replays capture by capture, and writes each connection's text as its verdict is made (the
    /// world stopped). JSON and JUnit name counts before the connections (`reproduced`, the
    /// suite's tests and failures), so each verdict's JSON value and testcase are made as the
    /// verdict is and wait in `SpillText`s (in a temporary file past 1 MiB) until the counts are
    /// known: no verdict is kept (issue 17). Only the first capture's trace is kept for
    /// `--write-capture`.
    static func faithful(_ sessions: consuming [RecordedSession], _ request: ReplayRequest, output: ((String) -> Void)?) -> ReplayOutcome {
        var outcome = ReplayOutcome()
        var configuration = request.configuration
        if !request.unmatchedGiven { configuration.unmatched = .strict }
        if let runs = request.runs {
            return FaultFuzzer.faithfulOutcome(sessions, configuration: configuration, runs: runs, seed: request.seed, json: request.json,
                                                junitPath: request.junitPath)
        }
        let out = ReplayTextOutput(sink: output)
        let json = request.json
        let nested = json && sessions.count != 1
        let indent = nested ? 1 : 0
        let items = SpillText(limit: request.spillLimit)
        let suite = request.junitPath != nil ? FaithfulJUnitSuite(limit: request.spillLimit) : nil
        var trace: HCITraceRecorder?
        var passed = true
        var spillFailure: Errno?
        if nested { out.write("[") }
        let count = sessions.count
        for i in 0..<count {
            if !json { FaithfulReport.writeHead(sessions[i].fileName, to: out) }
            let session = sessions[i].fileName
            var made = 0
            let (r, world) = FaithfulReplay.run(&sessions[i], configuration: configuration, keepingVerdicts: false) { v in
                if json {
                    items.append(FaithfulReport.jsonItem(v, index: made, indent: indent))
                } else {
                    FaithfulReport.write(v, to: out)
                }
                suite?.add(v, session: session)
                made += 1
            }
            suite?.finish(r)
            if json {
                if nested {
                    var separator = i > 0 ? "," : ""
                    JSON.newline(&separator, depth: 1)
                    out.write(separator)
                }
                do throws(Errno) {
                    try FaithfulReport.writeJSON(r, indent: indent, hasConnections: made > 0, to: out) { () throws(Errno) in
                        try items.drain { out.write($0) }
                    }
                } catch {
                    spillFailure = spillFailure ?? error
                }
            } else {
                FaithfulReport.writeTail(r, to: out)
            }
            // Nothing reads the capture's recording after its report.
            sessions[i].connections = []
            if !r.passed { passed = false }
            if i == 0, request.capturePath != nil { trace = world.trace }
        }
        if nested {
            var close = ""
            if count > 0 { JSON.newline(&close, depth: 0) }
            out.write(close + "]")
        }
        if json { out.write("\n") }
        out.flush()
        if output == nil { outcome.stdout = out.text }
        if let spillFailure {
            outcome.stderr.append("blereplay replay: cannot read the report's connections back from its temporary file: \(spillFailure)")
            outcome.status = .badInput
        }
        if let path = request.junitPath, let suite {
            var readBack: Errno?
            do {
                try TextFile.write(to: path) { write in
                    withoutActuallyEscaping(write) { write in
                        let file = ReplayTextOutput(sink: write)
                        do throws(Errno) { try suite.write { file.write($0) } } catch { readBack = error }
                        file.flush()
                    }
                }
                if let readBack {
                    outcome.stderr.append("blereplay replay: \(path): cannot read the testcases back from their temporary file: \(readBack)")
                    outcome.status = .badInput
                }
            } catch {
                outcome.stderr.append("blereplay replay: \(error)")
                outcome.status = .badInput
            }
        }
        if let path = request.capturePath {
            if count > 1 { outcome.stderr.append("note: the timeline holds \(count) captures; writing the first one's replay") }
            if let trace {
                do { try trace.writeBtsnoop(to: path) } catch {
                    outcome.stderr.append("blereplay replay: \(error)")
                    outcome.status = .badInput
                }
            }
        }
        if outcome.status == .passed, !passed { outcome.status = .failed }
        return outcome
    }
}
