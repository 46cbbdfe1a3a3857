import BLECore
import Foundation
import Testing
@testable import BLEReplay

/// Long values as the recording read them (`LongRead`, Core v5.4 Vol 3 Part G 4.8.3): a Read
/// Response and the Read Blob Responses that continue it. A Read Blob that follows a Read By Type
/// (a read by UUID whose value was cut at ATT_MTU - 4, Vol 3 Part G 4.8.2) continues that value,
/// not an earlier Read Request's. Before, it was joined to the earlier read, and a replay whose
/// MTU differs from the recorded one served that made-up long value instead of the recorded
/// Read Response (att-variety seed 424384 of the soak: expected 19 bytes, got 42).
@Suite struct LongReadTests {
    @Test func aReadBlobAfterAnotherRequestDoesNotContinueTheRead() {
        var l = LongRead()
        // 0A | 08 00 -> 0B | 19 bytes: a whole value (shorter than ATT_MTU 23 - 1).
        let read: PDUBytes = [0x0A, 0x08, 0x00]
        l.answered(read, PDUBytes([0x0B] + Array(repeating: 0x11, count: 19)), occurrence: 1)
        // 08 | 01 00 | FF FF | 19 2A -> 09 | 15 | 08 00 | 19 bytes (cut at ATT_MTU - 4)
        l.answered([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x19, 0x2A], PDUBytes([0x09, 0x15, 0x08, 0x00] + Array(repeating: 0x22, count: 19)),
                   occurrence: 1)
        // 0C | 08 00 | 13 00 (offset 19) -> 0D | 5 bytes: the rest of the Read By Type's value.
        l.answered([0x0C, 0x08, 0x00, 0x13, 0x00], [0x0D, 0x33, 0x33, 0x33, 0x33, 0x33], occurrence: 1)
        #expect(l.values.isEmpty)
    }

    /// A Read Request, then Read Blobs straight after it, still make the long value.
    @Test func readBlobsStraightAfterTheReadMakeTheLongValue() {
        var l = LongRead()
        let read: PDUBytes = [0x0A, 0x08, 0x00]
        l.answered(read, PDUBytes([0x0B] + Array(repeating: 0x11, count: 22)), occurrence: 1)
        l.answered([0x0C, 0x08, 0x00, 0x16, 0x00], [0x0D, 0x44, 0x44], occurrence: 1)
        #expect(l.values[[0x0A, 0x08, 0x00]]?[1] == Array(repeating: 0x11, count: 22) + [0x44, 0x44])
    }

    /// The generator's session that found it reproduces.
    @Test func theSoakSessionReproduces() throws {
        let dir = try GeneratedSession.temporaryDirectory("longread")
        defer { try? FileManager.default.removeItem(at: dir) }
        let s = try #require(try GeneratedSession.generate(seed: 424384, count: 1, shape: "att-variety", into: dir).first)
        #expect(s.links.flatMap(\.shapes).contains("read by type truncated, then read blob"))
        let (r, _) = try GeneratedSessionReplayTests().replay(s)
        let problems = s.problems(r)
        #expect(problems.isEmpty, "\(problems)")
    }
}
