import BLECore
import Testing
@testable import BLEDecode

@Suite("L2CAP LE signalling and BR/EDR")
struct L2CAPSignalingTests {
    struct Fixture: Sendable, CustomTestStringConvertible {
        var bytes: String
        var name: String
        var summary: String
        var result: UInt16?
        var testDescription: String { name }
    }

    /// One LE signalling command per C-frame on CID 0x0005 (Core v5.4 Vol 3 Part A 4):
    /// Code u8, Identifier u8, Length u16, Data.
    static let fixtures: [Fixture] = [
        // 01 Command Reject | 07 id | 02 00 length | 00 00 reason Command not understood
        Fixture(bytes: "01 07 02 00 00 00", name: "Command Reject",
                summary: "Command Reject (id 7) reason 0x0000 Command not understood", result: 0),
        // 06 Disconnection Request | 02 | 04 00 | 40 00 DCID | 41 00 SCID
        Fixture(bytes: "06 02 04 00 40 00 41 00", name: "Disconnection Request",
                summary: "Disconnection Request (id 2) DCID 0x0040 SCID 0x0041"),
        Fixture(bytes: "07 02 04 00 40 00 41 00", name: "Disconnection Response",
                summary: "Disconnection Response (id 2) DCID 0x0040 SCID 0x0041"),
        // 12 Connection Parameter Update Request | 01 | 08 00 | 06 00 min | 0C 00 max | 00 00 latency | C8 00 timeout
        Fixture(bytes: "12 01 08 00 06 00 0C 00 00 00 C8 00", name: "Connection Parameter Update Request",
                summary: "Connection Parameter Update Request (id 1) interval 7.5-15 ms latency 0 timeout 2000 ms"),
        // 13 Connection Parameter Update Response | 01 | 02 00 | 01 00 rejected
        Fixture(bytes: "13 01 02 00 01 00", name: "Connection Parameter Update Response",
                summary: "Connection Parameter Update Response (id 1) rejected", result: 1),
        // 14 LE Credit Based Connection Request | 03 | 0A 00 | 80 00 LE_PSM | 40 00 SCID | 00 02 MTU 512
        // | F7 00 MPS 247 | 0A 00 credits 10
        Fixture(bytes: "14 03 0A 00 80 00 40 00 00 02 F7 00 0A 00", name: "LE Credit Based Connection Request",
                summary: "LE Credit Based Connection Request (id 3) PSM 0x0080 SCID 0x0040 MTU 512 MPS 247 credits 10"),
        // 15 LE Credit Based Connection Response | 03 | 0A 00 | 41 00 DCID | 00 02 | F7 00 | 05 00 | 05 00 result
        Fixture(bytes: "15 03 0A 00 41 00 00 02 F7 00 05 00 05 00", name: "LE Credit Based Connection Response",
                summary: "LE Credit Based Connection Response (id 3) DCID 0x0041 MTU 512 MPS 247 credits 5 result 0x0005 Insufficient Authentication",
                result: 5),
        // 16 Flow Control Credit | 04 | 04 00 | 41 00 CID | 08 00 credits
        Fixture(bytes: "16 04 04 00 41 00 08 00", name: "Flow Control Credit",
                summary: "Flow Control Credit (id 4) CID 0x0041 credits 8"),
        // 17 Credit Based Connection Request | 05 | 0C 00 | 27 00 SPSM EATT | 40 00 MTU 64 | 40 00 MPS
        // | 02 00 credits | 40 00 41 00 SCIDs
        Fixture(bytes: "17 05 0C 00 27 00 40 00 40 00 02 00 40 00 41 00", name: "Credit Based Connection Request",
                summary: "Credit Based Connection Request (id 5) SPSM 0x0027 MTU 64 MPS 64 credits 2 SCIDs 0x0040,0x0041"),
        // 18 Credit Based Connection Response | 05 | 0A 00 | 40 00 | 40 00 | 02 00 | 00 00 result | 50 00 DCID
        Fixture(bytes: "18 05 0A 00 40 00 40 00 02 00 00 00 50 00", name: "Credit Based Connection Response",
                summary: "Credit Based Connection Response (id 5) MTU 64 MPS 64 credits 2 result 0x0000 Successful DCIDs 0x0050",
                result: 0),
        // 19 Credit Based Reconfigure Request | 06 | 06 00 | 00 01 MTU 256 | 40 00 MPS | 50 00 DCID
        Fixture(bytes: "19 06 06 00 00 01 40 00 50 00", name: "Credit Based Reconfigure Request",
                summary: "Credit Based Reconfigure Request (id 6) MTU 256 MPS 64 DCIDs 0x0050"),
        // 1A Credit Based Reconfigure Response | 06 | 02 00 | 00 00
        Fixture(bytes: "1A 06 02 00 00 00", name: "Credit Based Reconfigure Response",
                summary: "Credit Based Reconfigure Response (id 6) result 0x0000", result: 0),
    ]

