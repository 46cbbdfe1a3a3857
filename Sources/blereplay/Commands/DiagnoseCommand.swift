import BLEAnalysis
import BLEReport
import BLETimeline

/// `blereplay diagnose CAPTURE|DB [--json] [--fail-on warning|error] [--severity S] [packet filters]`
enum DiagnoseCommand {
    static func run(_ argv: [String]) throws -> ExitCode {
        let args = try Arguments(argv, valued: PacketFilterOptions.valued.union(["fail-on"]), flagNames: ["json"])
        guard args.positionals.count == 1, let input = args.positionals.first else {
            throw Arguments.UsageError(message: "give one capture or timeline (usage: blereplay diagnose CAPTURE|DB [--json] [--fail-on warning|error] [filters])")
        }
        var threshold: Finding.Severity?
        if let f = args.value("fail-on") {
            guard let s = Finding.Severity(rawValue: f), s != .info else {
                throw Arguments.UsageError(message: "--fail-on takes warning or error, not '\(f)'")
            }
            threshold = s
        }
        var packets = try PacketFilterOptions.filter(args)
        let severity = packets.minimumSeverity.flatMap(Finding.Severity.init(rawValue:))
        packets.minimumSeverity = nil
        let filter = DiagnosisFilter(minimumSeverity: severity, packets: packets.selects ? packets : nil)
        let source: TimelineSource
        do {
            source = try TimelineSource(path: input)
        } catch {
            Err.line("blereplay diagnose: \(error)")
            return .dataError
        }
        // Connection by connection: the diagnosis of tens of thousands of links is never held at once.
        let stream = try DiagnosisStream(store: source.store, filter: filter)
        let kept = try stream.kept()
        var selectedNothing = false
        if let selection = stream.selection {
            if selection.packetsSelected == 0 {
                Err.line("blereplay diagnose: no packet matches \(PacketFilterOptions.describe(args))")
                selectedNothing = true
            } else if kept.findings == 0 {
                Err.line("blereplay diagnose: no finding matches \(PacketFilterOptions.describe(args))")
            }
        }
        let worst = try stream.write(json: args.flag("json"), kept: kept, to: Out.write)
        for r in source.importResults {
            for w in r.warnings { Err.line("warning: \(w)") }
            if let e = r.error { Err.line("error: \(e)") }
        }
        if source.inputWasDamaged { return .dataError }
        if let threshold, let worst, worst >= threshold { return .checkFailed }
        // Packet filters that selected nothing checked nothing: that fails, as it does for `timeline`.
        return selectedNothing ? .checkFailed : .success
    }
}
