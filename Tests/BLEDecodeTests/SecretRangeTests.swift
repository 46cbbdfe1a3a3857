import Testing
import BLECore
@testable import BLEDecode

/// Where the decoder says key material is (`DecodedPacket.secretRanges`), for packets built as
/// Core v5.4 lays them out: positions in the record's payload (no H4 type byte).
@Suite struct SecretRangeTests {
    /// A record at its own frame and file offset (btsnoop H4: payload at fileOffset + 25).
    static func record(_ frame: Int, _ kind: PacketKind, _ direction: Direction, _ payload: [UInt8]) -> CaptureRecord {
        CaptureRecord(frameNumber: frame, timestamp: Int64(frame), direction: direction, kind: kind, payload: payload,
                      fileOffset: 16 + frame * 100)
    }

    static let key = (0..<16).map { UInt8(0xA0 + $0) }

    @Test func leStartEncryptionLTK() {
        // 19 20 1C | 40 00 handle | 8 x Rand | EDIV 34 12 | LTK (16)  (Vol 4 Part E 7.8.24)
        let cmd = hx("19 20 1C 40 00 0102030405060708 3412") + Self.key
        var d = PacketDecoder()
        let p = d.decode(Self.record(1, .command, .sent, cmd))
        #expect(p.secretRanges == [SecretRange(frame: 1, range: 15..<31, what: "LTK")])
    }

    @Test func ltkRequestReplyAndTruncatedCopy() {
        // 1A 20 12 | 40 00 | LTK (7.8.25); a copy cut after 9 key bytes still has those 9 zeroed.
        let cmd = hx("1A 20 12 40 00") + Self.key
        var d = PacketDecoder()
        #expect(d.decode(Self.record(1, .command, .sent, cmd)).secretRanges.map(\.range) == [5..<21])
        #expect(d.decode(Self.record(2, .command, .sent, Array(cmd.prefix(14)))).secretRanges.map(\.range) == [5..<14])
    }

    @Test func bredrLinkKeys() {
        var d = PacketDecoder()
        // Link Key Notification (7.7.24): 18 17 | BD_ADDR 6 | Link_Key 16 | Key_Type 04
        let notification = hx("18 17 0C 0B 0A DC 1B 00") + Self.key + [0x04]
        #expect(d.decode(Self.record(1, .event, .received, notification)).secretRanges.map(\.range) == [8..<24])
        // Write Stored Link Key (7.3.9): 11 0C 2D | 02 | {BD_ADDR, Link_Key} x 2, interleaved (5.2)
        let write = hx("11 0C 2D 02 0C0B0A DC1B00") + Self.key + hx("010203040506") + Self.key
        #expect(d.decode(Self.record(2, .command, .sent, write)).secretRanges.map(\.range) == [10..<26, 32..<48])
        // Link Key Request Reply (7.1.10): 0B 04 16 | BD_ADDR | Link_Key
        let reply = hx("0B 04 16 0C0B0A DC1B00") + Self.key
        #expect(d.decode(Self.record(3, .command, .sent, reply)).secretRanges.map(\.range) == [9..<25])
        // Return Link Keys (7.7.21): 15 17 | 01 | BD_ADDR | Link_Key
        let ret = hx("15 17 01 0C0B0A DC1B00") + Self.key
        #expect(d.decode(Self.record(4, .event, .received, ret)).secretRanges.map(\.range) == [9..<25])
    }

    /// btmon (btsnoop 2001) records carry the HCI packet without a type byte, on a controller
    /// index: the same positions.
    @Test func monitorRecordOnSecondController() {
        var d = PacketDecoder(options: DecoderOptions(payloadOffsetInRecord: 24))
        // Link Key Notification (7.7.24) from controller 1: monitor opcode 3 (event).
        let payload = hx("18 17 0C 0B 0A DC 1B 00") + Self.key + [0x04]
        let record = CaptureRecord(frameNumber: 5, timestamp: 0, direction: .received, kind: .event, payload: payload,
                                   fileOffset: 400, controllerIndex: 1, rawType: 3)
        #expect(d.decode(record).secretRanges == [SecretRange(frame: 5, range: 8..<24, what: "Link Key")])
    }

