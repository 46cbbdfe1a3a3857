import BLECore
import Testing
@testable import BLEDecode

/// LL Control PDU fixtures (Core v5.4 Vol 6 Part B 2.4.2): opcode, then CtrData.
enum LLControlFixtures {
    static let all: [PDUFixture] = [
        PDUFixture(name: "LL_CONNECTION_UPDATE_IND", segments: [
            f("Opcode", 0x00), f("WinSize 2", 0x02), f("WinOffset 4", 0x04, 0x00), f("Interval 36 (45 ms)", 0x24, 0x00),
            f("Latency 0", 0x00, 0x00), f("Timeout 500 (5 s)", 0xF4, 0x01), f("Instant 0x0123", 0x23, 0x01),
        ], summary: "LL_CONNECTION_UPDATE_IND, Window Size: 2.5 ms, Window Offset: 5 ms, Interval: 45 ms, Latency: 0, Timeout: 5000 ms, Instant: 291",
           fields: ["Window Size: 2.5 ms", "Window Offset: 5 ms", "Interval: 45 ms", "Latency: 0", "Timeout: 5000 ms", "Instant: 291"]),
        PDUFixture(name: "LL_CHANNEL_MAP_IND", segments: [
            f("Opcode", 0x01), f("ChM: channels 0-7 and 36", 0xFF, 0x00, 0x00, 0x00, 0x10), f("Instant 10", 0x0A, 0x00),
        ], summary: "LL_CHANNEL_MAP_IND, Channel Map: ff00000010 (9 channels), Instant: 10",
           fields: ["Channel Map: ff00000010 (9 channels)", "Instant: 10"]),
        PDUFixture(name: "LL_TERMINATE_IND", segments: [f("Opcode", 0x02), f("ErrorCode 0x13", 0x13)],
                   summary: "LL_TERMINATE_IND, Error Code: Remote User Terminated Connection (0x13)",
                   fields: ["Error Code: Remote User Terminated Connection (0x13)"]),
        PDUFixture(name: "LL_ENC_REQ", segments: [
            f("Opcode", 0x03), f("Rand", 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08), f("EDIV 0xBEEF", 0xEF, 0xBE),
            f("SKDc", [UInt8](repeating: 0x11, count: 8)), f("IVc", 0x22, 0x22, 0x22, 0x22),
        ], summary: "LL_ENC_REQ, Random Number: 0x0807060504030201, Encrypted Diversifier: 0xBEEF",
           fields: ["Random Number: 0x0807060504030201", "Encrypted Diversifier: 0xBEEF"]),
        PDUFixture(name: "LL_ENC_RSP", segments: [
            f("Opcode", 0x04), f("SKDp", [UInt8](repeating: 0x33, count: 8)), f("IVp", 0x44, 0x44, 0x44, 0x44),
        ], summary: "LL_ENC_RSP", fields: []),
        PDUFixture(name: "LL_START_ENC_REQ", segments: [f("Opcode", 0x05)], summary: "LL_START_ENC_REQ", fields: []),
        PDUFixture(name: "LL_START_ENC_RSP", segments: [f("Opcode", 0x06)], summary: "LL_START_ENC_RSP", fields: []),
        PDUFixture(name: "LL_UNKNOWN_RSP", segments: [f("Opcode", 0x07), f("UnknownType LL_PHY_REQ", 0x16)],
                   summary: "LL_UNKNOWN_RSP, Unknown Type: LL_PHY_REQ (0x16)", fields: ["Unknown Type: LL_PHY_REQ (0x16)"]),
        PDUFixture(name: "LL_FEATURE_REQ", segments: [f("Opcode", 0x08), f("FeatureSet", 0x21, 0x01, 0, 0, 0, 0, 0, 0)],
                   summary: "LL_FEATURE_REQ, Feature Set: 0x0000000000000121", fields: ["Feature Set: 0x0000000000000121"]),
        PDUFixture(name: "LL_FEATURE_RSP", segments: [f("Opcode", 0x09), f("FeatureSet", 0x2D, 0x01, 0, 0, 0, 0, 0, 0)],
                   summary: "LL_FEATURE_RSP, Feature Set: 0x000000000000012D", fields: ["Feature Set: 0x000000000000012D"]),
        PDUFixture(name: "LL_PAUSE_ENC_REQ", segments: [f("Opcode", 0x0A)], summary: "LL_PAUSE_ENC_REQ", fields: []),
        PDUFixture(name: "LL_PAUSE_ENC_RSP", segments: [f("Opcode", 0x0B)], summary: "LL_PAUSE_ENC_RSP", fields: []),
        PDUFixture(name: "LL_VERSION_IND", segments: [
            f("Opcode", 0x0C), f("VersNr 9 (5.0)", 0x09), f("CompId 0x0059", 0x59, 0x00), f("SubVersNr 0x1234", 0x34, 0x12),
        ], summary: "LL_VERSION_IND, Version Number: 5.0 (9), Company Id: Nordic Semiconductor ASA (0x0059), Subversion Number: 0x1234",
           fields: ["Version Number: 5.0 (9)", "Company Id: Nordic Semiconductor ASA (0x0059)", "Subversion Number: 0x1234"]),
        PDUFixture(name: "LL_REJECT_IND", segments: [f("Opcode", 0x0D), f("ErrorCode 0x06", 0x06)],
                   summary: "LL_REJECT_IND, Error Code: PIN or Key Missing (0x06)", fields: ["Error Code: PIN or Key Missing (0x06)"]),
        PDUFixture(name: "LL_PERIPHERAL_FEATURE_REQ", segments: [f("Opcode", 0x0E), f("FeatureSet", 0x7F, 0x41, 0x01, 0, 0, 0, 0, 0)],
                   summary: "LL_PERIPHERAL_FEATURE_REQ, Feature Set: 0x000000000001417F", fields: ["Feature Set: 0x000000000001417F"]),
        PDUFixture(name: "LL_CONNECTION_PARAM_REQ", segments: connectionParameters(opcode: 0x0F),
                   summary: "LL_CONNECTION_PARAM_REQ, Interval: 7.5-15 ms, Latency: 4, Timeout: 2000 ms",
                   fields: ["Interval: 7.5-15 ms", "Latency: 4", "Timeout: 2000 ms"]),
        PDUFixture(name: "LL_CONNECTION_PARAM_RSP", segments: connectionParameters(opcode: 0x10),
                   summary: "LL_CONNECTION_PARAM_RSP, Interval: 7.5-15 ms, Latency: 4, Timeout: 2000 ms",
                   fields: ["Interval: 7.5-15 ms", "Latency: 4", "Timeout: 2000 ms"]),
        PDUFixture(name: "LL_REJECT_EXT_IND", segments: [f("Opcode", 0x11), f("RejectOpcode LL_PHY_REQ", 0x16), f("ErrorCode 0x0C", 0x0C)],
                   summary: "LL_REJECT_EXT_IND, Reject Opcode: LL_PHY_REQ (0x16), Error Code: Command Disallowed (0x0C)",
                   fields: ["Reject Opcode: LL_PHY_REQ (0x16)", "Error Code: Command Disallowed (0x0C)"]),
        PDUFixture(name: "LL_PING_REQ", segments: [f("Opcode", 0x12)], summary: "LL_PING_REQ", fields: []),
        PDUFixture(name: "LL_PING_RSP", segments: [f("Opcode", 0x13)], summary: "LL_PING_RSP", fields: []),
        PDUFixture(name: "LL_LENGTH_REQ", segments: dataLength(opcode: 0x14),
                   summary: "LL_LENGTH_REQ, Max RX octets: 251, Max RX time: 2120 µs, Max TX octets: 27, Max TX time: 328 µs",
                   fields: ["Max RX octets: 251", "Max RX time: 2120 µs", "Max TX octets: 27", "Max TX time: 328 µs"]),
        PDUFixture(name: "LL_LENGTH_RSP", segments: dataLength(opcode: 0x15),
                   summary: "LL_LENGTH_RSP, Max RX octets: 251, Max RX time: 2120 µs, Max TX octets: 27, Max TX time: 328 µs",
                   fields: ["Max RX octets: 251", "Max RX time: 2120 µs", "Max TX octets: 27", "Max TX time: 328 µs"]),
        PDUFixture(name: "LL_PHY_REQ", segments: [f("Opcode", 0x16), f("TX_PHYS 1M|2M", 0x03), f("RX_PHYS 2M", 0x02)],
                   summary: "LL_PHY_REQ, TX PHYs: 1M|2M, RX PHYs: 2M", fields: ["TX PHYs: 1M|2M", "RX PHYs: 2M"]),
        PDUFixture(name: "LL_PHY_RSP", segments: [f("Opcode", 0x17), f("TX_PHYS 2M", 0x02), f("RX_PHYS Coded", 0x04)],
                   summary: "LL_PHY_RSP, TX PHYs: 2M, RX PHYs: Coded", fields: ["TX PHYs: 2M", "RX PHYs: Coded"]),
        PDUFixture(name: "LL_PHY_UPDATE_IND", segments: [
            f("Opcode", 0x18), f("PHY_C_TO_P 2M", 0x02), f("PHY_P_TO_C unchanged", 0x00), f("Instant 10", 0x0A, 0x00),
        ], summary: "LL_PHY_UPDATE_IND, Central to Peripheral PHY: 2M, Peripheral to Central PHY: unchanged, Instant: 10",
           fields: ["Central to Peripheral PHY: 2M", "Peripheral to Central PHY: unchanged", "Instant: 10"]),
        PDUFixture(name: "LL_MIN_USED_CHANNELS_IND", segments: [f("Opcode", 0x19), f("PHYS 1M", 0x01), f("MinUsedChannels 2", 0x02)],
                   summary: "LL_MIN_USED_CHANNELS_IND, PHYs: 1M, Minimum Used Channels: 2",
                   fields: ["PHYs: 1M", "Minimum Used Channels: 2"]),
        PDUFixture(name: "LL_CLOCK_ACCURACY_REQ", segments: [f("Opcode", 0x1D), f("SCA 7", 0x07)],
                   summary: "LL_CLOCK_ACCURACY_REQ, Sleep Clock Accuracy: 0 ppm to 20 ppm",
                   fields: ["Sleep Clock Accuracy: 0 ppm to 20 ppm"]),
        PDUFixture(name: "LL_CLOCK_ACCURACY_RSP", segments: [f("Opcode", 0x1E), f("SCA 0", 0x00)],
                   summary: "LL_CLOCK_ACCURACY_RSP, Sleep Clock Accuracy: 251 ppm to 500 ppm",
                   fields: ["Sleep Clock Accuracy: 251 ppm to 500 ppm"]),
        PDUFixture(name: "LL_CIS_TERMINATE_IND (kept raw)", segments: [f("Opcode", 0x22), f("CIG_ID, CIS_ID, ErrorCode", 0x01, 0x02, 0x13)],
                   summary: "LL_CIS_TERMINATE_IND, CtrData: 010213", fields: ["CtrData: 010213"]),
        PDUFixture(name: "unassigned opcode 0x3F", segments: [f("Opcode", 0x3F), v("CtrData", 0xAA, 0xBB)],
                   summary: "Unknown LL control opcode 0x3F, CtrData: aabb", fields: ["CtrData: aabb"]),
    ]

