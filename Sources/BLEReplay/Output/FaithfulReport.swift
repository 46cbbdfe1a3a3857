import BLECore

/// Renders faithful-replay results as text, JSON and JUnit (Docs/replay.md "Output").
public enum FaithfulReport {
    /// Why a fault that never fired fails the run.
    static let neverFiredReason = "(nothing it matches happened in the replay: the run tested nothing it was asked to, so it fails)"

    public static func text(_ r: FaithfulReplayResult) -> String {
        var out = ""
        write(r, to: &out)
        return out
    }

    /// Appends `text(r)` to `out`, a line at a time: a list of lines joined at the end held the
    /// text three times over, 73 MB of a replay of 61,440 links (issue 17).
    public static func write(_ r: FaithfulReplayResult, to out: inout String) {
        func line(_ s: String) {
            out += s
            out += "\n"
        }
        line("replay \(r.session) (faithful: the recorded central against the recorded peripherals)")
        for v in r.verdicts {
            let status = v.reproduced ? "reproduced" : v.captureGap != nil ? "CAPTURE GAP" : "DIVERGED"
            var head = "  connection \(v.connectionID)  handle \(hex(v.handle, width: 4))  \(v.peer)  \(v.kind): \(status)"
            if v.kind.hasSuffix("attempt") {
                head += " (\(v.recordedEnd))"
                line(head)
                continue
            }
            head += " - \(v.simulatedPDUs)/\(v.recordedPDUs) ATT PDUs, \(v.simulatedEnd)"
            if v.reproduced { head += ", timing within \(VirtualDuration.short(v.maxTimingError))" }
            line(head)
            if let rule = v.endingRule { line("      peripheral: \(rule)") }
            if let d = v.divergence {
                line("      first divergence (\(d.kind)) at \(TimeLabel.intoConnection(d.time, v.connectionID)):")
                line("        expected: \(d.expected)\(d.expectedPacketID.map { " (packet \($0))" } ?? "")")
                line("        got:      \(d.got)\(d.gotFrame.map { " (simulated frame \($0))" } ?? "")")
            }
            if let gap = v.captureGap { line("      capture gap (the capture cannot settle this connection): \(gap)") }
            for n in v.notes { line("      note: \(n)") }
        }
        for f in r.firedFaults { line("  fault fired: \(f)") }
        for f in r.unfiredFaults { line("  FAULT NEVER FIRED: \(f)  \(Self.neverFiredReason)") }
        for n in r.notes { line("  note: \(n)") }
        let ok = r.verdicts.filter(\.reproduced).count
        let gaps = r.verdicts.filter { !$0.reproduced && $0.captureGap != nil }.count
        let gapText = gaps > 0 ? "\(gaps) capture gap(s), " : ""
        let unfired = r.unfiredFaults.isEmpty ? "" : "\(r.unfiredFaults.count) fault(s) never fired; "
        line("  \(r.verdicts.count) connection(s): \(ok) reproduced, \(gapText)\(r.verdicts.count - ok - gaps) diverged; " + unfired
                     + "\(r.eventsRun) events, \(VirtualDuration.short(r.simulatedSpan)) simulated")
    }

    public static func json(_ r: FaithfulReplayResult) -> JSON {
        .object([
            ("capture", .string(r.session)),
            ("path", .string(r.path)),
            ("mode", .string("faithful")),
            ("reproduced", .bool(r.allReproduced)),
            ("connections", .array(r.verdicts.map(json))),
            ("passed", .bool(r.passed)),
            ("faults_fired", .array(r.firedFaults.map { .string($0) })),
            ("faults_never_fired", .array(r.unfiredFaults.map { .string($0) })),
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
            ("duration_us", .int(v.duration)),
            ("peripheral_ending", v.endingRule.map { .string($0) } ?? .null),
            ("capture_gap", v.captureGap.map { .string($0) } ?? .null),
        ]
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
            for v in r.verdicts {
                var failure: (String, String)?
                if let d = v.divergence {
                    failure = ("\(d.kind): expected \(d.expected), got \(d.got)",
                               "first divergence at \(TimeLabel.intoConnection(d.time, v.connectionID))\n"
                               + "expected: \(d.expected)\(d.expectedPacketID.map { " (packet \($0))" } ?? "")\n"
                               + "got: \(d.got)\(d.gotFrame.map { " (simulated frame \($0))" } ?? "")")
                }
                cases.append(.init(className: "replay.\(r.session)",
                                   name: "connection \(v.connectionID) \(v.peer) handle \(hex(v.handle, width: 4)) (\(v.kind))",
                                   time: Double(v.duration) / 1e6, failure: failure))
            }
            for f in r.unfiredFaults {
                cases.append(.init(className: "replay.\(r.session)", name: "fault \(f) fires", time: 0,
                                   failure: ("the fault never fired", "--inject '\(f)' \(Self.neverFiredReason)")))
            }
        }
        let notes = results.flatMap { r in
            r.verdicts.flatMap { v in v.notes.map { "connection \(v.connectionID): \($0)" } } + r.notes
        }
        return JUnitReport(suiteName: "blereplay replay", cases: cases, notes: notes)
    }
}
