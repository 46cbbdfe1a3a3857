import Foundation
import Testing
import BLETimeline

/// Air captures (LINKTYPE 251/256/272) imported through the whole pipeline: the timeline's
/// counts must equal tshark's, less the retransmissions we count once (BLEDecodeTests'
/// `LinkLayerTsharkDifferences` lists them frame by frame).
@Suite("Air captures cross-checked with tshark", .serialized)
struct LinkLayerCrossCheckTests {
    static let airCaptures = [
        "ubertooth-le-sc-pairing.pcapng", "nrf-sniffer-att-deadlock.pcap", "nrf-sniffer-zero-ltk.pcap",
        "nrf-sniffer-esp32-desync.pcap", "nrf-sniffer-invalid-control.pcapng", "nrf-sniffer-psoc6-crash.pcapng",
        "sniffle-adv-only.pcapng", "sniffle-gatt.pcap",
    ]

    /// ATT PDUs by opcode that tshark counts twice: a retransmission sent before any
    /// acknowledgement (same SN and bytes) is one PDU for the receiving host.
    static let retransmittedATT: [String: [Int: Int]] = [
        "ubertooth-le-sc-pairing.pcapng": [0x02: 1],        // frame 60
        "nrf-sniffer-invalid-control.pcapng": [0x04: 1],    // frame 1772
        "nrf-sniffer-psoc6-crash.pcapng": [0x10: 13],       // frames 435, 494, 1996, 2593, 2673, 3537, 3620, 3943, 4840, 5479, 5539, 5598, 7176
    ]

    @Test(arguments: airCaptures)
    func countsEqualTshark(_ name: String) throws {
        let path = TestPaths.sharedCapture(name)
        var theirs = try AirTsharkCounts(capture: path)
        for (opcode, n) in Self.retransmittedATT[name] ?? [:] {
            theirs.attOpcodes[opcode, default: 0] -= n
            if theirs.attOpcodes[opcode] == 0 { theirs.attOpcodes[opcode] = nil }
        }
        let db = TestPaths.temporaryFile("air-cross-\(name).db")
        defer { try? FileManager.default.removeItem(atPath: db) }
        let results = try Importer.importCaptures([path], into: db)
        #expect(results.first?.status == .imported)
        let ours = try OurCounts(database: db)
        #expect(ours.packets == theirs.packets, "packets")
        #expect(ours.connectionCompletes == theirs.connectInds, "CONNECT_IND")
        #expect(ours.disconnectReasons == theirs.terminateCodes, "LL_TERMINATE_IND error codes")
        #expect(ours.attOpcodes == theirs.attOpcodes, "ATT PDUs by opcode")
        #expect(ours.attErrors == theirs.attErrors, "ATT error codes")
        #expect(ours.smpPDUs == theirs.smpPDUs, "SMP PDUs")
    }
}

/// What tshark counts in an air capture, from one two-pass run.
struct AirTsharkCounts {
    var packets = 0
    var connectInds = 0
    var terminateCodes: [Int: Int] = [:]
    var attOpcodes: [Int: Int] = [:]
    var attErrors: [Int: Int] = [:]
    var smpPDUs = 0

    init(capture: String) throws {
        let fields = ["frame.number", "btle.advertising_header.pdu_type", "btle.control_opcode", "btle.control.error_code",
                      "btatt.opcode", "btatt.error_code", "btsmp.opcode"]
        let output = try Tshark.run(["-2", "-r", capture, "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,"]
                                    + fields.flatMap { ["-e", $0] })
        for line in output.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            func ints(_ i: Int) -> [Int] {
                guard i < cols.count else { return [] }
                return cols[i].split(separator: ",").compactMap { Tshark.int(String($0)) }
            }
            packets += 1
            if ints(1).first == 0x05 { connectInds += 1 }
            if ints(2).first == 0x02, let code = ints(3).first { terminateCodes[code, default: 0] += 1 }
            for op in ints(4) { attOpcodes[op, default: 0] += 1 }
            for e in ints(5) { attErrors[e, default: 0] += 1 }
            smpPDUs += ints(6).count
        }
    }
}
