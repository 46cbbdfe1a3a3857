import BLECore
import Foundation
import Testing
@testable import BLEDecode

/// Air captures (nRF Sniffer, Sniffle, Ubertooth) decoded frame by frame and compared with
/// tshark 4.0.17, which runs here on the same files (../shared/captures, MANIFEST.md).
///
/// Compared per frame: ATT opcodes and error codes, SMP PDUs, CONNECT_IND, LL_TERMINATE_IND
/// codes. Where we differ on purpose, `LinkLayerTsharkDifferences` lists the frames and why.
@Suite("Air captures against tshark", .serialized)
struct LinkLayerRealCaptureTests {
    static let captures = [
        "ubertooth-le-sc-pairing.pcapng", "nrf-sniffer-att-deadlock.pcap", "nrf-sniffer-zero-ltk.pcap",
        "nrf-sniffer-esp32-desync.pcap", "nrf-sniffer-invalid-control.pcapng", "nrf-sniffer-psoc6-crash.pcapng",
        "sniffle-adv-only.pcapng", "sniffle-gatt.pcap",
    ]

    @Test(arguments: captures)
    func framesAgreeWithTshark(_ name: String) throws {
        let capture = try #require(AirCapture.load(name), "cannot read \(name)")
        let ours = AirFrameTally(capture)
        let theirs = try AirFrameTally(tshark: TestCapture.path(name))
        let known = LinkLayerTsharkDifferences.known[name] ?? [:]
        #expect(ours.frames == theirs.frames, "packets")
        #expect(ours.connectInds == theirs.connectInds, "CONNECT_IND")
        #expect(ours.terminateCodes == theirs.terminateCodes, "LL_TERMINATE_IND codes")
        let differing = Set(ours.perFrame.keys).union(theirs.perFrame.keys).filter {
            ours.perFrame[$0] != theirs.perFrame[$0]
        }
        var unexplained: [String] = []
        for frame in differing.sorted() where known[frame] == nil {
            unexplained.append("frame \(frame): ours \(ours.perFrame[frame]?.description ?? "-"), tshark \(theirs.perFrame[frame]?.description ?? "-")")
        }
        let list = unexplained.prefix(40).joined(separator: "\n")
        #expect(unexplained.isEmpty, "\(name): \(unexplained.count) unexplained difference(s):\n\(list)")
        let stale = known.keys.filter { !differing.contains($0) }.sorted()
        #expect(stale.isEmpty, "\(name): documented differences that no longer occur: \(stale)")
    }
}

/// The counts of MANIFEST.md (tshark 4.0.17), less the retransmissions we count once (see
/// `LinkLayerTsharkDifferences`): they hold without tshark installed.
@Suite("Air captures: MANIFEST counts")
struct LinkLayerManifestTests {
    struct Expected: Sendable, CustomTestStringConvertible {
        var name: String
        var packets: Int
        var connectInds: Int
        var terminateCodes: [Int: Int]
        var att: Int
        var attErrors: [Int: Int]
        var smp: Int
        var advertisingReports: Int?
        var testDescription: String { name }
    }

    static let expected: [Expected] = [
        Expected(name: "ubertooth-le-sc-pairing.pcapng", packets: 303, connectInds: 1, terminateCodes: [:], att: 38 - 1,
                 attErrors: [0x0A: 12], smp: 9),
        Expected(name: "nrf-sniffer-att-deadlock.pcap", packets: 195, connectInds: 1, terminateCodes: [:], att: 22,
                 attErrors: [0x03: 1, 0x0A: 1], smp: 15),
        Expected(name: "nrf-sniffer-zero-ltk.pcap", packets: 479, connectInds: 1, terminateCodes: [0x13: 1], att: 154,
                 attErrors: [0x02: 1, 0x0A: 3], smp: 3),
        Expected(name: "nrf-sniffer-esp32-desync.pcap", packets: 205, connectInds: 1, terminateCodes: [:], att: 3,
                 attErrors: [:], smp: 6),
        Expected(name: "nrf-sniffer-invalid-control.pcapng", packets: 2454, connectInds: 13, terminateCodes: [:],
                 att: 164 - 1, attErrors: [0x01: 1, 0x0A: 4], smp: 76),
        Expected(name: "nrf-sniffer-psoc6-crash.pcapng", packets: 9756, connectInds: 52, terminateCodes: [0x13: 8],
                 att: 473 - 13, attErrors: [0x0A: 77, 0x10: 3], smp: 440),
        // 15 advertising PDUs; SCAN_REQ (frame 3) is no advertising report (an HCI scanner does not report it).
        Expected(name: "sniffle-adv-only.pcapng", packets: 15, connectInds: 0, terminateCodes: [:], att: 0, attErrors: [:],
                 smp: 0, advertisingReports: 14),
        Expected(name: "sniffle-gatt.pcap", packets: 354, connectInds: 1, terminateCodes: [0x13: 1], att: 178,
                 attErrors: [0x02: 5, 0x05: 3, 0x0A: 3, 0x81: 5], smp: 2),
    ]

