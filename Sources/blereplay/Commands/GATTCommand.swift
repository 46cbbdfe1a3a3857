import BLEAnalysis
import BLECore
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
        // One server at a time, as `GATTRenderer` renders them all: with tens of thousands of
        // links the databases are never held at once.
        if args.flag("json") {
            var doc = JSONStream(sink: Out.write)
            doc.openArray()
            try DeviceGATT.forEach(source.store) { doc.value(GATTRenderer.deviceJSON($0)) }
            doc.close(array: true)
            doc.flush()
            Out.write("\n")
        } else {
            let severalLocal = try DeviceGATT.localServerCount(source.store) > 1
            var text = LineStream(sink: Out.write)
            var none = true
            try DeviceGATT.forEach(source.store) {
                none = false
                text.lines(GATTRenderer.lines($0, severalLocal: severalLocal))
            }
            if none {
                // Ended by a line break, as a device's lines are.
                text.lines([GATTRenderer.noDatabase, ""])
            }
            text.flush()
        }
        return source.inputWasDamaged ? .dataError : .success
    }
}
