import Foundation
import Testing

/// `replay` of captures whose clock jumps backwards or holds absurd timestamps (issue 17): no
/// time or duration it prints is negative, and it says what happened to the clock.
@Suite("replay clock")
struct ReplayClockCLITests {
    static let timestampShapes = AdversarialCorpusTests.corpus.filter { $0.name.hasPrefix("ts-") }

    @Test(arguments: timestampShapes)
    func noDurationIsNegative(_ entry: AdversarialCorpusTests.Entry) throws {
        let text = try CLI.run(["replay", entry.path])
        #expect([0, 1].contains(text.status), "\(text.stderr.suffix(600))")
        // Durations print as `12 ms`, `+1.5 s into conn 1`, `t+0.2 s (capture)`: never with a minus.
        let negative = try Regex(#"-[0-9][0-9.]* (s|ms|µs)\b"#)
        #expect(text.stdout.firstMatch(of: negative) == nil, "\(text.stdout)")
        let json = try CLI.run(["replay", entry.path, "--json"])
        let negativeField = try Regex(#""[a-z_]*_us": -"#)
        #expect(json.stdout.firstMatch(of: negativeField) == nil, "\(json.stdout)")
        if entry.absurd > 0 { #expect(text.stdout.contains("record(s) with an absurd timestamp"), "\(text.stdout)") }
    }

    /// ts-backwards: 18 records, each an hour earlier than the one before, so 17 step back by an
    /// hour each (the last is 17 h behind the first), each a clock set back: the records after a
    /// step keep their spacing from it, so each is simultaneous with the first, and the session
    /// reproduces.
    @Test func aClockRunningBackwardsIsNamed() throws {
        let entry = try #require(Self.timestampShapes.first { $0.name == "ts-backwards.btsnoop" })
        let r = try CLI.run(["replay", entry.path])
        #expect(r.stdout.contains("note: the capture's clock steps back at 17 record(s) (the largest step 3600 s, at packet 2)"), "\(r.stdout)")
        #expect(r.stdout.contains("where it was set back by more than 1 s (17 time(s))"), "\(r.stdout)")
        #expect(r.stdout.contains("1 connection(s): 1 reproduced"), "\(r.stdout)")
    }
}