    @Test(arguments: expected)
    func counts(_ e: Expected) throws {
        let capture = try #require(AirCapture.load(e.name))
        let ours = AirFrameTally(capture)
        #expect(ours.frames == e.packets)
        #expect(ours.connectInds == e.connectInds)
        #expect(ours.terminateCodes == e.terminateCodes)
        #expect(ours.perFrame.values.map(\.att.count).reduce(0, +) == e.att)
        var errors: [Int: Int] = [:]
        for f in ours.perFrame.values { for c in f.attErrors { errors[c, default: 0] += 1 } }
        #expect(errors == e.attErrors)
        #expect(ours.perFrame.values.map(\.smp.count).reduce(0, +) == e.smp)
        if let reports = e.advertisingReports { #expect(ours.advertisingReports == reports) }
    }

    @Test("damaged frames (seeded byte changes, cuts, junk) never trap", arguments: LinkLayerRealCaptureTests.captures)
    func damage(_ name: String) throws {
        let capture = try #require(AirCapture.load(name))
        var rng = SplitMix64(seed: 0x4C4C_0000 &+ UInt64(name.utf8.count))
        var decoder = PacketDecoder(options: DecoderOptions(payloadOffsetInRecord: capture.payloadOffsetInRecord))
        var decoded = 0
        for var record in capture.records {
            switch rng.next() % 4 {
            case 0:
                for _ in 0..<(1 + Int(rng.next() % 3)) where !record.payload.isEmpty {
                    record.payload[Int(rng.next() % UInt64(record.payload.count))] = UInt8(truncatingIfNeeded: rng.next())
                }
            case 1:
                record.payload = Array(record.payload.prefix(Int(rng.next() % UInt64(record.payload.count + 1))))
            case 2:
                record.payload += rng.bytes(Int(rng.next() % 8))
            default:
                break
            }
            let p = decoder.decode(record)
            if !p.summary.isEmpty { decoded += 1 }
        }
        _ = decoder.finish()
        #expect(decoded == capture.records.count)
    }
}

/// What one frame holds, for comparing with tshark.
struct AirFrameFacts: Equatable, CustomStringConvertible {
    var att: [Int] = []
    var attErrors: [Int] = []
    var smp: [Int] = []
    var isEmpty: Bool { att.isEmpty && attErrors.isEmpty && smp.isEmpty }
    var description: String {
        var parts: [String] = []
        if !att.isEmpty { parts.append("ATT " + att.map { hex($0) }.joined(separator: ",")) }
        if !attErrors.isEmpty { parts.append("error " + attErrors.map { hex($0) }.joined(separator: ",")) }
        if !smp.isEmpty { parts.append("SMP " + smp.map { hex($0) }.joined(separator: ",")) }
        return parts.isEmpty ? "-" : parts.joined(separator: " ")
    }
}

/// Per-frame ATT/SMP facts and capture-wide counts, from our decoder or from tshark.
struct AirFrameTally {
    var frames = 0
    var connectInds = 0
    var terminateCodes: [Int: Int] = [:]
    var advertisingReports = 0
    var perFrame: [Int: AirFrameFacts] = [:]

