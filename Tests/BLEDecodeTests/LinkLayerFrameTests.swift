import BLECore
import Testing
@testable import BLEDecode

/// Sniffer pseudo-headers (LINKTYPE 256, 272) and the LE packet after them.
@Suite("Sniffer headers and LE packets")
struct LinkLayerFrameTests {
    /// nrf-sniffer-att-deadlock.pcap frame 1 (ADV_IND), nRF Sniffer header version 2:
    /// 4b board 75 | 2a 00 payload length 42 | 02 version | 00 00 counter | 00 packet ID |
    /// 0a length of packet | 01 flags: CRC OK | 00 channel 0 | 00 RSSI 0 | 84 02 event counter 644 |
    /// 00 00 00 00 delta time | d6 be 89 8e access address | 40 17 ADV_IND, TxAdd random, Length 23 |
    /// 5d e0 af 9e 35 5d AdvA | 17 bytes AdvData | f6 af 98 CRC
    static let nordicAdvertising = bytes(hex: """
        4b 2a 00 02 00 00 00 0a 01 00 00 84 02 00 00 00 00 d6 be 89 8e 40 17 5d e0 af 9e 35 5d 02 01 1a
        02 0a 0c 0a ff 4c 00 10 05 03 1c 4d 6c 1f f6 af 98
        """)

    /// sniffle-gatt.pcap frame 10 (Empty PDU), LINKTYPE 256:
    /// 17 RF channel 23 | c0 signal -64 dBm | 80 noise | 00 offenses | 2e 0b 98 63 reference AA |
    /// 93 0d flags: dewhitened, signal valid, reference AA valid, PDU type 3 (peripheral to
    /// central), CRC checked and valid, PHY 1M | 2e 0b 98 63 access address | 09 00 LLID 01,
    /// SN 1, Length 0 | 0f e9 8f CRC
    static let rfEmptyPDU = bytes(hex: "17 c0 80 00 2e 0b 98 63 93 0d 2e 0b 98 63 09 00 0f e9 8f")

    @Test("nRF Sniffer version 2 advertising frame")
    func nordicVersion2() throws {
        let h = try SnifferHeader(linkType: 272, decoding: Self.nordicAdvertising[...])
        #expect(h.format == .nordic(version: 2))
        #expect(h.length == 17)
        #expect(h.pduKind == .advertising && h.sender == nil)
        #expect(h.channelIndex == 0 && h.rssi == 0 && h.eventCounter == 644 && h.crcValid == true && h.phy == 0)
        #expect(h.auxiliaryType == 0)
        let p = try LinkLayerPacket(decoding: Self.nordicAdvertising[17...], baseOffset: 17, isDataChannel: false)
        #expect(p.isAdvertising && p.header == [0x40, 0x17] && p.payload.count == 23 && p.crc == 0x98AFF6)
        #expect(p.payloadOffset == 23 && p.problems.isEmpty)
    }

    @Test("nRF Sniffer data frames: direction, encryption flags, versions 1, 3 and legacy")
    func nordicVariants() throws {
        let ll: [UInt8] = [0x70, 0x83, 0x32, 0x9A, 0x01, 0x00, 0x11, 0x22, 0x33]   // AA, Empty PDU, CRC
        // version 2, flags 0x0F: CRC OK, central to peripheral, encrypted, MIC OK; RSSI 60
        let v2: [UInt8] = [0x4B, UInt8(10 + ll.count), 0x00, 0x02, 0x01, 0x00, 0x06, 0x0A, 0x0F, 0x05, 0x3C, 0x07, 0x00,
                           0, 0, 0, 0] + ll
        let h2 = try SnifferHeader(linkType: 272, decoding: v2[...])
        #expect(h2.pduKind == .data && h2.sender == .central && h2.encrypted && h2.micValid == true && h2.decrypted)
        #expect(h2.rssi == -60 && h2.channelIndex == 5 && h2.eventCounter == 7)
        // version 3: packet ID 0x06 says data; flags 0x01: peripheral to central, not encrypted
        var v3 = v2
        v3[3] = 3
        v3[8] = 0x01
        let h3 = try SnifferHeader(linkType: 272, decoding: v3[...])
        #expect(h3.format == .nordic(version: 3) && h3.pduKind == .data && h3.sender == .peripheral && !h3.encrypted)
        // version 1: board | header length 6 | payload length | version 1 | counter | id, then the same
        let v1: [UInt8] = [0x4B, 0x06, UInt8(10 + ll.count), 0x01, 0x00, 0x00, 0x06, 0x0A, 0x03, 0x05, 0x3C, 0x07, 0x00,
                           0, 0, 0, 0] + ll
        let h1 = try SnifferHeader(linkType: 272, decoding: v1[...])
        #expect(h1.format == .nordic(version: 1) && h1.length == 17 && h1.sender == .central)
        // legacy: BE EF | id | counter | 2 unused | payload length | flags | channel | RSSI | event counter | delta
        let legacy: [UInt8] = [0xBE, 0xEF, 0x06, 0x00, 0x00, 0x00, 0x00, UInt8(9 + ll.count), 0x01, 0x05, 0x3C, 0x07,
                               0x00, 0, 0, 0, 0] + ll
        let h0 = try SnifferHeader(linkType: 272, decoding: legacy[...])
        #expect(h0.format == .nordic(version: 0) && h0.length == 17 && h0.sender == .peripheral)
    }

