import BLECore

/// One expectation (explicit, or the implicit "this step succeeded") and how it came out.
public struct ScriptCheck: Sendable {
    public var label: String
    public var passed: Bool
    public var message: String
    /// Virtual time when it was decided.
    public var time: VirtualTime
}

/// The outcome of running a central script against a capture's peripherals.
public struct ScriptResult: Sendable {
    public var script: String
    public var capture: String
    public var checks: [ScriptCheck]
    /// What happened, in order: connections, disconnections, reconnect attempts, faults.
    public var events: [String]
    /// The steps ran to the end (within the limit).
    public var finished: Bool
    public var eventsRun: Int
    public var simulatedSpan: Int64
    /// Delays waited before each reconnect attempt.
    public var reconnectDelays: [Int64]
    /// What the user should know about the capture the script ran against (e.g. its local
    /// device was the peripheral, so there was no peripheral to drive).
    public var notes: [String] = []
    /// Why the steps did not run to the end (the runner's stop, or the limit), nil when they did.
    public var unfinishedReason: String?

    public var passed: Bool { finished && checks.allSatisfy(\.passed) }
}

/// Renders script results (Docs/replay.md "Output").
public enum ScriptReport {
    public static func text(_ r: ScriptResult) -> String {
        var lines = ["replay \(r.capture) with central script \(r.script)"]
        for n in r.notes { lines.append("  note: \(n)") }
        for e in r.events { lines.append("  \(e)") }
        for c in r.checks {
            lines.append("  \(c.passed ? "ok  " : "FAIL") \(TimeLabel.replay(c.time))  \(c.label): \(c.message)")
        }
        let failed = r.checks.filter { !$0.passed }.count
        lines.append("  \(r.passed ? "PASSED" : "FAILED"): \(r.checks.count) checks, \(failed) failed\(r.finished ? "" : ", script did not finish"); "
                     + "\(r.eventsRun) events, \(VirtualDuration.short(r.simulatedSpan)) simulated")
        // One line each: a device name from the air ("found NAME") cannot split a line or send
        // an escape sequence to the terminal.
        return lines.map(TextFormat.printable).joined(separator: "\n") + "\n"
    }

    public static func json(_ r: ScriptResult) -> JSON {
        .object([
            ("capture", .string(r.capture)),
            ("mode", .string("script")),
            ("script", .string(r.script)),
            ("passed", .bool(r.passed)),
            ("finished", .bool(r.finished)),
            ("checks", .array(r.checks.map { c in
                .object([("label", .string(c.label)), ("passed", .bool(c.passed)), ("message", .string(c.message)),
                         ("replay_time_us", .int(c.time))])
            })),
            ("events", .array(r.events.map { .string($0) })),
            ("reconnect_delays_us", .array(r.reconnectDelays.map { .int($0) })),
            ("events_run", .int(Int64(r.eventsRun))),
            ("simulated_us", .int(r.simulatedSpan)),
            ("notes", .array(r.notes.map { .string($0) })),
        ])
    }

    /// One testcase per expectation; its `time` is how long it took in virtual seconds: from the
    /// previous expectation's decision (or the start) to its own (JUnit's testcase duration).
    public static func junit(_ results: [ScriptResult]) -> JUnitReport {
        var cases: [JUnitReport.TestCase] = []
        for r in results {
            var previous: VirtualTime = 0
            for c in r.checks {
                cases.append(.init(className: "replay.\(r.script)", name: c.label, time: Double(max(0, c.time - previous)) / 1e6,
                                   failure: c.passed ? nil : (c.message, "\(c.label) at \(TimeLabel.replay(c.time)): \(c.message)")))
                previous = max(previous, c.time)
            }
            if !r.finished {
                cases.append(.init(className: "replay.\(r.script)", name: "script finishes", time: Double(max(0, r.simulatedSpan - previous)) / 1e6,
                                   failure: ("the script did not finish", r.unfinishedReason ?? "")))
            }
        }
        return JUnitReport(suiteName: "blereplay replay --central", cases: cases, notes: results.flatMap(\.notes))
    }
}
