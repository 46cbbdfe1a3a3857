import BLEAnalysis
import BLEReport
import BLETimeline

/// `blereplay gatt CAPTURE|DB [--json]`
enum GATTCommand {
    static func run(_ argv: [String]) throws -> ExitCode {
        let args = try Arguments(argv, valued: [], flagNames: ["json"])
        guard args.positionals.count == 1, let input = args.positionals.first else {
            throw Arguments.UsageError(message: "give one capture or timeline (usage: blereplay gatt CAPTURE|DB [--json])")
        }
        let source: TimelineSource
        do {
            source = try TimelineSource(path: input)
        } catch {
            Err.line("blereplay gatt: \(error)")
            return .dataError
        }
        let devices = try DeviceGATT.load(source.store)
        if args.flag("json") {
            Out.line(GATTRenderer.json(devices).serialized(pretty: true))
        } else {
            Out.write(GATTRenderer.text(devices))
        }
        return source.inputWasDamaged ? .dataError : .success
    }
}
