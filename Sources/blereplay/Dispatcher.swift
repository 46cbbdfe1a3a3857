/// Routes `blereplay SUBCOMMAND …` to its command.
enum Dispatcher {
    static let usage = """
    usage: blereplay <command> [options]

    commands:
      import CAPTURE... [--db FILE] [--no-raw] [--keep-keys]   decode captures into a SQLite timeline
      timeline CAPTURE|DB [filters] [-v] [--json]              the decoded timeline, one line per packet
      diagnose CAPTURE|DB [--json] [--fail-on warning|error]   per-connection post-mortem with findings
      gatt CAPTURE|DB [--json]                                 reconstructed GATT database per peripheral
      replay CAPTURE|DB [--central SCRIPT] [--inject FAULT]... replay against the recorded peripherals (Docs/replay.md)
      record SOURCE [-o FILE.btsnoop] [--db FILE]              live capture: --monitor, --follow FILE, --stdin, --tcp HOST:PORT (Docs/record.md)
      report INPUT... [-o DIR] [--format html,md,json,csv] [--jobs N]   error-code statistics across captures (Docs/report.md)
      export DB --format btsnoop|pcap|trace -o FILE [--capture ID]    the timeline back out as a capture, or a Perfetto trace
      help                                                     this text

    Exit codes: 0 success, 1 check failed, 2 usage error, 65 unreadable or malformed input.
    """

    static func run(_ argv: [String]) -> ExitCode {
        guard let command = argv.first else {
            Err.line(usage)
            return .usage
        }
        let rest = Array(argv.dropFirst())
        do {
            switch command {
            case "import": return try ImportCommand.run(rest)
            case "timeline": return try TimelineCommand.run(rest)
            case "diagnose": return try DiagnoseCommand.run(rest)
            case "gatt": return try GATTCommand.run(rest)
            case "replay": return try ReplayCommand.run(rest)
            case "record": return try RecordCommand.run(rest)
            case "report": return try ReportCommand.run(rest)
            case "export": return try ExportCommand.run(rest)
            case "help", "-h", "--help":
                Out.line(usage)
                return .success
            default:
                Err.line("blereplay: unknown command '\(command)'\n\n\(usage)")
                return .usage
            }
        } catch let e as Arguments.UsageError {
            Err.line("blereplay \(command): \(e.message)")
            return .usage
        } catch {
            Err.line("blereplay \(command): \(error)")
            return .dataError
        }
    }
}
