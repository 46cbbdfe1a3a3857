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
        var diagnosis = try DiagnosisLoader.load(source.store)
        var selectedNothing = false
        if !filter.isEmpty {
            let outcome = try filter.apply(diagnosis, store: source.store)
            diagnosis = outcome.diagnosis
            if outcome.packetsSelected == 0 {
                Err.line("blereplay diagnose: no packet matches \(PacketFilterOptions.describe(args))")
                selectedNothing = true
            } else if outcome.findingsKept == 0 {
                Err.line("blereplay diagnose: no finding matches \(PacketFilterOptions.describe(args))")
            }
        }
        if args.flag("json") {
            Out.line(DiagnosisRenderer.json(diagnosis).serialized(pretty: true))
        } else {
            Out.write(DiagnosisRenderer.text(diagnosis))
        }
        for r in source.importResults {
            for w in r.warnings { Err.line("warning: \(w)") }
            if let e = r.error { Err.line("error: \(e)") }
        }
        if source.inputWasDamaged { return .dataError }
        if let threshold {
            let all = diagnosis.flatMap { $0.findings + $0.connections.flatMap(\.findings) }
            if all.contains(where: { $0.finding.severity >= threshold }) { return .checkFailed }
        }
        // Packet filters that selected nothing checked nothing: that fails, as it does for `timeline`.
        return selectedNothing ? .checkFailed : .success
    }
}
