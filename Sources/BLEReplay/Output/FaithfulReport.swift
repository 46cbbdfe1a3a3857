import BLECore

/// Renders faithful-replay results as text, JSON and JUnit (Docs/replay.md "Output").
public enum FaithfulReport {
    public static func text(_ r: FaithfulReplayResult) -> String {
        var lines = ["replay \(r.session) (faithful: the recorded central against the recorded peripherals)"]
        for v in r.verdicts {
            let status = v.reproduced ? "reproduced" : v.captureGap != nil ? "CAPTURE GAP" : "DIVERGED"
            var head = "  connection \(v.connectionID)  handle \(hex(v.handle, width: 4))  \(v.peer)  \(v.kind): \(status)"
            if v.kind.hasSuffix("attempt") {
                head += " (\(v.recordedEnd))"
                lines.append(head)
                continue
            }
            head += " - \(v.simulatedPDUs)/\(v.recordedPDUs) ATT PDUs, \(v.simulatedEnd)"
            if v.reproduced { head += ", timing within \(VirtualDuration.short(v.maxTimingError))" }
            lines.append(head)
            if let rule = v.endingRule { lines.append("      peripheral: \(rule)") }
            if let d = v.divergence {
                lines.append("      first divergence (\(d.kind)) at \(VirtualDuration.format(d.time)) into the connection:")
                lines.append("        expected: \(d.expected)\(d.expectedPacketID.map { " (packet \($0))" } ?? "")")
                lines.append("        got:      \(d.got)\(d.gotFrame.map { " (simulated frame \($0))" } ?? "")")
            }
            if let gap = v.captureGap { lines.append("      capture gap (the capture cannot settle this connection): \(gap)") }
            for n in v.notes { lines.append("      note: \(n)") }
        }
        for f in r.firedFaults { lines.append("  fault fired: \(f)") }
        for n in r.notes { lines.append("  note: \(n)") }
        let ok = r.verdicts.filter(\.reproduced).count
        let gaps = r.verdicts.filter { !$0.reproduced && $0.captureGap != nil }.count
        let gapText = gaps > 0 ? "\(gaps) capture gap(s), " : ""
        lines.append("  \(r.verdicts.count) connection(s): \(ok) reproduced, \(gapText)\(r.verdicts.count - ok - gaps) diverged; "
                     + "\(r.eventsRun) events, \(VirtualDuration.short(r.simulatedSpan)) simulated")
        return lines.joined(separator: "\n") + "\n"
    }

    public static func json(_ r: FaithfulReplayResult) -> JSON {
        .object([
            ("capture", .string(r.session)),
            ("path", .string(r.path)),
            ("mode", .string("faithful")),
            ("reproduced", .bool(r.allReproduced)),
            ("connections", .array(r.verdicts.map(json))),
            ("faults_fired", .array(r.firedFaults.map { .string($0) })),
            ("events", .int(Int64(r.eventsRun))),
            ("simulated_us", .int(r.simulatedSpan)),
            ("notes", .array(r.notes.map { .string($0) })),
        ])
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
            ("peripheral_ending", v.endingRule.map { .string($0) } ?? .null),
            ("capture_gap", v.captureGap.map { .string($0) } ?? .null),
        ]
        if let d = v.divergence {
            fields.append(("divergence", .object([
                ("kind", .string(d.kind)),
                ("time_us", .int(d.time)),
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

    /// One testcase per connection.
    public static func junit(_ results: [FaithfulReplayResult]) -> JUnitReport {
        var cases: [JUnitReport.TestCase] = []
        for r in results {
            for v in r.verdicts {
                var failure: (String, String)?
                if let d = v.divergence {
                    failure = ("\(d.kind): expected \(d.expected), got \(d.got)",
                               "first divergence at \(VirtualDuration.format(d.time)) into the connection\n"
                               + "expected: \(d.expected)\(d.expectedPacketID.map { " (packet \($0))" } ?? "")\n"
                               + "got: \(d.got)\(d.gotFrame.map { " (simulated frame \($0))" } ?? "")")
                }
                cases.append(.init(className: "replay.\(r.session)",
                                   name: "connection \(v.connectionID) \(v.peer) handle \(hex(v.handle, width: 4)) (\(v.kind))",
                                   time: 0, failure: failure))
            }
        }
        let notes = results.flatMap { r in
            r.verdicts.flatMap { v in v.notes.map { "connection \(v.connectionID): \($0)" } } + r.notes
        }
        return JUnitReport(suiteName: "blereplay replay", cases: cases, notes: notes)
    }
}
