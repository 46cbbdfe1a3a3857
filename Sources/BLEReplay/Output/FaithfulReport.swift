import BLECore

/// Renders faithful-replay results as text, JSON and JUnit (Docs/replay.md "Output").
public enum FaithfulReport {
    /// Why a fault that never fired fails the run.
    static let neverFiredReason = "(nothing it matches happened in the replay: the run tested nothing it was asked to, so it fails)"

    public static func text(_ r: FaithfulReplayResult) -> String {
        let out = ReplayTextOutput()
        write(r, to: out)
        return out.text
    }

    /// `text(r)`, written to `out` a line at a time (issue 17: a list of lines joined at the end
    /// held the text three times over, 73 MB of a replay of 61,440 links).
    public static func write(_ r: FaithfulReplayResult, to out: ReplayTextOutput) {
        writeHead(r.session, to: out)
        for v in r.verdicts { write(v, to: out) }
        writeTail(r, to: out)
    }

    /// The report's first line; each connection's lines (`write(_:to:)` of a verdict) follow it
    /// as their verdicts are made, then `writeTail`.
    public static func writeHead(_ session: String, to out: ReplayTextOutput) {
        out.line("replay \(session) (faithful: the recorded central against the recorded peripherals)")
    }

    /// One connection's lines.
    public static func write(_ v: ConnectionVerdict, to out: ReplayTextOutput) {
        let status = v.reproduced ? "reproduced" + (v.comparedUpTo.map { " up to packet \($0)" } ?? "") : v.captureGap != nil ? "CAPTURE GAP" : "DIVERGED"
        var head = "  connection \(v.connectionID)  handle \(hex(v.handle, width: 4))  \(v.peer)  \(v.kind): \(status)"
        if v.kind.hasSuffix("attempt") {
            head += " (\(v.recordedEnd))"
            out.line(head)
            return
        }
        head += " - \(v.simulatedPDUs)/\(v.recordedPDUs) ATT PDUs, \(v.simulatedEnd)"
        // The end compared with is the one diagnose infers: said so, never as one the capture reported.
        if v.endInferred { head += v.reproduced ? " (as inferred on air)" : " (the recorded end inferred on air)" }
        if v.reproduced { head += ", timing within \(VirtualDuration.short(v.maxTimingError))" }
        out.line(head)
        if let rule = v.endingRule {
            // The rule is the recording's: when this run ended otherwise (a fault), it says so.
            // On a link where the local device was the peripheral the rule names the side itself.
            let label = v.localPeripheral ? "ending" : "peripheral"
            out.line(v.endedOtherwise ? "      \(label), as recorded: \(rule) (this run ended otherwise)" : "      \(label): \(rule)")
        }
        if let d = v.divergence {
            out.line("      first divergence (\(d.kind)) at \(TimeLabel.intoConnection(d.time, v.connectionID)):")
            out.line("        expected: \(d.expected)\(d.expectedPacketID.map { " (packet \($0))" } ?? "")")
            out.line("        got:      \(d.got)\(d.gotFrame.map { " (simulated frame \($0))" } ?? "")")
        }
        if let gap = v.captureGap { out.line("      capture gap (the capture cannot settle this connection): \(gap)") }
        for n in v.notes { out.line("      note: \(n)") }
    }

    /// The lines after the connections': faults, notes, and the counts (the result's, whether
    /// or not it kept its verdicts).
    public static func writeTail(_ r: FaithfulReplayResult, to out: ReplayTextOutput) {
        for f in r.firedFaults { out.line("  fault fired: \(f)") }
        for f in r.unfiredFaults { out.line("  FAULT NEVER FIRED: \(f)  \(Self.neverFiredReason)") }
        for n in r.notes { out.line("  note: \(n)") }
        let ok = r.reproducedCount
        let gaps = r.captureGapCount
        let gapText = gaps > 0 ? "\(gaps) capture gap(s), " : ""
        let unfired = r.unfiredFaults.isEmpty ? "" : "\(r.unfiredFaults.count) fault(s) never fired; "
        out.line("  \(r.connectionCount) connection(s): \(ok) reproduced, \(gapText)\(r.connectionCount - ok - gaps) diverged; " + unfired
                 + "\(r.eventsRun) events, \(VirtualDuration.short(r.simulatedSpan)) simulated")
    }

