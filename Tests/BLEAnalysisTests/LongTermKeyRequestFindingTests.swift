import Testing
import TestSupport
import BLETimeline
import BLEAnalysis

/// The `encryption-failed` finding of an LE Long Term Key Request Negative Reply (Core v5.4 Vol 4
/// Part E 7.8.26) names the LE Long Term Key Request it answers (7.7.65.5) by the request's link
/// event, never by the packets' summaries, which are display text.
@Suite("an LTK request refused, found by its link event")
struct LongTermKeyRequestFindingTests {
    static let central: [UInt8] = [0x4F, 0x9A, 0x11, 0x22, 0x33, 0x45]

    /// The local device as peripheral (role 0x01) refuses the central's key request.
    static func capture() -> [UInt8] {
        var c = SpecCapture()
        c.connectionComplete(1000, handle: 0x41, role: 1, peer: central)                                 // 1
        // 3E | 05 LE Long Term Key Request | 41 00 handle | Random_Number (8) | EDIV (2)           2
        c.evt(1080, 0x3E, [0x05, 0x41, 0x00] + [UInt8](repeating: 0, count: 10))
        // 1B 20 LE Long Term Key Request Negative Reply | 41 00 handle                              3
        c.cmd(1081, 0x201B, [0x41, 0x00])
        // 0E Command Complete | 01 | 1B 20 | 00 status | 41 00 handle                               4
        c.evt(1082, 0x0E, [0x01, 0x1B, 0x20, 0x00, 0x41, 0x00])
        c.disconnectionComplete(1500, handle: 0x41, reason: 0x13)                                      // 5
        return c.bytes
    }

    static func evidence(_ db: SQLiteDatabase) throws -> String? {
        try db.rows("SELECT evidence_packet_ids FROM finding WHERE code = 'encryption-failed'").first?[0].string
    }

    @Test func theRequestIsFoundWhateverTheSummariesSay() throws {
        try AnalysedSpecCapture.withTimeline(Self.capture()) { store in
            #expect(try Self.evidence(store.database) == "[2,3]")
            // Every summary reworded (as a decoder change would): the events have not changed.
            try store.database.execute("UPDATE packet SET summary = 'packet ' || frame")
            _ = try Analyzer.analyze(store, force: true)
            #expect(try Self.evidence(store.database) == "[2,3]")
        }
    }
}
