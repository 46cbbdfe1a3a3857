import BLECore
import Testing
@testable import BLEDecode

@Suite("HCI commands")
struct HCICommandTests {
    @Test func disconnectNamesTheConnectionAndReason() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // 06 04   opcode 0x0406 Disconnect (OGF 0x01, OCF 0x006)
        // 03      parameter length
        // 40 00   Connection_Handle 0x0040
        // 13      Reason 0x13 Remote User Terminated Connection
        let p = decoder.decode(Rec.cmd(hx("06 04 03 40 00 13")))
        #expect(p.summary == "Sent Disconnect handle 0x0040 reason 0x13 Remote User Terminated Connection")
        #expect(p.layer == .hci)
        #expect(p.connection == ConnectionRef(index: 1, handle: 0x0040))
        #expect(p.problems.isEmpty)
        let c = try #require(p.commands.first)
        #expect(c.opcode == 0x0406)
        #expect(c.name == "Disconnect")
        #expect(c.reason == .remoteUserTerminatedConnection)
        #expect(c.connection == ConnectionRef(index: 1, handle: 0x0040))
    }

    @Test func leCreateConnectionCarriesThePeer() {
        var decoder = PacketDecoder()
        // 0D 20        opcode 0x200D LE Create Connection
        // 19           parameter length 25
        // 60 00 30 00  LE_Scan_Interval 0x0060, LE_Scan_Window 0x0030
        // 00           Initiator_Filter_Policy 0 (use the peer address)
        // 01           Peer_Address_Type random
        // 55 44 33 22 11 C0  Peer_Address C0:11:22:33:44:55 (LSB first)
        // 00           Own_Address_Type public
        // 18 00 28 00  Connection_Interval_Min 24 (30 ms), Max 40 (50 ms)
        // 00 00        Max_Latency 0
        // F4 01        Supervision_Timeout 500 (5 s)
        // 00 00 00 00  Min_CE_Length, Max_CE_Length
        let p = decoder.decode(Rec.cmd(hx("0D 20 19 60 00 30 00 00 01 55 44 33 22 11 C0 00 18 00 28 00 00 00 F4 01 00 00 00 00")))
        #expect(p.summary == "Sent LE Create Connection peer C0:11:22:33:44:55 (random) interval 30-50 ms latency 0 timeout 5000 ms")
        #expect(p.problems.isEmpty)
        #expect(p.commands.first?.peerAddress == BluetoothAddress("C0:11:22:33:44:55"))
        #expect(p.connection == nil)
    }

    @Test func leCreateConnectionWithFilterAcceptListHasNoPeer() {
        var decoder = PacketDecoder()
        // Same layout, Initiator_Filter_Policy 1: the peer address is ignored by the controller.
        let p = decoder.decode(Rec.cmd(hx("0D 20 19 60 00 30 00 01 00 00 00 00 00 00 00 00 06 00 06 00 00 00 C8 00 00 00 00 00")))
        #expect(p.summary == "Sent LE Create Connection (filter accept list) interval 7.5 ms latency 0 timeout 2000 ms")
        #expect(p.commands.first?.peerAddress == nil)
    }

    @Test func leExtendedCreateConnectionV1AndV2() {
        var decoder = PacketDecoder()
        // 43 20 1A     opcode 0x2043 LE Extended Create Connection [v1], length 26
        // 00           Initiator_Filter_Policy 0
        // 00           Own_Address_Type public
        // 00           Peer_Address_Type public
        // 06 05 04 03 02 01  Peer_Address 01:02:03:04:05:06
        // 01           Initiating_PHYs LE 1M, then one 16-byte parameter set:
        // 60 00 60 00 18 00 28 00 00 00 F4 01 00 00 00 00
        let v1 = decoder.decode(Rec.cmd(hx("43 20 1A 00 00 00 06 05 04 03 02 01 01 60 00 60 00 18 00 28 00 00 00 F4 01 00 00 00 00")))
        // The parameter set: Scan_Interval 96 and Scan_Window 96 (60 ms), Connection_Interval_Min 24
        // (30 ms), Max 40 (50 ms), Max_Latency 0, Supervision_Timeout 500 (5000 ms) (7.8.66)
        #expect(v1.summary == "Sent LE Extended Create Connection [v1] peer 01:02:03:04:05:06 (public) phys 1M scan interval 60 ms window 60 ms interval 30-50 ms latency 0 timeout 5000 ms")
        #expect(v1.commands.first?.peerAddress == BluetoothAddress("01:02:03:04:05:06"))
        #expect(v1.problems.isEmpty)
        // 85 20 1C     opcode 0x2085 [v2], length 28: Advertising_Handle FF, Subevent FF, then as v1
        let v2 = decoder.decode(Rec.cmd(hx("85 20 1C FF FF 00 00 01 06 05 04 03 02 01 01 60 00 60 00 18 00 28 00 00 00 F4 01 00 00 00 00")))
        #expect(v2.summary == "Sent LE Extended Create Connection [v2] peer 01:02:03:04:05:06 (random) phys 1M scan interval 60 ms window 60 ms interval 30-50 ms latency 0 timeout 5000 ms")
        #expect(v2.commands.first?.peerAddress == BluetoothAddress("01:02:03:04:05:06"))
    }

    @Test func parameterlessAndScanCommands() {
        var decoder = PacketDecoder()
        // 0E 20 00: LE Create Connection Cancel, no parameters
        #expect(decoder.decode(Rec.cmd(hx("0E 20 00"))).summary == "Sent LE Create Connection Cancel")
        // 0C 20 02 01 01: LE Set Scan Enable, LE_Scan_Enable 1, Filter_Duplicates 1
        #expect(decoder.decode(Rec.cmd(hx("0C 20 02 01 01"))).summary == "Sent LE Set Scan Enable enable (filter duplicates)")
        // 0C 20 02 00 00: disable
        #expect(decoder.decode(Rec.cmd(hx("0C 20 02 00 00"))).summary == "Sent LE Set Scan Enable disable")
        // 42 20 06 01 00 E8 03 00 00: LE Set Extended Scan Enable, Enable 1, Filter_Duplicates 0,
        // Duration 1000 (10 s), Period 0
        #expect(decoder.decode(Rec.cmd(hx("42 20 06 01 00 E8 03 00 00"))).summary
                == "Sent LE Set Extended Scan Enable enable duration 10000 ms")
        // 03 0C 00: Reset
        #expect(decoder.decode(Rec.cmd(hx("03 0C 00"))).summary == "Sent Reset")
    }

    @Test func connectionParameterCommandsNameTheirConnection() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0041))
        let conn = ConnectionRef(index: 1, handle: 0x0041)
        // 13 20 0E     LE Connection Update, length 14
        // 41 00        Connection_Handle 0x0041
        // 06 00 0C 00  Interval_Min 6 (7.5 ms), Interval_Max 12 (15 ms)
        // 04 00        Max_Latency 4
        // C8 00        Supervision_Timeout 200 (2 s)
        // 00 00 00 00  Min/Max_CE_Length
        let update = decoder.decode(Rec.cmd(hx("13 20 0E 41 00 06 00 0C 00 04 00 C8 00 00 00 00 00")))
        #expect(update.summary == "Sent LE Connection Update handle 0x0041 interval 7.5-15 ms latency 4 timeout 2000 ms")
        #expect(update.connection == conn)
        // 22 20 06 41 00 FB 00 48 08: LE Set Data Length, handle 0x0041, TX_Octets 251, TX_Time 2120
        let dle = decoder.decode(Rec.cmd(hx("22 20 06 41 00 FB 00 48 08")))
        #expect(dle.summary == "Sent LE Set Data Length handle 0x0041 tx 251 octets 2120 µs")
        #expect(dle.connection == conn)
        // 32 20 07 41 00 00 02 02 00 00: LE Set PHY, handle 0x0041, All_PHYs 0, TX 2M, RX 2M, options 0
        let phy = decoder.decode(Rec.cmd(hx("32 20 07 41 00 00 02 02 00 00")))
        #expect(phy.summary == "Sent LE Set PHY handle 0x0041 tx 2M rx 2M")
        #expect(phy.connection == conn)
        // 1D 04 02 41 00: Read Remote Version Information, handle first
        let version = decoder.decode(Rec.cmd(hx("1D 04 02 41 00")))
        #expect(version.summary == "Sent Read Remote Version Information handle 0x0041")
        #expect(version.commands.first?.connection == conn)
    }

    @Test(arguments: [false, true])
    func leStartEncryptionHidesTheKeyUnlessAsked(_ keepKeys: Bool) {
        var decoder = PacketDecoder(options: DecoderOptions(keepKeys: keepKeys))
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // 19 20 1C                 LE Start Encryption, length 28
        // 40 00                    Connection_Handle 0x0040
        // 00 x8                    Random_Number
        // 00 00                    Encrypted_Diversifier
        // 0F 0E … 00               Long_Term_Key, LSB first (key 000102…0F)
        let p = decoder.decode(Rec.cmd(hx("19 20 1C 40 00 00 00 00 00 00 00 00 00 00 00 0F 0E 0D 0C 0B 0A 09 08 07 06 05 04 03 02 01 00")))
        #expect(p.connection == ConnectionRef(index: 1, handle: 0x0040))
        if keepKeys {
            #expect(p.summary == "Sent LE Start Encryption handle 0x0040 LTK 000102030405060708090a0b0c0d0e0f")
        } else {
            #expect(p.summary == "Sent LE Start Encryption handle 0x0040")
        }
    }

    @Test(arguments: [
        (UInt16(0x0000), "No Operation"), (0x0406, "Disconnect"), (0x0405, "Create Connection"),
        (0x0C03, "Reset"), (0x0C01, "Set Event Mask"), (0x1001, "Read Local Version Information"),
        (0x1009, "Read BD_ADDR"), (0x1405, "Read RSSI"), (0x200D, "LE Create Connection"),
        (0x2019, "LE Start Encryption"), (0x2043, "LE Extended Create Connection [v1]"),
        (0x2086, "LE Set Periodic Advertising Parameters [v2]"), (0xFD57, "Android LE Advertising Filter"),
        (0xFC17, "Vendor 0xFC17 (OCF 0x017)"), (0xFFFF, "Vendor 0xFFFF (OCF 0x3FF)"), (0x0FFF, "Unknown command 0x0FFF"), (0x2004, "Unknown command 0x2004"),
    ])
    func opcodeNames(_ opcode: UInt16, _ name: String) {
        #expect(HCIOpcode(opcode).name == name)
    }

    /// Every LE Controller command of Core v5.4 (OCF 0x001-0x086, except the unassigned
    /// 0x004, 0x080 and 0x081) has a name.
    @Test func everyLEControllerCommandIsNamed() {
        for ocf in UInt16(0x001)...0x086 where ![0x004, 0x080, 0x081].contains(ocf) {
            let op = HCIOpcode(ogf: 0x08, ocf: ocf)
            #expect(op.name.hasPrefix("LE "), "\(op)")
        }
    }

    @Test func vendorCommandIsKeptByNumber() {
        var decoder = PacketDecoder()
        // 5C FD 01 00: opcode 0xFD5C (OGF 0x3F, OCF 0x15C, no definer known here), length 1, one parameter byte
        let p = decoder.decode(Rec.cmd(hx("5C FD 01 00")))
        #expect(p.summary == "Sent Vendor 0xFD5C (OCF 0x15C)")
        #expect(p.commands.first?.opcode == 0xFD5C)
        #expect(p.problems.isEmpty)
    }

    @Test func truncatedCommandStillEmitsTheCommand() {
        var decoder = PacketDecoder()
        // 06 04 03 40 00: Disconnect says 3 parameter bytes, has 2 (Reason missing)
        let p = decoder.decode(Rec.cmd(hx("06 04 03 40 00")))
        #expect(p.commands.count == 1)
        #expect(p.commands.first?.name == "Disconnect")
        #expect(p.problems.count == 2)
        // the length disagreement, at the end of the bytes present (payload byte 5) …
        #expect(p.problems.first?.offset == Rec.base + 5)
        #expect(p.problems.first?.kind == .truncated)
        #expect(p.problems.first?.layer == .hci)
        // … and the missing Reason, at the same byte
        #expect(p.problems.last?.offset == Rec.base + 5)
        #expect(p.summary.hasPrefix("Sent Disconnect (malformed: Disconnect Reason"))
    }

    @Test func everyPrefixOfACommandIsHandled() {
        let full = hx("0D 20 19 60 00 30 00 00 01 55 44 33 22 11 C0 00 18 00 28 00 00 00 F4 01 00 00 00 00")
        for n in 0..<full.count {
            var decoder = PacketDecoder()
            let p = decoder.decode(Rec.cmd(Array(full.prefix(n))))
            #expect(!p.problems.isEmpty, "prefix \(n)")
            #expect(p.summary.hasPrefix("Sent "))
            #expect(p.problems.allSatisfy { $0.offset >= Rec.base && $0.offset <= Rec.base + n }, "prefix \(n)")
            if n >= 2 { #expect(p.commands.count == 1, "prefix \(n)") }
        }
    }
}
