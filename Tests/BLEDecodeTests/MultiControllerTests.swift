import BLECore
import Testing
@testable import BLEDecode

/// btmon captures (btsnoop datalink 2001, pcap LINKTYPE 254) record several controllers; each
/// numbers its connection handles on its own (Core v5.4 Vol 4 Part E 5.4.2), so handle 0x0040
/// on hci0 and on hci1 are two connections. The shape is Scripts/blegen/shapes.py
/// `btmon_two_controllers`; tshark 4.0 reads that file as two connections with 9 ATT PDUs, the
/// two split Read Responses each reassembled on its own adapter (frames 15 and 16).
@Suite("Several controllers in one capture")
struct MultiControllerTests {
    private func on(_ controller: UInt16, _ record: CaptureRecord) -> CaptureRecord {
        var r = record
        r.controllerIndex = controller
        return r
    }

    @Test func sameHandleOnTwoControllersIsTwoConnections() throws {
        var decoder = PacketDecoder()
        let a = decoder.decode(on(0, Rec.leConnectionComplete(handle: 0x0040)))
        let b = decoder.decode(on(1, Rec.leConnectionComplete(handle: 0x0040)))
        #expect(a.connection?.index == 1)
        #expect(b.connection?.index == 2)
        // Neither completion replaced the other (no "still open" problem)
        #expect(b.problems.isEmpty)
        let att0 = decoder.decode(on(0, Rec.l2cap(.sent, handle: 0x0040, cid: 0x0004, hx("02 64 00"))))
        let att1 = decoder.decode(on(1, Rec.l2cap(.sent, handle: 0x0040, cid: 0x0004, hx("02 65 00"))))
        #expect(att0.attEvents.first?.connection.index == 1)
        #expect(att1.attEvents.first?.connection.index == 2)
        #expect(decoder.connectionsSeen == 2)
    }

    @Test func fragmentsReassembleOnTheirOwnController() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(on(0, Rec.leConnectionComplete(handle: 0x0040)))
        _ = decoder.decode(on(1, Rec.leConnectionComplete(handle: 0x0040)))
        // Read Response (0x0B) of 16 bytes on each, split after 8 bytes, interleaved
        let pdu0 = hx("10 00 04 00 0B") + Array("controller-zero".utf8)
        let pdu1 = hx("10 00 04 00 0B") + Array("controller-one!".utf8)
        let s0 = decoder.decode(on(0, Rec.acl(.received, handle: 0x0040, pb: 0b10, Array(pdu0[..<8]))))
        let s1 = decoder.decode(on(1, Rec.acl(.received, handle: 0x0040, pb: 0b10, Array(pdu1[..<8]))))
        #expect(s0.problems.isEmpty && s1.problems.isEmpty)
        let c0 = decoder.decode(on(0, Rec.acl(.received, handle: 0x0040, pb: 0b01, Array(pdu0[8...]))))
        let c1 = decoder.decode(on(1, Rec.acl(.received, handle: 0x0040, pb: 0b01, Array(pdu1[8...]))))
        let r0 = try #require(c0.attEvents.first)
        let r1 = try #require(c1.attEvents.first)
        #expect(r0.connection.index == 1 && r0.bytes == Array(pdu0[4...]))
        #expect(r1.connection.index == 2 && r1.bytes == Array(pdu1[4...]))
    }

    @Test func disconnectOnOneControllerLeavesTheOtherOpen() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(on(0, Rec.leConnectionComplete(handle: 0x0040)))
        _ = decoder.decode(on(1, Rec.leConnectionComplete(handle: 0x0040)))
        let gone = decoder.decode(on(1, Rec.disconnectionComplete(handle: 0x0040, reason: 0x08)))
        #expect(gone.disconnections.first?.connection?.index == 2)
        let later = decoder.decode(on(0, Rec.l2cap(.received, handle: 0x0040, cid: 0x0004, hx("1B 0E 00 00 50"))))
        #expect(later.connection?.index == 1)
        #expect(later.foundInProgress.isEmpty)
        #expect(decoder.decode(on(0, Rec.disconnectionComplete(handle: 0x0040, reason: 0x13)))
            .disconnections.first?.connection?.index == 1)
        #expect(decoder.finish().isEmpty)
    }

    @Test func commandResultsMatchTheirOwnController() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(on(0, Rec.leConnectionComplete(handle: 0x0040)))
        _ = decoder.decode(on(1, Rec.leConnectionComplete(handle: 0x0040)))
        // Disconnect (0x0406) handle 0x0040 reason 0x13 sent to controller 1, its Command Status
        _ = decoder.decode(on(1, Rec.cmd(hx("06 04 03 40 00 13"))))
        let status = decoder.decode(on(1, Rec.evt(hx("0F 04 00 01 06 04"))))
        #expect(status.commandResults.first?.connection?.index == 2)
        // The same opcode's status on controller 0 names no connection
        let other = decoder.decode(on(0, Rec.evt(hx("0F 04 00 01 06 04"))))
        #expect(other.commandResults.first?.connection == nil)
    }
}
