import BLECore
import BLELive

/// `blereplay record SOURCE [-o FILE.btsnoop|FILE.pcap] [--db FILE] …` (Docs/record.md): records
/// a live source into a btsnoop or pcap file and a timeline that other commands can read meanwhile.
enum RecordCommand {
    static let usage = """
        usage: blereplay record (--monitor | --follow FILE | --stdin | --tcp HOST:PORT) [-o FILE.btsnoop|FILE.pcap] [--db FILE]
               [--rotate SIZE|DURATION] [--address AA:BB:CC:DD:EE:FF] [--le-only] [--until-idle SECONDS]
               [--retries N] [--no-raw] [--quiet]
        """

    enum SourceChoice: Equatable {
        case monitor
        case follow(String)
        case stdin
        case tcp(host: String, port: UInt16)
    }

    /// The validated command line.
    struct Plan {
        var source: SourceChoice
        var options: RecordingOptions
        var untilIdleMilliseconds: Int?
        var retries: Int
        var quiet: Bool
    }

    static func parse(_ argv: [String]) throws(Arguments.UsageError) -> Plan {
        let args = try Arguments(argv, valued: ["o", "db", "follow", "tcp", "rotate", "address", "until-idle", "retries"],
                                 flagNames: ["monitor", "stdin", "le-only", "no-raw", "quiet"])
        guard args.positionals.isEmpty else {
            throw Arguments.UsageError(message: "unexpected argument '\(args.positionals[0])'\n\(usage)")
        }
        var choices: [SourceChoice] = []
        if args.flag("monitor") { choices.append(.monitor) }
        if let path = args.value("follow") { choices.append(.follow(path)) }
        if args.flag("stdin") { choices.append(.stdin) }
        if let endpoint = args.value("tcp") {
            guard let (host, port) = TCPSource.parseEndpoint(endpoint) else {
                throw Arguments.UsageError(message: "--tcp takes HOST:PORT (or [IPv6]:PORT), not '\(endpoint)'")
            }
            choices.append(.tcp(host: host, port: port))
        }
        guard choices.count == 1, let source = choices.first else {
            throw Arguments.UsageError(message: "give exactly one source: --monitor, --follow FILE, --stdin or --tcp HOST:PORT\n\(usage)")
        }
        var options = RecordingOptions(outputPath: args.value("o"), databasePath: args.value("db"), keepRaw: !args.flag("no-raw"))
        guard options.outputPath != nil || options.databasePath != nil else {
            throw Arguments.UsageError(message: "nothing to write: give -o FILE.btsnoop, --db FILE, or both")
        }
        // The file's format follows its name (`RecordingFileFormat`); one it cannot write is
        // refused before anything is recorded.
        if let path = options.outputPath, RecordingFileFormat.forOutput(path) == nil {
            throw Arguments.UsageError(message: RecordingFileFormat.refusal(path))
        }
        // By the file, not the spelling (`--follow link.log -o target.log`, `./x` and `x`, a hard
        // link): an output that is the followed file fed itself forever, and -o and --db naming one
        // file wrote a btsnoop header where the timeline should be.
        var inputs: [(role: String, path: String)] = []
        if case .follow(let path) = source { inputs.append(("the followed file", path)) }
        try SameFile.refuseOverwriting(inputs: inputs, outputs: [("-o", options.outputPath), ("--db", options.databasePath)]
            .compactMap { option, path in path.map { (option, $0) } })
        if let text = args.value("rotate") {
            guard options.outputPath != nil else { throw Arguments.UsageError(message: "--rotate needs -o FILE.btsnoop or -o FILE.pcap") }
            do {
                options.rotation = try RotationPolicy(parsing: text)
            } catch {
                throw Arguments.UsageError(message: error.message)
            }
        }
        if let text = args.value("address") {
            guard let address = BluetoothAddress(text) else {
                throw Arguments.UsageError(message: "--address takes AA:BB:CC:DD:EE:FF, not '\(text)'")
            }
            options.filter.address = address
        }
        options.filter.leOnly = args.flag("le-only")
        var idle: Int?
        if let text = args.value("until-idle") {
            guard let seconds = Double(text), seconds > 0, seconds < 1e9 else {
                throw Arguments.UsageError(message: "--until-idle takes a number of seconds, not '\(text)'")
            }
            idle = Int(seconds * 1000)
        }
        let retries = try args.int("retries") ?? 5
        guard retries >= 0 else { throw Arguments.UsageError(message: "--retries takes a whole number >= 0") }
        return Plan(source: source, options: options, untilIdleMilliseconds: idle, retries: retries, quiet: args.flag("quiet"))
    }

    static func open(_ choice: SourceChoice, retries: Int) throws(LiveError) -> any LiveSource {
        switch choice {
        case .monitor: try MonitorSource.open()
        case .follow(let path): try FollowSource(path: path)
        case .stdin: StreamSource()
        case .tcp(let host, let port): TCPSource(host: host, port: port, retries: retries)
        }
    }

    static func run(_ argv: [String]) throws -> ExitCode {
        let plan = try parse(argv)
        let source: any LiveSource
        let sink: RecordingSink
        let showStatus = !plan.quiet && StatusLine.isPossible
        do {
            source = try open(plan.source, retries: plan.retries)
            sink = try RecordingSink(options: plan.options, sourceName: source.name, observeTraffic: showStatus)
        } catch {
            Err.line(printable: "blereplay record: \(error)")
            return .dataError
        }
        let stop = StopFlag()
        let signals = SignalStop(flag: stop)
        defer { signals.cancel() }
        let summary = LiveRecorder.run(source: source, sink: sink, stop: stop, untilIdleMilliseconds: plan.untilIdleMilliseconds,
                                       statusLine: showStatus ? StatusLine(source: source.name) : nil) { notice in
            if !plan.quiet { Err.line(printable: "record: \(notice)") }
        }
        return report(summary, quiet: plan.quiet)
    }

    /// Prints what was recorded (stdout; not with `--quiet`) and what went wrong (stderr:
    /// warnings and errors, always); the exit code.
    static func report(_ s: RecordingSummary, quiet: Bool) -> ExitCode {
        for w in s.warnings { Err.line(printable: "warning: \(w)") }
        if !quiet { for n in s.notes { Err.line(printable: "note: \(n)") } }
        if let format = s.format, !quiet {
            let seconds = Double(s.durationMilliseconds) / 1000
            let rounded = (seconds * 10).rounded() / 10
            Out.line(printable: "recorded \(s.records) records from \(s.source) (\(format)) in \(rounded) s")
            if s.filtered > 0 { Out.line(printable: "filtered out \(s.filtered) records (--address / --le-only)") }
            if s.unwritable > 0, let link = s.datalink {
                Out.line(printable: "left out \(s.unwritable) records that btsnoop datalink \(link.rawValue) cannot carry")
            }
            for path in s.outputPaths { Out.line(printable: "\(s.outputKind): \(path)") }
            if let db = s.databasePath { Out.line(printable: "timeline: \(db)") }
        }
        if let failure = s.failure {
            Err.line(printable: "blereplay record: \(failure)")
            return .dataError
        }
        if s.format == nil {
            Err.line(printable: "blereplay record: no data received from \(s.source); nothing written")
            return .dataError
        }
        return .success
    }
}