    public static func json(_ r: FaithfulReplayResult) -> JSON {
        .object(jsonFields(r, connections: .array(r.verdicts.map(json))))
    }

    /// The fields of `json(r)`, with `connections` in their place.
    static func jsonFields(_ r: FaithfulReplayResult, connections: JSON) -> [(String, JSON)] {
        [
            ("capture", .string(r.session)),
            ("path", .string(r.path)),
            ("mode", .string("faithful")),
            ("reproduced", .bool(r.allReproduced)),
            ("connections", connections),
            ("passed", .bool(r.passed)),
            ("faults_fired", .array(r.firedFaults.map { .string($0) })),
            ("faults_never_fired", .array(r.unfiredFaults.map { .string($0) })),
            ("events", .int(Int64(r.eventsRun))),
            ("simulated_us", .int(r.simulatedSpan)),
            ("notes", .array(r.notes.map { .string($0) })),
        ]
    }

    /// `json(r).serialized(pretty: true)` as a value nested `indent` levels deep, written to `out`
    /// piece by piece, the connections' values by `connections` (each a `jsonItem`, in order): a
    /// faithful replay makes them as its verdicts are made and spills them (`SpillText`), so they
    /// are never all held at once (issue 17).
    static func writeJSON<E: Error>(_ r: FaithfulReplayResult, indent: Int, hasConnections: Bool, to out: ReplayTextOutput,
                                    connections: () throws(E) -> Void) throws(E) {
        let fields = jsonFields(r, connections: .null)
        out.write("{")
        for (i, (key, value)) in fields.enumerated() {
            if i > 0 { out.write(",") }
            var piece = ""
            JSON.newline(&piece, depth: indent + 1)
            piece += JSON.quote(key)
            piece += ": "
            guard key == "connections" else {
                value.write(into: &piece, pretty: true, indent: indent + 1)
                out.write(piece)
                continue
            }
            guard hasConnections else {
                out.write(piece + "[]")
                continue
            }
            out.write(piece + "[")
            try connections()
            var close = ""
            JSON.newline(&close, depth: indent + 1)
            out.write(close + "]")
        }
        var end = ""
        JSON.newline(&end, depth: indent)
        out.write(end + "}")
    }

    /// The `index`th connection's value in the `connections` list of a result nested `indent`
    /// levels deep, with the comma and line break before it.
    static func jsonItem(_ v: ConnectionVerdict, index: Int, indent: Int) -> String {
        var item = index > 0 ? "," : ""
        JSON.newline(&item, depth: indent + 2)
        json(v).write(into: &item, pretty: true, indent: indent + 2)
        return item
    }

