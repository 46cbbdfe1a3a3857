import BLEAnalysis
import BLECore
import BLEDecode
import BLETimeline
import Foundation
import Testing
import TestSupport

/// A BR/EDR link lost with 0x08 Connection Timeout, explained from its own supervision timeout
/// (Link Supervision Timeout Changed, Core v5.4 Vol 4 Part E 7.7.46: slots of 0.625 ms) and without
/// calling a Number Of Completed Packets after the peer went silent a sign of life (7.7.19:
/// completed is transmitted or flushed). Wave 1 said the timeout was "not in the capture (20 s by
/// default)" and "the link was alive then" 2.5 ms before a 0x08, on a phone's SPP capture.
///
/// The capture, by construction (times in ms): BR/EDR Connection Complete (7.7.3) on handle
/// 0x000B at 0; Link Supervision Timeout Changed 8064 slots = 5040 ms at 10; RFCOMM-channel data
/// from the peer at 1,000 (its last); the host's data at 3,000, counted complete at 6,040;
/// Disconnection Complete 0x08 at 6,050, one timeout after 1,010.
@Suite("BR/EDR link loss")
struct BREDRLinkLossTests {
    static let peer: [UInt8] = [0x00, 0x13, 0xEF, 0xA0, 0x09, 0x10]

    static func capture() -> SpecCapture {
        var c = SpecCapture()
        let h: UInt16 = 0x000B
        // Status, Connection_Handle, BD_ADDR, Link_Type 0x01 ACL, Encryption_Enabled 0.
        c.evt(0, 0x03, [0x00] + c.le16(h) + peer.reversed() + [0x01, 0x00])
        c.evt(10, 0x38, c.le16(h) + c.le16(8064))
        c.l2cap(1_000, handle: h, cid: 0x0049, Array(repeating: 0x55, count: 24), received: true)
        c.l2cap(3_000, handle: h, cid: 0x0480, [0x01, 0x02, 0x03, 0x04], received: false)
        c.evt(6_040, 0x13, [0x01] + c.le16(h) + c.le16(1))
        c.disconnectionComplete(6_050, handle: h, reason: 0x08)
        return c
    }

    @Test func theTimeoutInTheCaptureExplainsTheLoss() throws {
        let (directory, store) = try Support.timeline(of: Self.capture())
        defer { Support.remove(directory) }
        let event = try store.database.rows("SELECT packet_id, detail FROM link_event WHERE name = 'Link Supervision Timeout Changed'")
        #expect(event.first?[0].int == 2 && event.first?[1].string == "timeout_slots=8064 timeout_ms=5040")
        let summary = try store.database.rows("SELECT summary FROM packet WHERE frame = 2").first?[0].string
        #expect(summary == "Rcvd Link Supervision Timeout Changed handle 0x000B, timeout 8064 slots (5040 ms)")
        let finding = try store.database.rows("SELECT detail, evidence_packet_ids FROM finding WHERE code = 'supervision-timeout'")
        #expect(finding.count == 1)
        let detail = finding.first?[0].string ?? ""
        #expect(detail.contains("this BR/EDR link's supervision timeout was 5040 ms (Link Supervision Timeout Changed, packet 2)"), "\(detail)")
        #expect(detail.contains("the peer's last baseband packet came about 5040 ms before the disconnect"), "\(detail)")
        // The host's data was counted 5 s after the peer went silent: flushed, not acknowledged.
        #expect(detail.contains("the last of the host's packets the controller reported complete was"), "\(detail)")
        #expect(!detail.contains("the link was alive then"), "\(detail)")
        #expect(!detail.contains("acknowledged"), "\(detail)")
    }

    @Test func slotsAreExactMilliseconds() {
        #expect(LinkSupervisionTimeout.milliseconds(slots: 8064) == "5040")
        #expect(LinkSupervisionTimeout.milliseconds(slots: 0x7D00) == "20000")
        #expect(LinkSupervisionTimeout.milliseconds(slots: 1) == "0.625")
        #expect(LinkSupervisionTimeout.milliseconds(slots: 0xFFFF) == "40959.375")
    }
}