    /// Interval_Min 6, Interval_Max 12, Latency 4, Timeout 200, PreferredPeriodicity 2,
    /// ReferenceConnEventCount 0x0100, Offset0 0, Offset1-5 0xFFFF.
    static func connectionParameters(opcode: UInt8) -> [Segment] {
        [f("Opcode", opcode), f("Interval_Min 6", 0x06, 0x00), f("Interval_Max 12", 0x0C, 0x00), f("Latency 4", 0x04, 0x00),
         f("Timeout 200", 0xC8, 0x00), f("PreferredPeriodicity 2", 0x02), f("ReferenceConnEventCount", 0x00, 0x01),
         f("Offset0", 0x00, 0x00), f("Offset1", 0xFF, 0xFF), f("Offset2", 0xFF, 0xFF), f("Offset3", 0xFF, 0xFF),
         f("Offset4", 0xFF, 0xFF), f("Offset5", 0xFF, 0xFF)]
    }

    /// MaxRxOctets 251, MaxRxTime 2120, MaxTxOctets 27, MaxTxTime 328.
    static func dataLength(opcode: UInt8) -> [Segment] {
        [f("Opcode", opcode), f("MaxRxOctets 251", 0xFB, 0x00), f("MaxRxTime 2120", 0x48, 0x08),
         f("MaxTxOctets 27", 0x1B, 0x00), f("MaxTxTime 328", 0x48, 0x01)]
    }
}