    init(_ capture: AirCapture) {
        let (packets, _) = capture.decode()
        frames = packets.count
        for (i, p) in packets.enumerated() {
            var facts = AirFrameFacts()
            for e in p.events {
                switch e {
                case .connectionComplete:
                    connectInds += 1
                case .advertisingReport:
                    advertisingReports += 1
                case .disconnectionComplete(let dc):
                    terminateCodes[Int(dc.reason.rawValue), default: 0] += 1
                case .att(let a):
                    facts.att.append(Int(a.opcode.rawValue))
                    if a.opcode == .errorResponse, a.bytes.count >= 5 { facts.attErrors.append(Int(a.bytes[4])) }
                case .smp(let s):
                    facts.smp.append(Int(s.code.rawValue))
                default:
                    break
                }
            }
            if !facts.isEmpty { perFrame[i + 1] = facts }
        }
    }

    init(tshark path: String) throws {
        let fields = ["frame.number", "btatt.opcode", "btatt.error_code", "btsmp.opcode",
                      "btle.advertising_header.pdu_type", "btle.control_opcode", "btle.control.error_code"]
        let output = try LinkLayerTshark.run(["-2", "-r", path, "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,"]
                                             + fields.flatMap { ["-e", $0] })
        for line in output.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            func ints(_ i: Int) -> [Int] {
                guard i < cols.count else { return [] }
                return cols[i].split(separator: ",").compactMap { LinkLayerTshark.int(String($0)) }
            }
            frames += 1
            let frame = ints(0).first ?? frames
            var facts = AirFrameFacts()
            facts.att = ints(1)
            facts.attErrors = ints(2)
            facts.smp = ints(3)
            if !facts.isEmpty { perFrame[frame] = facts }
            if ints(4).first == 5 { connectInds += 1 }
            if ints(5).first == 2, let code = ints(6).first { terminateCodes[code, default: 0] += 1 }
        }
    }
}

enum LinkLayerTshark {
    static func run(_ arguments: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/tshark")
        p.arguments = arguments
        let out = FileManager.default.temporaryDirectory
            .appendingPathComponent("blereplay-ll-\(getpid())-\(UUID().uuidString).txt").path
        FileManager.default.createFile(atPath: out, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: out) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        p.standardOutput = handle
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        try handle.close()
        return try String(contentsOfFile: out, encoding: .utf8)
    }

    /// tshark prints integers as decimal or `0x..` hex.
    static func int(_ s: String) -> Int? {
        s.hasPrefix("0x") ? Int(s.dropFirst(2), radix: 16) : Int(s)
    }
}

/// Frames where we knowingly disagree with tshark 4.0.17, per capture, with the reason.
///
/// All are retransmissions: tshark 4.0 flags them ("Retransmission" expert info) but still
/// hands their payload to L2CAP and counts the ATT PDU twice. We count a PDU once, as the
/// receiving host sees it: a non-empty PDU with the same LLID, SN and bytes as the sender's
/// previous one, sent before any acknowledgement (no peer NESN != SN, no new SN from the
/// sender) is the same PDU sent again (Core v5.4 Vol 6 Part B 4.5.9).
enum LinkLayerTsharkDifferences {
    static let retransmission = "retransmission of the previous PDU from the same side (same SN and bytes, not acknowledged in between); tshark counts both copies"

    static let known: [String: [Int: String]] = [
        // 59: Exchange MTU Request, SN 0; 60 one connection event later, same SN and bytes.
        "ubertooth-le-sc-pairing.pcapng": [60: retransmission],
        // 1771, 1772: the same Find Information Request back to back.
        "nrf-sniffer-invalid-control.pcapng": [1772: retransmission],
        // The last Read By Group Type Request of 12 attack rounds is logged twice back to back
        // before the peripheral stops answering.
        "nrf-sniffer-psoc6-crash.pcapng": Dictionary(uniqueKeysWithValues: [
            435, 494, 1996, 2593, 2673, 3537, 3620, 3943, 4840, 5479, 5539, 5598, 7176,
        ].map { ($0, retransmission) }),
    ]
}