    @Test(arguments: fixtures)
    func leSignalingCommand(_ f: Fixture) throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        let bytes = hx(f.bytes)
        let p = decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0005, bytes))
        #expect(p.problems.isEmpty)
        #expect(p.layer == .signaling)
        #expect(p.summary == "Rcvd " + f.summary)
        let e = try #require(p.signalingEvents.first)
        #expect(e.code == bytes[0] && e.identifier == bytes[1] && e.name == f.name)
        #expect(e.result == f.result)
        #expect(e.connection == ConnectionRef(index: 1, handle: 0x0040) && e.direction == .received)
        if e.code == 0x12 {
            #expect(e.parameters?.intervalMin == 6 && e.parameters?.intervalMax == 12)
            #expect(e.parameters?.latency == 0 && e.parameters?.timeout == 200)
        } else {
            #expect(e.parameters == nil)
        }
    }

    @Test func signalingLengthDisagreementAndUnknownCode() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // Length says 2, 4 bytes follow
        let long = decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0005, hx("13 01 02 00 00 00 FF FF")))
        #expect(long.problems.count == 1)
        #expect(long.signalingEvents.first?.result == 0)
        // Unknown code 0x40
        let unknown = decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0005, hx("40 01 00 00")))
        #expect(unknown.summary == "Rcvd Unknown signalling code 0x40 (id 1)")
        // Header cut short
        let cut = decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0005, hx("12")))
        #expect(cut.summary.hasPrefix("Rcvd LE signalling (malformed: "))
        #expect(cut.signalingEvents.isEmpty)
        #expect(cut.problems.first?.layer == .signaling)
    }

    /// The CIDs, result and info type of BR/EDR signalling commands (Core v5.4 Vol 3 Part A
    /// 4.3-4.11), the fields Wireshark's Info column shows: e.g. "Configure Response - Failure -
    /// unacceptable parameters (SCID: 0x02c5)", "Disconnection Request (SCID: 0x0142, DCID: 0x0040)".
    @Test func bredrSignalingShowsCIDsAndResults() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.evt(hx("03 0B 00 0B 00 E1 25 0F DC 1B 00 01 00")))
        func rx(_ bytes: String) -> String {
            decoder.decode(Rec.l2cap(.received, handle: 0x000B, cid: 0x0001, hx(bytes))).summary
        }
        // Connection Response pending: DCID 0x0000, SCID 0x0042, result 0x0001, status 0x0000
        #expect(rx("03 01 08 00 00 00 42 00 01 00 00 00") == "Rcvd BR/EDR L2CAP Connection Response (pending, SCID 0x0042)")
        // Configure Request: DCID 0x0040, flags 0x0000, MTU option 672
        #expect(rx("04 02 08 00 40 00 00 00 01 02 A0 02") == "Rcvd BR/EDR L2CAP Configure Request (DCID 0x0040)")
        // Configure Response: SCID 0x02C5, flags 0x0000, result 0x0001 (unacceptable parameters)
        #expect(rx("05 03 06 00 C5 02 00 00 01 00")
                == "Rcvd BR/EDR L2CAP Configure Response (SCID 0x02C5, failure: unacceptable parameters)")
        #expect(rx("05 04 06 00 40 00 00 00 00 00") == "Rcvd BR/EDR L2CAP Configure Response (SCID 0x0040, success)")
        // Disconnection Request/Response: DCID 0x0040, SCID 0x0142
        #expect(rx("06 05 04 00 40 00 42 01") == "Rcvd BR/EDR L2CAP Disconnection Request (SCID 0x0142, DCID 0x0040)")
        #expect(rx("07 05 04 00 40 00 42 01") == "Rcvd BR/EDR L2CAP Disconnection Response (SCID 0x0142, DCID 0x0040)")
        // Information Request/Response: InfoType 0x0002 Extended Features Mask, result 0x0000
        #expect(rx("0A 06 02 00 02 00") == "Rcvd BR/EDR L2CAP Information Request (Extended Features Mask)")
        #expect(rx("0B 06 08 00 02 00 00 00 B8 02 00 00")
                == "Rcvd BR/EDR L2CAP Information Response (Extended Features Mask, success)")
        #expect(rx("0A 07 02 00 03 00") == "Rcvd BR/EDR L2CAP Information Request (Fixed Channels Supported)")
        // Command Reject: reason 0x0000 Command not understood
        #expect(rx("01 08 02 00 00 00") == "Rcvd BR/EDR L2CAP Command Reject (reason 0x0000 Command not understood)")
    }

    @Test func bredrTrafficIsNeverLEATT() throws {
        var decoder = PacketDecoder()
        // Connect Complete, ACL link, handle 0x000B
        _ = decoder.decode(Rec.evt(hx("03 0B 00 0B 00 E1 25 0F DC 1B 00 01 00")))
        // Connection Request on the signalling channel: 02 | 03 id | 04 00 | 03 00 PSM RFCOMM | 42 00 SCID
        let req = decoder.decode(Rec.l2cap(.received, handle: 0x000B, cid: 0x0001, hx("02 03 04 00 03 00 42 00")))
        #expect(req.layer == .bredr)
        #expect(req.summary == "Rcvd BR/EDR L2CAP Connection Request (PSM 0x0003 RFCOMM, SCID 0x0042)")
        #expect(req.signalingEvents.isEmpty)
        // Connection Response: 03 | 03 | 08 00 | 80 04 DCID 0x0480 | 42 00 SCID | 00 00 result | 00 00 status
        let rsp = decoder.decode(Rec.l2cap(.sent, handle: 0x000B, cid: 0x0001, hx("03 03 08 00 80 04 42 00 00 00 00 00")))
        #expect(rsp.summary == "Sent BR/EDR L2CAP Connection Response (success, RFCOMM, SCID 0x0042, DCID 0x0480)")
        // Data each way is named by the channel's PSM
        let rx = decoder.decode(Rec.l2cap(.received, handle: 0x000B, cid: 0x0480, hx("09 EF 01 00")))
        #expect(rx.summary == "Rcvd BR/EDR L2CAP CID 0x0480 (RFCOMM), 4 bytes")
        let tx = decoder.decode(Rec.l2cap(.sent, handle: 0x000B, cid: 0x0042, hx("0B EF 01 00")))
        #expect(tx.summary == "Sent BR/EDR L2CAP CID 0x0042 (RFCOMM), 4 bytes")
        // CID 0x0004 and 0x0006 on BR/EDR are not LE ATT/SMP
        let fake = decoder.decode(Rec.l2cap(.received, handle: 0x000B, cid: 0x0004, hx("1B 01 00 AA")))
        #expect(fake.attEvents.isEmpty && fake.layer == .bredr)
        #expect(fake.summary == "Rcvd BR/EDR L2CAP CID 0x0004, 4 bytes")
        #expect(decoder.decode(Rec.l2cap(.received, handle: 0x000B, cid: 0x0006, hx("05 08"))).smpEvents.isEmpty)
        // CID 0x0007 is the BR/EDR Security Manager (Vol 3 Part H 3.2): 05 08 = Pairing Failed,
        // Unspecified Reason (3.5.5)
        let smp = decoder.decode(Rec.l2cap(.received, handle: 0x000B, cid: 0x0007, hx("05 08")))
        #expect(smp.layer == .smp)
        #expect(smp.smpEvents.first?.code == SMPCode(rawValue: 0x05))
        #expect(smp.smpEvents.first?.connection.index == 1)
        #expect(smp.summary == "Rcvd Pairing Failed: Unspecified Reason (BR/EDR)")
        // After the link closes the channel names are forgotten
        _ = decoder.decode(Rec.disconnectionComplete(handle: 0x000B, reason: 0x13))
        _ = decoder.decode(Rec.evt(hx("03 0B 00 0B 00 E1 25 0F DC 1B 00 01 00")))
        #expect(decoder.decode(Rec.l2cap(.received, handle: 0x000B, cid: 0x0480, hx("09"))).summary
                == "Rcvd BR/EDR L2CAP CID 0x0480, 1 bytes")
    }
}
