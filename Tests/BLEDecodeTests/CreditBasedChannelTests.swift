import BLECore
import Testing
@testable import BLEDecode

/// LE credit-based channels (Core v5.4 Vol 3 Part A 3.4.3, 4.22-4.26) and Enhanced ATT
/// (Vol 3 Part G 5.4: ATT bearers on SPSM 0x0027). Byte layouts from the spec; the shapes are
/// Scripts/blegen/shapes.py `eatt` and `lecoc_ots`. tshark 4.0 does not dissect the Credit
/// Based Connection Request/Response (0x17/0x18, "Unknown command"), so it shows EATT K-frames
/// as bare "Connection oriented channel"; the ATT PDUs here are checked against the spec.
@Suite("LE credit-based channels and Enhanced ATT")
struct CreditBasedChannelTests {
    /// Connection on 0x0040; the host requests two EATT bearers with Source CIDs 0x0040/0x0041,
    /// the peer answers with Destination CIDs 0x0045/0x0046, MPS 23.
    private func eattDecoder() -> PacketDecoder {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // 17 id 1 len 12: SPSM 0027, MTU 64, MPS 64, credits 10, SCIDs 0040 0041 (4.25)
        let request = decoder.decode(Rec.l2cap(.sent, handle: 0x0040, cid: 0x0005,
                                               hx("17 01 0C 00 27 00 40 00 40 00 0A 00 40 00 41 00")))
        #expect(request.problems.isEmpty)
        // 18 id 1 len 12: MTU 64, MPS 23, credits 10, result 0, DCIDs 0045 0046 (4.26)
        let response = decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0005,
                                                hx("18 01 0C 00 40 00 17 00 0A 00 00 00 45 00 46 00")))
        #expect(response.problems.isEmpty)
        return decoder
    }

    @Test func attOnAnEnhancedBearerIsATT() throws {
        var decoder = eattDecoder()
        // K-frame to the peer's CID 0x0045: SDU Length 3, Read Request handle 0x0003
        let read = decoder.decode(Rec.l2cap(.sent, handle: 0x0040, cid: 0x0045, hx("03 00 0A 03 00")))
        let request = try #require(read.attEvents.first)
        #expect(read.layer == .att)
        #expect(request.opcode == .readRequest)
        #expect(request.bytes == hx("0A 03 00"))
        #expect(request.bearer == 0x0040)
        // The response comes back on our CID 0x0040: the same bearer
        let rsp = decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0040, hx("06 00 0B 50 75 6C 73 65")))
        let response = try #require(rsp.attEvents.first)
        #expect(response.opcode == .readResponse)
        #expect(response.bytes == hx("0B") + Array("Pulse".utf8))
        #expect(response.bearer == 0x0040)
        // The second bearer is told apart
        let other = decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0041, hx("01 00 13")))
        #expect(other.attEvents.first?.opcode == .writeResponse)
        #expect(other.attEvents.first?.bearer == 0x0041)
        // The fixed channel has no bearer
        let fixed = decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0004, hx("1B 0E 00 01")))
        #expect(fixed.attEvents.first?.bearer == nil)
    }

    @Test func anSDUInTwoKFramesIsOneATTPDU() throws {
        var decoder = eattDecoder()
        // Write Request of 30 bytes: SDU Length 0x001E then 21 bytes; 9 bytes in the next K-frame
        let write = hx("12 10 00") + (0..<27).map { UInt8($0) }
        let first = decoder.decode(Rec.l2cap(.sent, handle: 0x0040, cid: 0x0046, hx("1E 00") + Array(write[..<21])))
        #expect(first.attEvents.isEmpty)
        #expect(first.problems.isEmpty)
        let second = decoder.decode(Rec.l2cap(.sent, handle: 0x0040, cid: 0x0046, Array(write[21...])))
        let pdu = try #require(second.attEvents.first)
        #expect(pdu.opcode == .writeRequest)
        #expect(pdu.bytes == write)
        #expect(pdu.bearer == 0x0041)
    }

    @Test func aKFrameLongerThanItsSDUIsAProblem() throws {
        var decoder = eattDecoder()
        // SDU Length 2 but 3 bytes follow
        let p = decoder.decode(Rec.l2cap(.sent, handle: 0x0040, cid: 0x0045, hx("02 00 0A 03 00")))
        #expect(p.attEvents.isEmpty)
        #expect(p.problems.count == 1)
        #expect(p.problems.first?.layer == .l2cap)
    }

    @Test func channelsEndWithTheirDisconnection() throws {
        var decoder = eattDecoder()
        // Disconnection Request from the host: DCID 0x0046 (peer's), SCID 0x0041 (ours) (4.6)
        _ = decoder.decode(Rec.l2cap(.sent, handle: 0x0040, cid: 0x0005, hx("06 03 04 00 46 00 41 00")))
        _ = decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0005, hx("07 03 04 00 46 00 41 00")))
        let after = decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0041, hx("01 00 13")))
        #expect(after.attEvents.isEmpty)
        // Bearer 1 still works
        let still = decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0040, hx("01 00 13")))
        #expect(still.attEvents.count == 1)
    }

    @Test func otherPSMsAreNotATT() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // 14 id 1 len 10: LE_PSM 0x0025 (OTS), SCID 0x0040, MTU 512, MPS 247, credits 8 (4.22)
        _ = decoder.decode(Rec.l2cap(.sent, handle: 0x0040, cid: 0x0005, hx("14 01 0A 00 25 00 40 00 00 02 F7 00 08 00")))
        // 15 id 1 len 10: DCID 0x0050, MTU 512, MPS 247, credits 8, result 0 (4.23)
        _ = decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0005, hx("15 01 0A 00 50 00 00 02 F7 00 08 00 00 00")))
        // Payloads that start like ATT (0x0A Read Request, 0x1B notification)
        let out = decoder.decode(Rec.l2cap(.sent, handle: 0x0040, cid: 0x0050, hx("03 00 0A 03 00")))
        let back = decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0040, hx("03 00 1B 0E 00")))
        #expect(out.attEvents.isEmpty && back.attEvents.isEmpty)
        #expect(out.layer == .l2cap && back.layer == .l2cap)
        #expect(out.summary.contains("OTS"))
        #expect(out.problems.isEmpty && back.problems.isEmpty)
    }

    @Test func aRefusedChannelOpensNothing() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        _ = decoder.decode(Rec.l2cap(.sent, handle: 0x0040, cid: 0x0005, hx("17 01 0A 00 27 00 40 00 40 00 0A 00 40 00")))
        // Result 0x0004 (no resources), DCID 0x0000: refused
        _ = decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0005, hx("18 01 0A 00 00 00 00 00 00 00 04 00 00 00")))
        let p = decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0040, hx("03 00 0A 03 00")))
        #expect(p.attEvents.isEmpty)
    }
}
