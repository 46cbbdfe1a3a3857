import BLECore
import BLEReport
import BLETimeline
import BLEWarehouse

/// `blereplay report INPUT... [-o DIR] [--format html,md,json,csv] [--jobs N]`
///
/// Reads captures and timelines (directories recursively, captures imported in parallel),
/// counts error codes across them, writes the report files and prints a short summary.
/// Exit 0 when every input was read; 65 when an input was unreadable or corrupt (each is named on
/// stderr; the report is still written for the rest, unless nothing could be read); 2 on a usage
/// error. A capture whose last record is cut short (a log still being written) is a warning, as
/// for `import`, not damage.
///
/// `blereplay report --warehouse URL [--since T] [--until T]` writes the same files from the
/// captures in a PostgreSQL warehouse, every figure computed by the server (`WarehouseReport`);
/// exit 69 when it is unreachable, 65 when it holds no capture in the window.
enum ReportCommand {
    static let usage = "usage: blereplay report INPUT... [-o DIR] [--format html,md,json,csv] [--jobs N]\n"
        + "       blereplay report --warehouse URL [-o DIR] [--format html,md,json,csv] [--since T] [--until T]"

    static func run(_ argv: [String]) throws -> ExitCode {
        let args = try Arguments(argv, valued: ["o", "output", "format", "jobs", "warehouse", "since", "until"], flagNames: ["quiet"])
        var warehouse: WarehouseURL?
        if args.value("warehouse") != nil || args.positionals.isEmpty { warehouse = try WarehouseOptions.url(args) }
        if warehouse != nil && !args.positionals.isEmpty {
            throw Arguments.UsageError(message: "give INPUT files or --warehouse URL, not both (\(usage))")
        }
        guard !args.positionals.isEmpty || warehouse != nil else {
            throw Arguments.UsageError(message: "give at least one capture, timeline or directory (\(usage))")
        }
        if warehouse == nil && (args.value("since") != nil || args.value("until") != nil) {
            throw Arguments.UsageError(message: "--since and --until select captures of a warehouse (--warehouse URL)")
        }
        let formats: Set<ReportFormat>
        if let list = args.value("format") {
            guard let parsed = ReportFormat.parse(list) else {
                throw Arguments.UsageError(message: "--format takes a list of html, md, json, csv, not '\(list)'")
            }
            formats = parsed
        } else {
            formats = Set(ReportFormat.allCases)
        }
        let jobs = try args.int("jobs") ?? WorkerPool.processorCount
        guard jobs >= 1 else { throw Arguments.UsageError(message: "--jobs takes a number of at least 1") }
        let directory = args.value("o") ?? args.value("output") ?? "Reports"
        if let warehouse {
            return try fromWarehouse(warehouse, args: args, directory: directory, formats: formats)
        }

        FleetReader.raiseOpenFileLimit()
        let result = try FleetReader.read(args.positionals, options: .init(jobs: jobs, progress: true))
        var damaged: [String] = []
        for outcome in result.outcomes {
            if outcome.status == .failed {
                Err.line("blereplay report: not read: \(outcome.reason ?? outcome.path)")
                damaged.append(outcome.path)
            } else if Self.isCorrupt(outcome) {
                Err.line("blereplay report: corrupt, read up to the damage: \(outcome.reason ?? outcome.path)")
                damaged.append(outcome.path)
            }
            for w in outcome.warnings { Err.line("warning: \(w)") }
        }
        guard !result.captures.isEmpty else {
            Err.line("blereplay report: no input could be read; no report written")
            return .dataError
        }
        let statistics = FleetStatistics.build(inputs: result.outcomes, captures: result.captures)
        let written = try ReportWriter.write(statistics, to: directory, formats: formats)
        if !args.flag("quiet") {
            Out.write(ReportSummary.text(statistics, written: written))
        }
        guard damaged.isEmpty else {
            Err.line("blereplay report: \(damaged.count) input(s) unreadable or corrupt (the report covers the rest): "
                     + damaged.joined(separator: ", "))
            return .dataError
        }
        return .success
    }

    static func fromWarehouse(_ url: WarehouseURL, args: Arguments, directory: String, formats: Set<ReportFormat>) throws -> ExitCode {
        let since = try WarehouseOptions.bound(args, "since"), until = try WarehouseOptions.bound(args, "until")
        try PacketFilterOptions.checkWindow(since: since.map(TimeBound.absolute), until: until.map(TimeBound.absolute))
        let statistics: FleetStatistics
        do throws(WarehouseError) {
            let db = try PostgresConnection(url)
            guard let version = try WarehouseSchema.installedVersion(db) else {
                Err.line("blereplay report: the warehouse holds no blereplay schema yet (run blereplay ingest first); no report written")
                return .dataError
            }
            if version != WarehouseSchema.version { try WarehouseSchema.prepare(db) }
            statistics = try WarehouseReport.statistics(db, since: since, until: until)
        } catch {
            return WarehouseOptions.fail("report", error)
        }
        guard !statistics.captures.isEmpty else {
            Err.line("blereplay report: the warehouse holds no capture" + (since != nil || until != nil ? " in that window" : "") + "; no report written")
            return .dataError
        }
        let written = try ReportWriter.write(statistics, to: directory, formats: formats)
        if !args.flag("quiet") {
            Out.write(ReportSummary.text(statistics, written: written))
        }
        return .success
    }

    /// Read only up to damage in the middle: a capture import that stopped on an error, or a
    /// timeline holding a capture imported so.
    static func isCorrupt(_ outcome: InputOutcome) -> Bool {
        guard outcome.status == .partial else { return false }
        return outcome.reason != nil || outcome.warnings.contains { $0.hasSuffix(": corrupt") }
    }
}