    @Test func notKeyMaterial() {
        var d = PacketDecoder()
        // LE Long Term Key Request (7.7.65.5): Rand and EDIV name a key; they are not one.
        let request = hx("3E 0D 05 40 00 0102030405060708 3412")
        #expect(d.decode(Self.record(1, .event, .received, request)).secretRanges.isEmpty)
        // LE Create Connection Cancel and an unknown vendor command: nothing.
        #expect(d.decode(Self.record(2, .command, .sent, hx("0E 20 00"))).secretRanges.isEmpty)
        #expect(d.decode(Self.record(3, .command, .sent, hx("01 FC 03 AA BB CC"))).secretRanges.isEmpty)
    }

    @Test func smpKeySplitOverTwoACLFragments() {
        var d = PacketDecoder()
        _ = d.decode(Self.record(1, .event, .received, Rec.leConnectionComplete(handle: 0x0040).payload))
        // Encryption Information (Vol 3 Part H 3.6.2): 06 | LTK, in an L2CAP frame 11 00 06 00.
        let frame = hx("11 00 06 00 06") + Self.key
        // ACL start (PB 0b10): header 40 20 0B 00, L2CAP header and the first 7 PDU bytes.
        let first = hx("40 20 0B 00") + Array(frame.prefix(11))
        // ACL continuation (PB 0b01): header 40 10 0A 00, the remaining 10 key bytes.
        let second = hx("40 10 0A 00") + Array(frame.dropFirst(11))
        #expect(d.decode(Self.record(2, .acl, .received, first)).secretRanges.isEmpty)
        let p = d.decode(Self.record(3, .acl, .received, second))
        #expect(p.summary.contains("Encryption Information"))
        #expect(p.secretRanges == [SecretRange(frame: 2, range: 9..<15, what: "LTK"),
                                   SecretRange(frame: 3, range: 4..<14, what: "LTK")])
    }

    @Test func debugKeyZeroesBothPublicKeys() {
        var d = PacketDecoder()
        _ = d.decode(Self.record(1, .event, .received, Rec.leConnectionComplete(handle: 0x0040).payload))
        func publicKey(_ frame: Int, _ key: [UInt8], _ direction: Direction) -> DecodedPacket {
            let l2cap = hx("41 00 06 00 0C") + key
            return d.decode(Self.record(frame, .acl, direction, hx("40 20 45 00") + l2cap))
        }
        let ordinary = (0..<64).map { UInt8($0) }
        // An ordinary public key first: public, nothing to zero yet.
        #expect(publicKey(2, ordinary, .received).secretRanges.isEmpty)
        // The other side answers with the debug key: both keys go, the earlier record's too.
        let debug = publicKey(3, SMPKeyMaterial.debugPublicKey, .sent)
        #expect(debug.summary.contains("debug key"))
        #expect(debug.secretRanges.map(\.frame) == [2, 3])
        #expect(debug.secretRanges.map(\.range) == [9..<73, 9..<73])
    }

    @Test func ordinaryScPairingKeepsPublicKeysAndDHKeyCheck() {
        var d = PacketDecoder()
        _ = d.decode(Self.record(1, .event, .received, Rec.leConnectionComplete(handle: 0x0040).payload))
        let pk = d.decode(Self.record(2, .acl, .sent, hx("40 20 45 00 41 00 06 00 0C") + (0..<64).map { UInt8($0) }))
        #expect(pk.secretRanges.isEmpty)
        let check = d.decode(Self.record(3, .acl, .sent, hx("40 20 15 00 11 00 06 00 0D") + Self.key))
        #expect(check.secretRanges.isEmpty)
        let random = d.decode(Self.record(4, .acl, .sent, hx("40 20 15 00 11 00 06 00 04") + Self.key))
        #expect(random.secretRanges == [SecretRange(frame: 4, range: 9..<25, what: "Pairing Random")])
    }

    @Test func zeroingKeepsLength() {
        var payload = hx("1A 20 12 40 00") + Self.key
        let changed = Redaction.zero(&payload, frame: 7, [SecretRange(frame: 7, range: 5..<40, what: "LTK"),
                                                          SecretRange(frame: 8, range: 0..<5, what: "other record")])
        #expect(changed)
        #expect(payload == hx("1A 20 12 40 00") + [UInt8](repeating: 0, count: 16))
    }
}
