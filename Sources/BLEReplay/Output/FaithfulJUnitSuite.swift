import BLECapture
import BLECore

/// The JUnit report of faithful replays (`FaithfulReport.junit(_:)`, byte for byte), made a
/// verdict at a time as the verdicts are made: the suite's counts and time add up as they come,
/// the testcases' and notes' text waits in `SpillText`s (issue 17: the suite's counts come before
/// its testcases, and every capture's verdicts were kept to the end for them, 18 MB for 61,424
/// links).
///
/// Order, as `junit(_:)`: capture by capture, each connection's testcase then a testcase for each
/// fault that never fired; in `<system-out>`, capture by capture, each connection's notes then the
/// capture's.
final class FaithfulJUnitSuite {
    private var tests = 0
    private var failures = 0
    /// The sum of the cases' times, in their order (as `JUnitReport.xml()` adds them).
    private var time = 0.0
    private let cases: SpillText
    private let notes: SpillText

    init(limit: Int = 1 << 20) {
        cases = SpillText(limit: limit)
        notes = SpillText(limit: limit)
    }

    /// A connection's verdict, in connection order.
    func add(_ v: ConnectionVerdict, session: String) {
        tests += 1
        if v.divergence != nil { failures += 1 }
        time += Double(v.duration) / 1e6
        cases.append(JUnitReport.xml(FaithfulReport.testCase(v, session: session)))
        for n in v.notes { note("connection \(v.connectionID): \(n)") }
    }

    /// After a capture's verdicts: its faults that never fired, and its notes.
    func finish(_ r: FaithfulReplayResult) {
        for f in r.unfiredFaults {
            tests += 1
            failures += 1
            cases.append(JUnitReport.xml(FaithfulReport.testCase(fault: f, r)))
        }
        for n in r.notes { note(n) }
    }

    private func note(_ n: String) {
        notes.append((notes.isEmpty ? JUnitReport.systemOutOpen : "\n") + JUnitReport.systemOutNote(n))
    }

    /// The document, to `write` in pieces. Once only.
    func write(_ write: (String) -> Void) throws(Errno) {
        write(JUnitReport.head(suiteName: FaithfulReport.suiteName, tests: tests, failures: failures, time: time))
        try cases.drain(write)
        let anyNote = !notes.isEmpty
        try notes.drain(write)
        if anyNote { write(JUnitReport.systemOutClose) }
        write(JUnitReport.tail)
    }
}
