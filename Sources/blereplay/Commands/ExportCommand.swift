import BLECore
import BLEReport
import BLETimeline

/// `blereplay export DB --format btsnoop|pcap|trace -o FILE [--capture ID]`
///
/// btsnoop (datalink 1002) and pcap (LINKTYPE 201; 187 when the data packets have no direction)
/// write a capture's packets back out from the bytes kept at import; trace writes Chrome
/// trace-event JSON for Perfetto. What the format cannot carry (notes, index records) is left
/// out and counted per kind on stderr, as are data packets of unknown direction written as
/// sent (the format has no "unknown"); both exit 0. Exit 65
/// when the timeline cannot be read or was imported with --no-raw, 2 on a usage error.
enum ExportCommand {
    static let usage = "usage: blereplay export DB --format btsnoop|pcap|trace -o FILE [--capture ID]"

    static func run(_ argv: [String]) throws -> ExitCode {
        let args = try Arguments(argv, valued: ["format", "o", "output", "capture"], flagNames: [])
        guard args.positionals.count == 1, let input = args.positionals.first else {
            throw Arguments.UsageError(message: "give one timeline file (\(usage))")
        }
        guard let format = args.value("format") else {
            throw Arguments.UsageError(message: "--format is required: btsnoop, pcap or trace (\(usage))")
        }
        guard format == "trace" || CaptureExporter.Format(rawValue: format) != nil else {
            throw Arguments.UsageError(message: "--format takes btsnoop, pcap or trace, not '\(format)'")
        }
        guard let output = args.value("o") ?? args.value("output") else {
            throw Arguments.UsageError(message: "-o FILE is required (\(usage))")
        }
        let requested = try args.int("capture").map(Int64.init)
        try SameFile.refuseOverwriting(inputs: [("the timeline read", input)], outputs: [(args.value("o") != nil ? "-o" : "--output", output)])

        let source: TimelineSource
        do {
            source = try TimelineSource(path: input)
        } catch {
            Err.line("blereplay export: \(error)")
            return .dataError
        }
        do {
            if format == "trace" {
                if let requested { _ = try CaptureExporter.choose(source.store, requested: requested) }
                try TraceExporter.write(source.store, captureID: requested, to: output)
                Out.line("wrote \(output): Chrome trace-event JSON (open it in ui.perfetto.dev or chrome://tracing)")
            } else {
                let id = try CaptureExporter.choose(source.store, requested: requested)
                let kind = CaptureExporter.Format(rawValue: format) ?? .btsnoop
                let summary = try CaptureExporter.export(source.store, captureID: id, format: kind, to: output)
                let form = summary.monitor
                    ? (kind == .btsnoop ? "btsnoop v1 datalink 2001 (Linux monitor)" : "pcap LINKTYPE 254 (Linux monitor)")
                    : (kind == .btsnoop ? "btsnoop v1 datalink 1002 (H4)"
                       : summary.withoutDirection ? "pcap LINKTYPE 187 (H4 without direction)" : "pcap LINKTYPE 201 (H4 with direction)")
                Out.line("wrote \(output): \(summary.written) records, \(form)")
                if summary.leftOutTotal > 0 {
                    let kinds = summary.leftOut.map { "\($0.count) \($0.kind.rawValue)" }.joined(separator: ", ")
                    Err.line("blereplay export: left out \(summary.leftOutTotal) of \(summary.written + summary.leftOutTotal) records "
                             + "that \(form) cannot carry: \(kinds)")
                }
                let unknown = summary.unknownWrittenAsSent.reduce(0) { $0 + $1.count }
                if unknown > 0 {
                    let kinds = summary.unknownWrittenAsSent.map { "\($0.count) \($0.kind.rawValue)" }.joined(separator: ", ")
                    let why = kind == .pcap && !summary.monitor
                        ? "the capture mixes them with packets of known direction, which LINKTYPE 187 would lose"
                        : "\(form) has no \"unknown\" direction"
                    Err.line("warning: \(unknown) record(s) have no known direction (\(kinds)) and were written as sent (host to controller): "
                             + "\(why); importing \(output) shows them as sent"
                             + (kind == .btsnoop ? "; --format pcap keeps them unknown (LINKTYPE 187)" : ""))
                }
                if summary.timesClamped > 0 {
                    Err.line("warning: \(summary.timesClamped) record(s) have a time \(form) cannot hold (before 1970 or after 2106): "
                             + "written at the nearest time it holds")
                }
            }
        } catch let e as CaptureExporter.Failure {
            Err.line("blereplay export: \(e.message)")
            return e.isUsage ? .usage : .dataError
        } catch let e as ReportWriter.Failure {
            Err.line("blereplay export: \(e.message)")
            return .dataError
        }
        return .success
    }
}
