import Foundation
import Testing
import TestSupport
import BLETimeline

/// `mtu-problem` for ATT PDUs longer than ATT_MTU (Core v5.4 Vol 3 Part F 3.2.8: a PDU is at most
/// ATT_MTU octets; with no Exchange MTU it is the LE default, 23). The finding counted only the
/// first 10 such PDUs and gave the largest of those: a link with 13 said "10 PDU(s)" and missed the
/// largest one, sent last.
@Suite("ATT PDUs over the MTU are counted in full")
struct OversizedATTPDUTests {
    /// Packet 1 the LE Connection Complete (the local host central), 2-13 twelve notifications of a
    /// 30-octet value (33-octet PDUs), 14 one of a 40-octet value (43 octets), 15 the disconnect.
    static func capture() -> SpecCapture {
        var c = SpecCapture()
        let h: UInt16 = 0x0040
        c.connectionComplete(0, handle: h, role: 0x00, peer: [0xC0, 0x11, 0x22, 0x33, 0x44, 0x55])
        for i in 0..<12 {
            c.att(Int64(100 + 50 * i), handle: h, [0x1B] + c.le16(0x0010) + Array(repeating: UInt8(i), count: 30), received: true)
        }
        c.att(800, handle: h, [0x1B] + c.le16(0x0010) + Array(repeating: 0xAA, count: 40), received: true)
        c.disconnectionComplete(900, handle: h, reason: 0x13)
        return c
    }

    @Test func everyOversizedPDUIsCountedAndTheFirstTenCited() throws {
        let (directory, store) = try Support.timeline(of: Self.capture())
        defer { Support.remove(directory) }
        let rows = try store.database.rows("""
            SELECT title, detail, evidence_packet_ids FROM finding WHERE code = 'mtu-problem' AND title LIKE 'ATT PDUs larger%'
            """)
        let f = try #require(rows.first)
        #expect(rows.count == 1)
        #expect(f[0].string == "ATT PDUs larger than the negotiated MTU (23)")
        #expect(f[1].string == "13 PDU(s) exceed ATT_MTU 23 (largest 43 bytes): the receiver may drop or truncate them. The first 10 are cited.")
        #expect(f[2].string == "[2,3,4,5,6,7,8,9,10,11]")
    }
}
