import BLEAnalysis
import BLECore
import BLEDecode
import BLEReport
import BLETimeline

/// `blereplay timeline CAPTURE|DB [--connection N] [--address A] [--layer L] [--errors] [--capture ID]
/// [--handle H] [--conn-handle H] [--opcode OP] [--since T] [--until T] [--severity S] [--limit N] [-v] [--json]`
enum TimelineCommand {
    static func run(_ argv: [String]) throws -> ExitCode {
        let args = try Arguments(argv, valued: PacketFilterOptions.valued.union(["layer", "capture", "limit"]),
                                 flagNames: ["errors", "json", "v", "verbose", "keep-keys"])
        guard args.positionals.count == 1, let input = args.positionals.first else {
            throw Arguments.UsageError(message: "give one capture or timeline (usage: blereplay timeline CAPTURE|DB [filters])")
        }
        var filter = try PacketFilterOptions.filter(args)
        filter.captureID = try args.int("capture").map(Int64.init)
        filter.limit = try args.int("limit")
        if let limit = filter.limit, limit < 0 {
            throw Arguments.UsageError(message: "--limit is a count of packets, 0 or more (got \(limit))")
        }
        if let l = args.value("layer") {
            // Every layer a packet row can name, `ll` (a sniffer's link-layer PDUs) among them.
            let known = PacketLayer.allCases.map(\.rawValue)
            guard known.contains(l) else {
                throw Arguments.UsageError(message: "--layer is one of \(known.joined(separator: ", "))")
            }
            filter.layer = l
        }
        filter.errorsOnly = args.flag("errors")
        let verbose = args.flag("v") || args.flag("verbose")
        let json = args.flag("json")
        filter.withFields = verbose || json

        let source: TimelineSource
        do {
            source = try TimelineSource(path: input, options: ImportOptions(keepKeys: args.flag("keep-keys")))
        } catch {
            Err.line("blereplay timeline: \(error)")
            return .dataError
        }
        // A capture the timeline does not hold is the command's mistake, said as export says it (2),
        // not "no packet matches" (1).
        if let requested = filter.captureID {
            do {
                _ = try CaptureExporter.choose(source.store, requested: requested)
            } catch let e as CaptureExporter.Failure {
                Err.line("blereplay timeline: \(e.message)")
                return .usage
            }
        }
        // Decoded values need the GATT tables, --handle the transactions, --severity the findings:
        // the analysis a capture imported on the fly (or an older timeline) has not had yet.
        if filter.withFields || filter.attributeHandle != nil || filter.minimumSeverity != nil {
            try Analyzer.analyze(source.store)
        }
        var out = OutputBuffer()
        var shown = 0
        try TimelineQuery(store: source.store).forEachPacket(filter) { p in
            shown += 1
            if json {
                out.line(p.jsonLine())
            } else {
                out.line(p.textLine())
                if verbose { for l in p.verboseLines() { out.line(l) } }
            }
        }
        out.flush()
        for r in source.importResults {
            for w in r.warnings { Err.line("warning: \(w)") }
            if let e = r.error { Err.line("error: \(e)") }
        }
        if source.inputWasDamaged { return .dataError }
        // A filter that matched nothing says so, and the exit code says it too (as grep's does).
        if shown == 0, filter.selects {
            Err.line("blereplay timeline: no packet matches \(PacketFilterOptions.describe(args))")
            return .checkFailed
        }
        return .success
    }
}
