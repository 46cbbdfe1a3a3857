import BLECore
import BLETimeline

/// `blereplay timeline CAPTURE|DB [--connection N] [--address A] [--layer L] [--errors] [--capture ID] [-v] [--json]`
enum TimelineCommand {
    static func run(_ argv: [String]) throws -> ExitCode {
        let args = try Arguments(argv, valued: ["connection", "address", "layer", "capture", "limit"],
                                 flagNames: ["errors", "json", "v", "verbose", "keep-keys"])
        guard args.positionals.count == 1, let input = args.positionals.first else {
            throw Arguments.UsageError(message: "give one capture or timeline (usage: blereplay timeline CAPTURE|DB [filters])")
        }
        var filter = PacketFilter()
        filter.connectionID = try args.int("connection").map(Int64.init)
        filter.captureID = try args.int("capture").map(Int64.init)
        filter.limit = try args.int("limit")
        if let a = args.value("address") {
            guard let address = BluetoothAddress(a) else {
                throw Arguments.UsageError(message: "--address takes AA:BB:CC:DD:EE:FF, not '\(a)'")
            }
            filter.address = address.description
        }
        if let l = args.value("layer") {
            let known = ["hci", "acl", "l2cap", "att", "smp", "signaling", "bredr", "note", "other"]
            guard known.contains(l) else {
                throw Arguments.UsageError(message: "--layer is one of \(known.joined(separator: ", "))")
            }
            filter.layer = l
        }
        filter.errorsOnly = args.flag("errors")
        let verbose = args.flag("v") || args.flag("verbose")
        filter.withFields = verbose

        let source: TimelineSource
        do {
            source = try TimelineSource(path: input, options: ImportOptions(keepKeys: args.flag("keep-keys")))
        } catch {
            Err.line("blereplay timeline: \(error)")
            return .dataError
        }
        let json = args.flag("json")
        var out = OutputBuffer()
        try TimelineQuery(store: source.store).forEachPacket(filter) { p in
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
        return source.inputWasDamaged ? .dataError : .success
    }
}
