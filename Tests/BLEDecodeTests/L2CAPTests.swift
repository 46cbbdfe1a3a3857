import BLECore
import Testing
@testable import BLEDecode

@Suite("ACL reassembly and L2CAP")
struct L2CAPTests {
    /// A 30-byte Handle Value Notification split over 3 ACL packets: one `.att` event,
    /// attributed to the last fragment.
    @Test func notificationInThreeFragments() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        let conn = ConnectionRef(index: 1, handle: 0x0040)
        // ATT PDU: 1B Handle Value Notification | 2A 00 Attribute_Handle 0x002A | 27 value bytes 00…1A
        let value = (0..<27).map { UInt8($0) }
        let att: [UInt8] = [0x1B, 0x2A, 0x00] + value
        // L2CAP basic header: 1E 00 length 30 | 04 00 CID ATT
        let pdu: [UInt8] = [0x1E, 0x00, 0x04, 0x00] + att
        // ACL 1: 40 20 (handle 0x0040, PB 0b10 start) | 0F 00 | first 15 bytes
        let p1 = decoder.decode(Rec.acl(.received, handle: 0x0040, pb: 0b10, Array(pdu[0..<15])))
        // ACL 2: 40 10 (PB 0b01 continuation) | 0F 00 | next 15
        let p2 = decoder.decode(Rec.acl(.received, handle: 0x0040, pb: 0b01, Array(pdu[15..<30])))
        // ACL 3: 40 10 | 04 00 | last 4
        let p3 = decoder.decode(Rec.acl(.received, handle: 0x0040, pb: 0b01, Array(pdu[30...])))

        #expect(p1.summary == "Rcvd ACL fragment (start, 15 of 34 bytes)")
        #expect(p2.summary == "Rcvd ACL fragment (continuation, 30 of 34 bytes)")
        #expect(p1.layer == .acl && p2.layer == .acl)
        #expect(p1.attEvents.isEmpty && p2.attEvents.isEmpty)
        #expect(p1.connection == conn && p2.connection == conn)
        #expect(p1.problems.isEmpty && p2.problems.isEmpty && p3.problems.isEmpty)

