import Testing
import TestSupport
import BLETimeline
import BLEAnalysis

/// An L2CAP PDU whose continuation never came (Core v5.4 Vol 3 Part A 7.2: a start fragment, PB
/// 0b10, whose basic header announces more bytes than it holds) is found incomplete only when a
/// later record shows it cannot complete: a new start fragment on the same handle and direction,
/// or the link's Disconnection Complete. That later record is well formed (tshark marks nothing
/// in it); the problem is the earlier PDU's, recorded at its start fragment's record, and no
/// packet is counted malformed for it.
@Suite("an incomplete L2CAP PDU discarded is its own start fragment's problem")
struct DiscardedPDUProblemTests {
    static let peer: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]

    /// Basic header: length 23 (an ATT Handle Value Notification of 20 value bytes), CID 0x0004,
    /// then only the first 7 of its 23 bytes.
    static let startOfALongPDU: [UInt8] = [23, 0, 0x04, 0x00, 0x1B, 0x03, 0x00, 1, 2, 3, 4]

    static func capture() -> SpecCapture {
        var c = SpecCapture()
        c.connectionComplete(0, handle: 0x40, role: 0, peer: peer)                       // 1
        c.acl(100, handle: 0x40, pb: 0b10, startOfALongPDU, received: true)              // 2: its rest never comes
        c.att(200, handle: 0x40, [0x1B, 0x03, 0x00, 0x41], received: true)              // 3: a new start fragment, a whole PDU
        c.acl(300, handle: 0x40, pb: 0b10, startOfALongPDU, received: true)              // 4: again incomplete
        c.disconnectionComplete(400, handle: 0x40, reason: 0x13)                         // 5: the link's end discards it
        return c
    }

    @Test func theProblemIsTheStartFragmentsAndNoPacketIsMalformedForIt() throws {
        try AnalysedSpecCapture.withTimeline(Self.capture().bytes) { store in
            let db = store.database
            let problems = try db.rows("SELECT packet_id, kind, reason FROM decode_problem WHERE reason LIKE 'incomplete L2CAP PDU discarded%' ORDER BY packet_id")
            #expect(problems.map { $0[0].int } == [2, 4])
            #expect(problems.map { $0[1].string } == ["truncated", "truncated"])
            #expect(problems[0][2].string?.contains("(a new start fragment arrived)") == true)
            #expect(problems[1][2].string?.contains("(disconnection)") == true)
            #expect(try db.scalarInt("SELECT count(*) FROM packet WHERE malformed = 1") == 0)
            #expect(try db.scalarInt("SELECT malformed_packets FROM capture") == 0)
            // The whole notification at 3 is decoded as one.
            #expect(try db.scalarInt("SELECT count(*) FROM att_pdu WHERE packet_id = 3 AND opcode = 0x1B") == 1)
        }
    }
}
