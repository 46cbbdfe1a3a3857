#if canImport(Glibc)
import Glibc
import CMalloc
#endif
import BLECore
import BLEReplay

/// `blereplay replay CAPTURE|DB [--central SCRIPT.json] [--inject FAULT]... [--unmatched strict|database|error[:0xNN]]
///  [--anchor events|time] [--seed N] [--runs K] [--junit FILE] [--json] [--write-capture FILE] [--bench]`
///
/// Argument parsing and wiring only; the work is in BLEReplay (Docs/replay.md).
enum ReplayCommand {
    static let usage = "usage: blereplay replay CAPTURE|DB [--central SCRIPT.json] [--inject FAULT]... [--unmatched strict|database|error[:0xNN]] [--anchor events|time] [--seed N] [--runs K] [--junit FILE] [--json] [--write-capture FILE] [--bench]"

    static func run(_ argv: [String]) throws -> ExitCode {
        #if canImport(Glibc)
        // One arena for every thread, set before any thread of this command allocates. The
        // loader's threads (WorkerPool) read each connection's details and extract its scripts in
        // arenas of their own, and what they free before the simulation runs (the central's steps,
        // once in the driver's table) stayed there as holes the simulation's thread never filled:
        // 8 MB of resident memory on the 61,440-link capture (issue 17). Only here: an import's
        // decoding and writing threads allocate at once, and share no arena lock elsewhere.
        _ = mallopt(M_ARENA_MAX, 1)
        #endif
        let args = try Arguments(argv, valued: ["central", "inject", "unmatched", "anchor", "seed", "runs", "junit", "write-capture"],
                                 flagNames: ["json", "bench"], repeatable: ["inject"])
        guard args.positionals.count == 1, let input = args.positionals.first else {
            throw Arguments.UsageError(message: "give one capture or timeline (\(usage))")
        }
        let options = try ReplayOptions(args)
        try SameFile.refuseOverwriting(inputs: [("the input", input)] + (args.value("central").map { [("the central script", $0)] } ?? []),
                                       outputs: ["junit", "write-capture"].compactMap { name in args.value(name).map { ("--" + name, $0) } })
        var loaded: ReplaySource.Loaded
        do {
            loaded = try ReplaySource.load(path: input)
        } catch {
            Err.line("blereplay replay: \(error)")
            return .dataError
        }
        for m in loaded.messages { Err.line(printable: m) }
        // The runner takes the sessions over (it lets what it is done with go, issue 17).
        let sessions = loaded.sessions
        loaded.sessions = []
        // The timeline the long PDUs are read back from (a capture's scratch one) is closed and
        // removed when the command is done, whatever still refers to it. Only the sources are
        // kept here: the sessions themselves are the runner's to let go.
        let pduSources = sessions.compactMap(\.pduSource)
        defer { for source in pduSources { source.close() } }
        var request = options.request
        request.bench = args.flag("bench")
        if let scriptPath = options.scriptPath {
            do {
                request.script = try CentralScript(parsing: TextFile.read(scriptPath), name: scriptPath)
            } catch {
                Err.line("blereplay replay: \(error)")
                return .dataError
            }
        }
        // A faithful replay's report is written as it is made (issue 17).
        let outcome = ReplayRunner.run(consume sessions, request, output: { Out.write($0) })
        if !outcome.stdout.isEmpty { Out.write(outcome.stdout) }
        for line in outcome.stderr { Err.line(printable: line) }
        // Damaged input decides the exit code: a recording cut in the middle diverges because
        // it is cut, so "diverged" (1) would blame the central for the file's damage.
        if loaded.damaged { return .dataError }
        // So does a timeline changed under the replay: a long PDU it could not read back as it was
        // loaded was replayed as its first bytes (issue 17: no silent loss).
        let unreadable = pduSources.reduce(0) { $0 + $1.unreadable }
        if unreadable > 0 {
            Err.line("blereplay replay: \(input): \(unreadable) read(s) of long ATT PDUs found their timeline rows changed or gone (the timeline was written during the replay); their first bytes stood in, so the outcome above is not the recording's")
            return .dataError
        }
        switch outcome.status {
        case .passed: return .success
        case .failed: return .checkFailed
        case .badInput: return .dataError
        }
    }
}

/// The options shared by the replay modes, validated.
struct ReplayOptions {
    var request = ReplayRequest()
    var scriptPath: String?
    var configuration: ReplayConfiguration {
        get { request.configuration }
        set { request.configuration = newValue }
    }

    init(_ args: Arguments) throws(Arguments.UsageError) {
        scriptPath = args.value("central")
        request.junitPath = args.value("junit")
        request.capturePath = args.value("write-capture")
        request.json = args.flag("json")
        for text in args.values("inject") {
            do {
                configuration.faults.append(try FaultSpec(parsing: text))
            } catch {
                throw Arguments.UsageError(message: error.description)
            }
        }
        if let u = args.value("unmatched") {
            request.unmatchedGiven = true
            switch u {
            case "strict": configuration.unmatched = .strict
            case "database": configuration.unmatched = .database
            case "error": configuration.unmatched = .error(.unlikelyError)
            default:
                guard u.hasPrefix("error:"), let n = parseHex(String(u.dropFirst(6))) else {
                    throw Arguments.UsageError(message: "--unmatched takes strict, database, error or error:0xNN, not '\(u)'")
                }
                configuration.unmatched = .error(ATTErrorCode(n))
            }
        }
        if let a = args.value("anchor") {
            guard let anchoring = ReplayConfiguration.Anchoring(rawValue: a) else {
                throw Arguments.UsageError(message: "--anchor takes events or time, not '\(a)'")
            }
            configuration.anchoring = anchoring
        }
        if let s = args.value("seed") {
            guard let n = UInt64(s) else { throw Arguments.UsageError(message: "--seed takes a whole number >= 0, not '\(s)'") }
            request.seed = n
            configuration.seed = n
        }
        if let k = try args.int("runs") {
            guard k >= 1 else { throw Arguments.UsageError(message: "--runs takes a whole number >= 1") }
            // K runs make K replays: which one's capture would be written is no choice to make silently.
            guard request.capturePath == nil else {
                throw Arguments.UsageError(message: "--write-capture writes one replay, not --runs \(k): re-run one run alone with its --inject (printed for each run) to write its capture")
            }
            request.runs = k
        }
        configuration.keepTrace = request.capturePath != nil
    }

    func parseHex(_ s: String) -> UInt8? {
        if s.hasPrefix("0x") || s.hasPrefix("0X") { return UInt8(s.dropFirst(2), radix: 16) }
        return UInt8(s)
    }
}