    @Test("nRF Sniffer: every cut frame and a wrong payload length are refused")
    func nordicCuts() {
        let frame = Self.nordicAdvertising
        for n in 0..<frame.count {
            #expect(throws: DecodeError.self, "prefix \(n)") { try SnifferHeader(linkType: 272, decoding: frame[0..<n], baseOffset: 50) }
        }
        var long = frame
        long.append(0)
        #expect(throws: DecodeError(layer: .linkLayer, offset: 50, kind: .malformed,
                                    reason: "nRF Sniffer header: lengths add up to 49 bytes, frame has 50")) {
            try SnifferHeader(linkType: 272, decoding: long[...], baseOffset: 50)
        }
        var short = frame
        short[7] = 0x05   // Length of packet 5 < 10
        #expect(throws: DecodeError(layer: .linkLayer, offset: 57, kind: .malformed,
                                    reason: "nRF Sniffer Length of packet 5: the event header needs 10")) {
            try SnifferHeader(linkType: 272, decoding: short[...], baseOffset: 50)
        }
    }

    @Test("LINKTYPE 256 header")
    func rfHeader() throws {
        let h = try SnifferHeader(linkType: 256, decoding: Self.rfEmptyPDU[...])
        #expect(h.format == .rf && h.length == 10)
        #expect(h.channelIndex == 21 && h.rssi == -64 && h.noise == nil)
        #expect(h.referenceAccessAddress == 0x6398_0B2E && h.accessAddressOffenses == nil)
        #expect(h.pduKind == .data && h.sender == .peripheral && h.crcValid == true && h.micValid == nil && h.phy == 0)
        let p = try LinkLayerPacket(decoding: Self.rfEmptyPDU[10...], baseOffset: 10, isDataChannel: true)
        #expect(!p.isAdvertising && DataChannelHeader(octets: p.header).isEmptyPDU && p.crc == 0x8FE90F)
        let names = ["RF Channel", "Signal Power", "Noise Power", "Access Address Offenses", "Reference Access Address",
                     "Reference Access Address", "Reference Access Address", "Reference Access Address", "Flags", "Flags"]
        let starts = [0, 1, 2, 3, 4, 4, 4, 4, 8, 8]
        for n in 0..<10 {
            #expect(throws: DecodeError(layer: .linkLayer, offset: 100 + starts[n], kind: .truncated,
                                        reason: "\(names[n]): need \(starts[n] == 4 ? 4 : starts[n] == 8 ? 2 : 1) byte(s), have \(n - starts[n])")) {
                try SnifferHeader(linkType: 256, decoding: Self.rfEmptyPDU[0..<n], baseOffset: 100)
            }
        }
    }

    @Test("RF channel to channel index", arguments: [(0, 37), (12, 38), (39, 39), (1, 0), (11, 10), (13, 11), (38, 36)])
    func channels(_ rf: Int, _ index: Int) {
        #expect(SnifferHeader.channelIndex(rfChannel: UInt8(rf)) == UInt8(index))
    }

    @Test("LE packet: cut payload, cut CRC, bytes after the CRC, CTEInfo")
    func packets() throws {
        // AA, LLID 10 Length 4, payload, CRC
        let whole: [UInt8] = [0x70, 0x83, 0x32, 0x9A, 0x02, 0x04, 0xAA, 0xBB, 0xCC, 0xDD, 0x01, 0x02, 0x03]
        for n in 0..<6 {
            #expect(throws: DecodeError.self) { try LinkLayerPacket(decoding: whole[0..<n], baseOffset: 0, isDataChannel: true) }
        }
        for n in 6..<10 {
            let p = try LinkLayerPacket(decoding: whole[0..<n], baseOffset: 0, isDataChannel: true)
            #expect(p.isTruncated && p.payload.count == n - 6 && p.crc == nil)
            #expect(p.problems == [DecodeError(layer: .linkLayer, offset: n, kind: .truncated,
                                               reason: "PDU payload: Length 4, frame has \(n - 6) byte(s)")])
        }
        for n in 10..<13 {
            let p = try LinkLayerPacket(decoding: whole[0..<n], baseOffset: 0, isDataChannel: true)
            #expect(!p.isTruncated && p.crc == nil)
            #expect(p.problems == [DecodeError(layer: .linkLayer, offset: 10, kind: .truncated,
                                               reason: "CRC: need 3 byte(s), have \(n - 10)")])
        }
        let extra = try LinkLayerPacket(decoding: (whole + [0xEE])[...], baseOffset: 0, isDataChannel: true)
        #expect(extra.problems == [DecodeError(layer: .linkLayer, offset: 13, kind: .malformed, reason: "1 byte(s) after the CRC")])
        // CP set: LLID 11 with CTEInfo 0x14 before a 1-byte LL_START_ENC_REQ
        let cte: [UInt8] = [0x70, 0x83, 0x32, 0x9A, 0x23, 0x01, 0x14, 0x05, 0x01, 0x02, 0x03]
        let c = try LinkLayerPacket(decoding: cte[...], baseOffset: 0, isDataChannel: true)
        let h = DataChannelHeader(octets: c.header)
        #expect(h.llid == 3 && h.ctePresent && h.cteInfo == 0x14 && c.payload.elementsEqual([0x05]) && c.problems.isEmpty)
        #expect(h.octets == [0x23, 0x01, 0x14])
    }
}
