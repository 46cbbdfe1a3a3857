import TestSupport
import Foundation
import Testing
@testable import BLEReport
import BLEAnalysis
import BLETimeline

/// Enhanced ATT (Core v5.4 Vol 3 Part G 5.4): ATT on LE enhanced credit-based channels opened
/// for SPSM 0x0027 with Credit Based Connection Request/Response (Vol 3 Part A 4.25, 4.26). An
/// ATT transaction is per bearer (Part F 3.3.2): two requests outstanding on two bearers pair
/// with the response on their own bearer, whatever the order. The shape is
/// Scripts/blegen/shapes.py `eatt_overlap`.
@Suite("Enhanced ATT bearers")
struct EATTBearerTests {
    static let sensor: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]

    /// A first K-frame (Vol 3 Part A 3.4.3): SDU Length u16, then the SDU.
    static func kFrame(_ sdu: [UInt8]) -> [UInt8] { [UInt8(sdu.count), 0x00] + sdu }

    @Test func transactionsPairPerBearer() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: Self.sensor)
        // 17 | id 01 | len 0E 00 | SPSM 0027 | MTU 64 | MPS 64 | credits 10 | SCIDs 0040 0041
        c.l2cap(110, handle: 0x40, cid: 0x0005, [0x17, 0x01, 0x0E, 0x00, 0x27, 0x00, 0x40, 0x00, 0x40, 0x00, 0x0A, 0x00, 0x40, 0x00, 0x41, 0x00],
                received: false)
        // 18 | id 01 | len 0C 00 | MTU 64 | MPS 64 | credits 10 | result 0 | DCIDs 0045 0046
        c.l2cap(120, handle: 0x40, cid: 0x0005, [0x18, 0x01, 0x0C, 0x00, 0x40, 0x00, 0x40, 0x00, 0x0A, 0x00, 0x00, 0x00, 0x45, 0x00, 0x46, 0x00],
                received: true)
        // Read Request 0003 on bearer 1 (to the peer's 0x0045), Read Request 0005 on bearer 2 (0x0046)
        c.l2cap(200, handle: 0x40, cid: 0x0045, Self.kFrame([0x0A, 0x03, 0x00]), received: false)
        c.l2cap(210, handle: 0x40, cid: 0x0046, Self.kFrame([0x0A, 0x05, 0x00]), received: false)
        // Responses in the other order: bearer 2 (to our 0x0041) first, then bearer 1 (0x0040)
        c.l2cap(250, handle: 0x40, cid: 0x0041, Self.kFrame([0x0B] + Array("two".utf8)), received: true)
        c.l2cap(290, handle: 0x40, cid: 0x0040, Self.kFrame([0x0B] + Array("one".utf8)), received: true)
        c.disconnectionComplete(400, handle: 0x40, reason: 0x13)
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        try c.write(to: dir + "/eatt.btsnoop")
        let store = try Support.timeline([dir + "/eatt.btsnoop"], at: dir + "/t.db")
        let db = store.database
        let pdus = try db.rows("SELECT packet_id, bearer FROM att_pdus ORDER BY packet_id")
        #expect(pdus.map { $0[1].int ?? -1 } == [0x40, 0x41, 0x41, 0x40])
        let t = try db.rows("SELECT request_packet_id, response_packet_id, handle, outcome, latency_us FROM att_transactions ORDER BY request_packet_id")
        #expect(t.map { [$0[0].int ?? 0, $0[1].int ?? 0, $0[2].int ?? 0] } == [[4, 7, 3], [5, 6, 5]])
        #expect(t.allSatisfy { $0[3].string == "ok" })
        #expect(t.map { $0[4].int ?? 0 } == [90_000, 40_000])
    }
}
