/// Routes `blereplay SUBCOMMAND …` to its command.
enum Dispatcher {
    /// `blereplay help`: the command list, from the help table.
    static var usage: String { CommandHelpTable.overview }

    static func run(_ argv: [String]) -> ExitCode {
        guard let command = argv.first else {
            Err.line(usage)
            return .usage
        }
        let rest = Array(argv.dropFirst())
        if command == "--version" {
            Out.line(ToolVersion.text)
            return .success
        }
        if command == "help" || command == "-h" || command == "--help" {
            return help(rest)
        }
        if let help = CommandHelpTable.command(command), Arguments.asksForHelp(rest) {
            Out.line(help.text)
            return .success
        }
        do {
            switch command {
            case "import": return try ImportCommand.run(rest)
            case "timeline": return try TimelineCommand.run(rest)
            case "diagnose": return try DiagnoseCommand.run(rest)
            case "gatt": return try GATTCommand.run(rest)
            case "replay": return try ReplayCommand.run(rest)
            case "record": return try RecordCommand.run(rest)
            case "report": return try ReportCommand.run(rest)
            case "ingest": return try IngestCommand.run(rest)
            case "export": return try ExportCommand.run(rest)
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

    /// `blereplay help [COMMAND]`, and `help --markdown` (Docs/cli.md).
    static func help(_ rest: [String]) -> ExitCode {
        guard let topic = rest.first else {
            Out.line(usage)
            return .success
        }
        if topic == "--markdown" {
            Out.write(CommandHelpTable.markdown)
            return .success
        }
        guard let help = CommandHelpTable.command(topic) else {
            Err.line("blereplay help: unknown command '\(topic)'\n\n\(usage)")
            return .usage
        }
        Out.line(help.text)
        return .success
    }
}
