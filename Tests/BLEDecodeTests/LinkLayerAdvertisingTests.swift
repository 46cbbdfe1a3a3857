import BLECore
import Testing
@testable import BLEDecode

/// Advertising physical channel PDU payloads (Core v5.4 Vol 6 Part B 2.3), after the 2-byte
/// header. Addresses travel least significant byte first.
enum AdvertisingPDUFixtures {
    /// AdvA 7D:43:82:42:23:16 on the wire.
    static let advA: [UInt8] = [0x16, 0x23, 0x42, 0x82, 0x43, 0x7D]
    /// 5C:F3:70:73:3E:F4 on the wire.
    static let initA: [UInt8] = [0xF4, 0x3E, 0x73, 0x70, 0xF3, 0x5C]
    /// Flags 0x06, Complete Local Name "Lock".
    static let data: [UInt8] = [0x02, 0x01, 0x06, 0x05, 0x09, 0x4C, 0x6F, 0x63, 0x6B]

    struct Fixture: Sendable, CustomTestStringConvertible {
        var type: AdvertisingPDUType
        var pdu: PDUFixture
        var testDescription: String { pdu.name }
    }

    static let connectIndSegments: [Segment] = [
        f("InitA", initA), f("AdvA", advA), f("AA 0x50654A27", 0x27, 0x4A, 0x65, 0x50), f("CRCInit", 0x2B, 0x1F, 0x9C),
        f("WinSize 3", 0x03), f("WinOffset 9", 0x09, 0x00), f("Interval 54 (67.5 ms)", 0x36, 0x00),
        f("Latency 0", 0x00, 0x00), f("Timeout 42 (420 ms)", 0x2A, 0x00), f("ChM all 37", 0xFF, 0xFF, 0xFF, 0xFF, 0x1F),
        f("Hop 5, SCA 5", 0xA5),
    ]

    static let all: [Fixture] = [
        Fixture(type: .advInd, pdu: PDUFixture(name: "ADV_IND", segments: [f("AdvA", advA), v("AdvData", data)],
                                                 summary: "", fields: [])),
        Fixture(type: .advDirectInd, pdu: PDUFixture(name: "ADV_DIRECT_IND", segments: [f("AdvA", advA), f("TargetA", initA)],
                                                       summary: "", fields: [])),
        Fixture(type: .advNonconnInd, pdu: PDUFixture(name: "ADV_NONCONN_IND", segments: [f("AdvA", advA), v("AdvData", data)],
                                                        summary: "", fields: [])),
        Fixture(type: .scanReq, pdu: PDUFixture(name: "SCAN_REQ", segments: [f("ScanA", initA), f("AdvA", advA)],
                                                  summary: "", fields: [])),
        Fixture(type: .scanRsp, pdu: PDUFixture(name: "SCAN_RSP", segments: [f("AdvA", advA), v("ScanRspData", 0x02, 0x0A, 0x08)],
                                                  summary: "", fields: [])),
        Fixture(type: .connectInd, pdu: PDUFixture(name: "CONNECT_IND", segments: connectIndSegments, summary: "", fields: [])),
        Fixture(type: .advScanInd, pdu: PDUFixture(name: "ADV_SCAN_IND", segments: [f("AdvA", advA), v("AdvData", data)],
                                                     summary: "", fields: [])),
        // Extended header length 9, AdvMode 0b01 (connectable) | flags AdvA + ADI | AdvA | ADI: DID 0x123, SID 4
        Fixture(type: .advExtInd, pdu: PDUFixture(name: "AUX_ADV_IND", segments: [
            f("Extended Header Length 9, AdvMode 1", 0x49), f("Extended Header: flags, AdvA, ADI", [0x09] + advA + [0x23, 0x41]),
            v("AdvData", data),
        ], summary: "", fields: [])),
        Fixture(type: .auxConnectRsp, pdu: PDUFixture(name: "AUX_CONNECT_RSP", segments: [
            f("Extended Header Length 13, AdvMode 0", 0x0D), f("Extended Header: flags, AdvA, TargetA", [0x03] + advA + initA),
        ], summary: "", fields: [])),
        Fixture(type: AdvertisingPDUType(0x0F), pdu: PDUFixture(name: "reserved type 0b1111", segments: [v("payload", 0x01, 0x02)],
                                                                summary: "", fields: [])),
    ]
}