    static func json(_ v: ConnectionVerdict) -> JSON {
        var fields: [(String, JSON)] = [
            ("connection_id", .int(v.connectionID)),
            ("handle", .int(Int64(v.handle))),
            ("peer", .string(v.peer)),
            ("kind", .string(v.kind)),
            ("reproduced", .bool(v.reproduced)),
            ("recorded_att_pdus", .int(Int64(v.recordedPDUs))),
            ("simulated_att_pdus", .int(Int64(v.simulatedPDUs))),
            ("recorded_end", .string(v.recordedEnd)),
            ("simulated_end", .string(v.simulatedEnd)),
            ("max_timing_error_us", .int(v.maxTimingError)),
            ("duration_us", .int(v.duration)),
            ("peripheral_ending", v.endingRule.map { .string($0) } ?? .null),
            ("capture_gap", v.captureGap.map { .string($0) } ?? .null),
        ]
        if let by = v.endNotInCapture {
            // Any capture: the link's handle given to a new link, its end not in the capture.
            fields.append(("recorded_end_not_in_capture", .object([
                ("handle_given_to_new_link_at_packet_id", .int(Int64(by))),
                ("compared_up_to_packet_id", JSON(v.comparedUpTo)),
            ])))
        } else if v.endInferred || v.comparedUpTo != nil {
            // A sniffer's capture: how the air shows the link's end (`AirEnding`); absent on HCI captures.
            fields.append(("recorded_end_on_air", .object([
                ("inferred", .bool(v.endInferred)),
                ("shown", .bool(v.comparedUpTo == nil)),
                ("compared_up_to_packet_id", JSON(v.comparedUpTo)),
                ("finding", v.airFinding.map { .string($0) } ?? .null),
            ])))
        }
        if let d = v.divergence {
            fields.append(("divergence", .object([
                ("kind", .string(d.kind)),
                ("time_into_connection_us", .int(d.time)),
                ("expected", .string(d.expected)),
                ("expected_packet_id", JSON(d.expectedPacketID)),
                ("got", .string(d.got)),
                ("got_frame", JSON(d.gotFrame)),
            ])))
        } else {
            fields.append(("divergence", .null))
        }
        fields.append(("notes", .array(v.notes.map { .string($0) })))
        return .object(fields)
    }

    /// One testcase per connection; its `time` is the simulated connection's duration in virtual seconds.
    public static func junit(_ results: [FaithfulReplayResult]) -> JUnitReport {
        var cases: [JUnitReport.TestCase] = []
        for r in results {
            for v in r.verdicts { cases.append(testCase(v, session: r.session)) }
            for f in r.unfiredFaults { cases.append(testCase(fault: f, r)) }
        }
        var notes: [String] = []
        forEachJUnitNote(results) { notes.append($0) }
        return JUnitReport(suiteName: suiteName, cases: cases, notes: notes)
    }

    static let suiteName = "blereplay replay"

    static func testCase(_ v: ConnectionVerdict, session: String) -> JUnitReport.TestCase {
        var failure: (String, String)?
        if let d = v.divergence {
            failure = ("\(d.kind): expected \(d.expected), got \(d.got)",
                       "first divergence at \(TimeLabel.intoConnection(d.time, v.connectionID))\n"
                       + "expected: \(d.expected)\(d.expectedPacketID.map { " (packet \($0))" } ?? "")\n"
                       + "got: \(d.got)\(d.gotFrame.map { " (simulated frame \($0))" } ?? "")")
        }
        return .init(className: "replay.\(session)",
                     name: "connection \(v.connectionID) \(v.peer) handle \(hex(v.handle, width: 4)) (\(v.kind)\(junitAirQualifier(v)))",
                     time: Double(v.duration) / 1e6, failure: failure)
    }

    /// On a sniffer's capture, what the testcase's name adds: the recorded end inferred on air, or
    /// compared up to the link's last packet (the capture does not show its end).
    static func junitAirQualifier(_ v: ConnectionVerdict) -> String {
        if v.endInferred { return "; recorded end inferred on air" }
        if let last = v.comparedUpTo { return "; up to packet \(last), its end not in the capture" }
        return ""
    }

    static func testCase(fault f: String, _ r: FaithfulReplayResult) -> JUnitReport.TestCase {
        .init(className: "replay.\(r.session)", name: "fault \(f) fires", time: 0,
              failure: ("the fault never fired", "--inject '\(f)' \(Self.neverFiredReason)"))
    }

    /// The suite's notes, each to `body`: each connection's, then the capture's, capture by capture.
    static func forEachJUnitNote(_ results: [FaithfulReplayResult], _ body: (String) -> Void) {
        for r in results {
            for v in r.verdicts {
                for n in v.notes { body("connection \(v.connectionID): \(n)") }
            }
            for n in r.notes { body(n) }
        }
    }
}