        let e = try #require(p3.attEvents.first)
        #expect(p3.attEvents.count == 1)
        #expect(p3.layer == .att)
        #expect(p3.connection == conn)
        #expect(e.connection == conn && e.direction == .received)
        #expect(e.opcode.rawValue == 0x1B)
        #expect(e.bytes == att)
        #expect(e.problem == nil)
        let expected = try ATTPDU(decoding: att[...])
        #expect(p3.summary == "Rcvd " + expected.summary)
    }

    @Test func startFragmentShorterThanTheHeader() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // L2CAP header split: 05 00 | 04 00 1B 01 00 AA BB
        let p1 = decoder.decode(Rec.acl(.received, handle: 0x0040, pb: 0b10, [0x05, 0x00]))
        #expect(p1.summary == "Rcvd ACL fragment (start, 2 bytes)")
        let p2 = decoder.decode(Rec.acl(.received, handle: 0x0040, pb: 0b01, hx("04 00 1B 01 00 AA BB")))
        #expect(p2.attEvents.count == 1)
        #expect(p2.attEvents.first?.bytes == hx("1B 01 00 AA BB"))
        #expect(p2.problems.isEmpty)
    }

    @Test func reassemblyIsPerDirection() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // rx start (7 of 9), then a complete tx PDU, then the rx continuation
        _ = decoder.decode(Rec.acl(.received, handle: 0x0040, pb: 0b10, hx("05 00 04 00 1B 01 00")))
        let tx = decoder.decode(Rec.l2cap(.sent, handle: 0x0040, cid: 0x0004, hx("52 03 00 01")))
        #expect(tx.attEvents.count == 1 && tx.problems.isEmpty)
        let rx = decoder.decode(Rec.acl(.received, handle: 0x0040, pb: 0b01, hx("AA BB")))
        #expect(rx.attEvents.first?.bytes == hx("1B 01 00 AA BB"))
        #expect(rx.problems.isEmpty)
    }

    @Test func newStartWhilePendingDiscardsTheIncompletePDU() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // start of a 34-byte PDU, 15 bytes …
        _ = decoder.decode(Rec.acl(.received, handle: 0x0040, pb: 0b10, hx("1E 00 04 00 1B 2A 00 00 01 02 03 04 05 06 07")))
        // … then a new complete PDU on the same handle and direction
        let p = decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0004, hx("1B 01 00 FF")))
        #expect(p.attEvents.count == 1)
        #expect(p.problems.count == 1)
        let e = p.problems.first
        #expect(e?.layer == .l2cap && e?.kind == .truncated)
        #expect(e?.reason.hasPrefix("incomplete L2CAP PDU discarded") == true)
        #expect(e?.reason.contains("15 of 34 bytes") == true)
        #expect(e?.offset == Rec.base + 4)
    }

    @Test func continuationWithNothingPending() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        let p = decoder.decode(Rec.acl(.received, handle: 0x0040, pb: 0b01, hx("01 02 03")))
        #expect(p.summary == "Rcvd ACL fragment (continuation, 3 bytes, no L2CAP PDU pending: dropped)")
        #expect(p.problems.count == 1)
        #expect(p.problems.first?.layer == .acl)
        #expect(p.problems.first?.offset == Rec.base + 4)
        #expect(p.connection == ConnectionRef(index: 1, handle: 0x0040))
    }

    @Test func excessBytesAreReportedAndThePDUStillDecodes() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // L2CAP length 4, but 6 payload bytes follow: 2 excess at payload byte 4 + 4 + 4 = 12
        let p = decoder.decode(Rec.acl(.received, handle: 0x0040, pb: 0b10, hx("04 00 04 00 1B 01 00 AA EE EE")))
        #expect(p.attEvents.first?.bytes == hx("1B 01 00 AA"))
        #expect(p.problems.count == 1)
        #expect(p.problems.first?.offset == Rec.base + 12)
        #expect(p.problems.first?.layer == .l2cap)
        // Continuation carrying more than announced
        _ = decoder.decode(Rec.acl(.received, handle: 0x0040, pb: 0b10, hx("05 00 04 00 1B 01 00")))
        let q = decoder.decode(Rec.acl(.received, handle: 0x0040, pb: 0b01, hx("AA BB CC")))
        #expect(q.attEvents.first?.bytes == hx("1B 01 00 AA BB"))
        #expect(q.problems.first?.offset == Rec.base + 4 + 2)
        #expect(decoder.reassembler.isEmpty)
    }

    @Test func completePDUFlagAndTruncatedRecords() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // PB 0b11: a complete L2CAP PDU
        let whole = decoder.decode(Rec.acl(.received, handle: 0x0040, pb: 0b11, hx("04 00 04 00 1B 01 00 AA")))
        #expect(whole.attEvents.count == 1 && whole.problems.isEmpty)
        // The capture cut the packet: ACL length 8, 6 bytes present; L2CAP says 4 payload bytes
        let cut = decoder.decode(Rec.aclRx(hx("40 20 08 00 04 00 04 00 1B 01")))
        #expect(cut.attEvents.count == 1)
        #expect(cut.attEvents.first?.bytes == hx("1B 01"))
        #expect(cut.problems.contains { $0.layer == .acl && $0.kind == .truncated && $0.offset == Rec.base + 10 })
        #expect(cut.problems.contains { $0.layer == .l2cap && $0.kind == .truncated })
        #expect(decoder.reassembler.isEmpty)
        // Too short for an ACL header
        let tiny = decoder.decode(Rec.aclRx(hx("40 20")))
        #expect(tiny.summary == "Rcvd ACL (malformed: header cut short)")
    }

    /// An error inside a reassembled PDU names the byte in the fragment that holds it.
    @Test func errorOffsetsPointIntoTheRightFragment() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // LE signalling Connection Parameter Update Request with a 4-byte body (needs 8):
        // 08 00 05 00 | 12 01 04 00 | 06 00 0C 00
        // fragment 1 (record at 1000): 08 00 05 00 12 01   fragment 2 (record at 2000): 04 00 06 00 0C 00
        _ = decoder.decode(Rec.acl(.received, handle: 0x0040, pb: 0b10, hx("08 00 05 00 12 01")))
        var second = Rec.acl(.received, handle: 0x0040, pb: 0b01, hx("04 00 06 00 0C 00"))
        second.fileOffset = 2000
        let p = decoder.decode(second)
        #expect(p.layer == .signaling)
        // Latency is PDU byte 12 = fragment 2 data byte 6 = payload byte 10 of the record at 2000
        let latency = p.problems.first { $0.reason.hasPrefix("Latency") }
        #expect(latency?.offset == 2000 + 25 + 10)
        #expect(p.summary.hasPrefix("Rcvd Connection Parameter Update Request (id 1) (malformed: Latency"))
    }

    @Test func malformedATTIsStillCounted() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // Error Response cut short: 01 | 0A (request opcode) and nothing else
        let p = decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0004, hx("01 0A")))
        let e = try #require(p.attEvents.first)
        #expect(e.pdu == nil && e.problem != nil)
        #expect(e.opcode.rawValue == 0x01)
        #expect(e.bytes == hx("01 0A"))
        #expect(p.problems.count == 1)
        #expect(p.problems.first?.layer == .att)
        #expect(p.layer == .att)
        #expect(p.summary.hasPrefix("Rcvd " + ATTOpcode(rawValue: 0x01).name + " (malformed: "))
    }

    @Test func smpOnCID6() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // 05 Pairing Failed | 08 Unspecified Reason
        let p = decoder.decode(Rec.l2cap(.sent, handle: 0x0040, cid: 0x0006, hx("05 08")))
        let e = try #require(p.smpEvents.first)
        #expect(e.code.rawValue == 0x05 && e.direction == .sent)
        #expect(p.layer == .smp)
        let pdu = try SMPPDU(decoding: hx("05 08")[...])
        #expect(p.summary == "Sent " + pdu.summary(keepKeys: false))
    }

    @Test func leCreditBasedChannelData() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        let p = decoder.decode(Rec.l2cap(.sent, handle: 0x0040, cid: 0x0041, hx("03 00 01 02 03")))
        #expect(p.summary == "Sent L2CAP LE CoC data CID 0x0041, 5 bytes")
        #expect(p.layer == .l2cap)
        #expect(p.events.isEmpty)
    }

    @Test func vendorDiagnosticHandles() {
        var decoder = PacketDecoder()
        // Handle 0x0FF1 is reserved (above 0x0EFF): 46 such packets in android-classic-spp.btsnoop
        let reserved = decoder.decode(Rec.acl(.received, handle: 0x0FF1, pb: 0b10, hx("1C 00 01 00 88 00")))
        #expect(reserved.summary == "Rcvd ACL on reserved handle 0x0FF1, 6 bytes (vendor diagnostics)")
        // 0x0EDC without a Connection Complete: Android/Broadcom controller diagnostics
        let diag = decoder.decode(Rec.acl(.received, handle: 0x0EDC, pb: 0b10, hx("02 00 04 00 0A FF")))
        #expect(diag.summary == "Rcvd ACL on handle 0x0EDC, 6 bytes (controller diagnostics)")
        #expect(diag.attEvents.isEmpty && diag.connection == nil)
        #expect(decoder.connectionsSeen == 0)
    }
}