@Suite("Advertising channel PDUs")
struct LinkLayerAdvertisingTests {
    @Test("decode -> encode gives the same bytes", arguments: AdvertisingPDUFixtures.all)
    func roundTrip(_ fixture: AdvertisingPDUFixtures.Fixture) throws {
        let pdu = try AdvertisingChannelPDU(type: fixture.type, decoding: fixture.pdu.bytes[...], baseOffset: 0)
        #expect(pdu.type == fixture.type)
        #expect(pdu.encoded == fixture.pdu.bytes)
    }

    @Test("every prefix is truncated at the cut field", arguments: AdvertisingPDUFixtures.all)
    func prefixes(_ fixture: AdvertisingPDUFixtures.Fixture) {
        checkPrefixes(fixture.pdu, layer: .linkLayer) { (slice, base) throws(DecodeError) in
            try AdvertisingChannelPDU(type: fixture.type, decoding: slice, baseOffset: base).encoded
        }
    }

    @Test("CONNECT_IND fields")
    func connectInd() throws {
        let bytes = AdvertisingPDUFixtures.connectIndSegments.flatMap(\.bytes)
        guard case .connectInd(let c) = try AdvertisingChannelPDU(type: .connectInd, decoding: bytes[...], baseOffset: 0) else {
            Issue.record("not a CONNECT_IND"); return
        }
        #expect(c.initiatorAddress.description == "5C:F3:70:73:3E:F4")
        #expect(c.advertiserAddress.description == "7D:43:82:42:23:16")
        #expect(c.accessAddress == 0x5065_4A27)
        #expect(c.crcInit == 0x9C1F2B)
        #expect(c.windowSize == 3 && c.windowOffset == 9)
        #expect(c.interval == 54 && c.latency == 0 && c.timeout == 42)
        #expect(c.usedChannels == 37 && c.hop == 5 && c.sleepClockAccuracy == 5)
        #expect(c.parameterProblems.isEmpty)
        var bad = c
        bad.interval = 3
        bad.hop = 2
        bad.channelMap = [0x01, 0, 0, 0, 0]
        #expect(bad.parameterProblems == ["Interval 3 outside 6-3200", "Hop 2 outside 5-16",
                                          "channel map uses 1 channel(s), at least 2 needed"])
    }

    @Test("extended payload fields and the report event type")
    func extended() throws {
        let fixture = AdvertisingPDUFixtures.all.first { $0.pdu.name == "AUX_ADV_IND" }!
        guard case .extended(_, let p) = try AdvertisingChannelPDU(type: .advExtInd, decoding: fixture.pdu.bytes[...],
                                                                   baseOffset: 0) else {
            Issue.record("not extended"); return
        }
        #expect(p.advMode == 1)
        #expect(p.advertiserAddress?.description == "7D:43:82:42:23:16")
        #expect(p.adi == 0x4123 && p.advertisingSID == 4)
        #expect(p.data == AdvertisingPDUFixtures.data)
        #expect(p.reportEventType(isScanResponse: false) == 0x01)
        #expect(p.reportEventType(isScanResponse: true) == 0x09)
    }

    @Test("legacy report event types follow HCI, not PDU type numbers")
    func reportEventTypes() throws {
        let a = AdvertisingPDUFixtures.advA
        #expect(try AdvertisingChannelPDU(type: .advScanInd, decoding: a[...], baseOffset: 0).legacyReportEventType == 2)
        #expect(try AdvertisingChannelPDU(type: .advNonconnInd, decoding: a[...], baseOffset: 0).legacyReportEventType == 3)
        #expect(try AdvertisingChannelPDU(type: .scanRsp, decoding: a[...], baseOffset: 0).legacyReportEventType == 4)
    }

    @Test("header bits")
    func header() {
        // 0x46: PDU type 0b0110 ADV_SCAN_IND, TxAdd random; Length 0x1C
        let h = AdvertisingPDUHeader(octets: 0x46, 0x1C)
        #expect(h.type == .advScanInd && h.txAddRandom && !h.rxAddRandom && !h.channelSelection2 && h.length == 28)
        #expect(h.octets == [0x46, 0x1C])
        // 0xE5: PDU type 0b0101 CONNECT_IND, ChSel, TxAdd and RxAdd random; Length 34
        let c = AdvertisingPDUHeader(octets: 0xE5, 0x22)
        #expect(c.type == .connectInd && c.txAddRandom && c.rxAddRandom && c.channelSelection2)
        #expect(c.octets == [0xE5, 0x22])
        #expect(AdvertisingPDUType(0x0B).name == "Reserved PDU type 0x0B")
    }
}