@Suite("LL Control PDUs")
struct LinkLayerControlTests {
    @Test("decode -> fields -> encode gives the same bytes", arguments: LLControlFixtures.all)
    func roundTrip(_ fixture: PDUFixture) throws {
        let pdu = try LLControlPDU(decoding: fixture.bytes[...])
        #expect(pdu.summary == fixture.summary)
        #expect(pdu.fields.map { "\($0.0): \($0.1)" } == fixture.fields)
        #expect(pdu.encoded == fixture.bytes)
        #expect(pdu.opcode.rawValue == fixture.bytes[0])
        if let length = pdu.opcode.parameterLength {
            #expect(fixture.bytes.count == 1 + length, "CtrData length of \(pdu.opcode.name)")
        }
    }

    @Test("every prefix is truncated at the cut field", arguments: LLControlFixtures.all)
    func prefixes(_ fixture: PDUFixture) {
        checkPrefixes(fixture, layer: .linkLayer) { (slice, base) throws(DecodeError) in
            try LLControlPDU(decoding: slice, baseOffset: base).encoded
        }
    }

    @Test("bytes beyond CtrData: strict decoding refuses, lenient keeps the fields", arguments: LLControlFixtures.all.filter {
        $0.bytes.first.map { LLControlOpcode($0).isAssigned } ?? false
    })
    func trailingBytes(_ fixture: PDUFixture) {
        let long = fixture.bytes + [0xEE, 0xEE]
        let expected = DecodeError(layer: .linkLayer, offset: 100 + fixture.bytes.count, kind: .malformed,
                                   reason: "\(LLControlOpcode(long[0]).name): CtrData is \(fixture.bytes.count - 1) byte(s), 2 more follow")
        #expect(throws: expected) { try LLControlPDU(decoding: long[...], baseOffset: 100) }
        let (pdu, problem) = LLControlPDU.decode(long[...], baseOffset: 100)
        #expect(problem == expected)
        #expect(pdu?.encoded == fixture.bytes)
    }

    @Test("opcode names: every assigned opcode named, unassigned in hex")
    func names() {
        #expect(LLControlOpcode(0x0E).name == "LL_PERIPHERAL_FEATURE_REQ")
        #expect(LLControlOpcode(0x29).name == "LL_CHANNEL_STATUS_IND")
        #expect(LLControlOpcode(0x2A).name == "Unknown LL control opcode 0x2A")
        #expect(LLControlOpcode(0x2A).parameterLength == nil)
        for op in 0...0x29 { #expect(LLControlOpcode(UInt8(op)).isAssigned) }
    }

    @Test("error codes of terminate and reject PDUs")
    func errorCodes() throws {
        #expect(try LLControlPDU(decoding: [0x02, 0x08][...]).errorCode == .connectionTimeout)
        #expect(try LLControlPDU(decoding: [0x11, 0x03, 0x06][...]).errorCode == .pINOrKeyMissing)
        #expect(try LLControlPDU(decoding: [0x12][...]).errorCode == nil)
    }
}
