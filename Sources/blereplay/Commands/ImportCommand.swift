import BLECore
import BLEAnalysis
import BLETimeline

/// `blereplay import CAPTURE... [--db FILE] [--no-raw] [--keep-keys] [--timings]`
enum ImportCommand {
    static func run(_ argv: [String]) throws -> ExitCode {
        let args = try Arguments(argv, valued: ["db"], flagNames: ["no-raw", "keep-keys", "quiet", "timings"])
        guard !args.positionals.isEmpty else {
            throw Arguments.UsageError(message: "no capture given (usage: blereplay import CAPTURE... [--db FILE])")
        }
        let dbPath = args.value("db") ?? "blereplay.db"
        var timer: (@Sendable (String, Double) -> Void)?
        if args.flag("timings") {
            timer = { stage, seconds in Err.line("timing: \(stage): \(TextFormat.fixed(seconds, 3)) s") }
        }
        var options = ImportOptions(keepRaw: !args.flag("no-raw"), keepKeys: args.flag("keep-keys"), progress: true,
                                    stageTimer: timer)
        options.analysisJobs = WorkerPool.processorCount
        let results: [CaptureImportResult]
        do {
            results = try Importer.importCaptures(args.positionals, into: dbPath, options: options) { store in
                try Analyzer.analyze(store)
            }
        } catch {
            Err.line(printable: "blereplay import: \(error)")
            return .dataError
        }
        var worst = ExitCode.success
        let quiet = args.flag("quiet")
        for r in results {
            switch r.status {
            case .imported where quiet, .alreadyPresent where quiet:
                break
            case .imported:
                Out.line(printable: "imported \(r.path): \(r.records) records, \(r.formatDescription ?? "")" +
                         (r.malformedPackets > 0 ? ", \(r.malformedPackets) malformed" : ""))
            case .alreadyPresent:
                Out.line(printable: "skipped \(r.path): already in \(dbPath)"
                         + (r.phoneIdentityAdded ? "; phone identity added from \(r.path.split(separator: "!").first.map(String.init) ?? r.path)" : ""))
            case .partial:
                if !quiet { Out.line(printable: "imported \(r.path) up to the damage: \(r.records) records") }
                worst = .dataError
            case .failed:
                worst = .dataError
            }
            for w in r.warnings { Err.line(printable: "warning: \(w)") }
            if let e = r.error { Err.line(printable: "error: \(e)") }
        }
        if !quiet, results.contains(where: { $0.status == .imported || $0.status == .partial || $0.status == .alreadyPresent }) {
            Out.line(printable: "timeline: \(dbPath)")
        }
        return worst
    }
}
