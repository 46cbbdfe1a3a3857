import BLECore
import Foundation
import Testing
@testable import BLEDecode

// Decodes the real captures in ../shared/captures (MANIFEST.md) and checks the counts against
// tshark 4.0.17's. BLEDecodeTests cannot import BLECapture, so a tiny reader for the formats
// used here lives below (btsnoop H4/H1/monitor, PacketLogger, pcap and pcapng LINKTYPE 201).
//
// Expected numbers were taken with, for example:
//   tshark -r FILE -Y 'bthci_evt.le_meta_subevent == 0x01 || bthci_evt.le_meta_subevent == 0x0a' -T fields -e bthci_evt.status
//   tshark -r FILE -Y 'bthci_evt.code == 0x05' -T fields -e bthci_evt.reason
//   tshark -r FILE -Y btatt | wc -l;  tshark -r FILE -Y 'btatt.opcode == 0x01' -T fields -e btatt.error_code
//   tshark -r FILE -Y btsmp | wc -l;  tshark -r FILE -Y 'btl2cap.cid == 5' | wc -l
//   tshark -r FILE -Y 'bthci_evt.le_meta_subevent == 0x02 || bthci_evt.le_meta_subevent == 0x0d' -T fields -e bthci_evt.le_num_reports

/// What tshark counts in one capture.
struct CaptureExpectation: Sendable, CustomTestStringConvertible {
    var file: String
    var records: Int
    /// LE (Enhanced) Connection Complete statuses -> count.
    var leConnections: [UInt8: Int]
    var bredrConnections = 0
    /// Disconnection Complete reasons -> count.
    var disconnects: [UInt8: Int]
    var att: Int
    var attErrors: [UInt8: Int]
    var smp: Int
    var signaling = 0
    var advertisingReports: Int
    /// Connections with ACL but no Connection Complete in the file, by transport.
    var foundInProgress: [Transport: Int] = [:]
    var testDescription: String { file }
}

/// Counts of what the decoder produced.
struct CaptureTally: Sendable {
    var records = 0
    var leConnections: [UInt8: Int] = [:]
    var bredrConnections = 0
    var disconnects: [UInt8: Int] = [:]
    var att = 0
    var attErrors: [UInt8: Int] = [:]
    var malformedATT: [Int] = []
    var smp = 0
    var signaling = 0
    var advertisingReports = 0
    var foundInProgress: [Transport: Int] = [:]
    var problems = 0
    var finishProblems: [DecodeError] = []
    var vendorEvents = 0
    var qualityReports = 0
    var layers: [PacketLayer: Int] = [:]
    var connectionsSeen = 0

    static func decode(_ capture: TestCapture) -> CaptureTally {
        var t = CaptureTally()
        var decoder = PacketDecoder(options: DecoderOptions(payloadOffsetInRecord: capture.payloadOffsetInRecord))
        for record in capture.records {
            let p = decoder.decode(record)
            t.records += 1
            t.problems += p.problems.count
            t.layers[p.layer, default: 0] += 1
            if p.summary.hasPrefix("Rcvd Vendor event") { t.vendorEvents += 1 }
            if p.summary == "Rcvd Vendor event (Android Bluetooth Quality Report)" { t.qualityReports += 1 }
            for e in p.events {
                switch e {
                case .connectionComplete(let c):
                    if c.transport == .le { t.leConnections[c.status.rawValue, default: 0] += 1 } else { t.bredrConnections += 1 }
                case .disconnectionComplete(let dc):
                    t.disconnects[dc.reason.rawValue, default: 0] += 1
                case .att(let a):
                    t.att += 1
                    if a.opcode.rawValue == 0x01, a.bytes.count >= 5 { t.attErrors[a.bytes[4], default: 0] += 1 }
                    if a.pdu == nil { t.malformedATT.append(record.frameNumber) }
                case .smp:
                    t.smp += 1
                case .signaling:
                    t.signaling += 1
                case .advertisingReport:
                    t.advertisingReports += 1
                case .connectionFoundInProgress(_, let transport):
                    t.foundInProgress[transport, default: 0] += 1
                default:
                    break
                }
            }
        }
        t.connectionsSeen = decoder.connectionsSeen
        t.finishProblems = decoder.finish()
        return t
    }
}

@Suite("Real captures against tshark")
struct RealCaptureTests {
    static let expectations: [CaptureExpectation] = [
        CaptureExpectation(file: "android-lock-pairing.btsnoop", records: 1235, leConnections: [0x00: 2, 0x02: 5],
                           disconnects: [0x16: 1, 0x3E: 1], att: 182, attErrors: [0x05: 1, 0x0A: 13], smp: 92,
                           advertisingReports: 290),
        // tshark: 574 ATT, 95 SMP, 5 LE signalling. It dissects the 413 packets on ACL handle
        // 0x0EDC (Android/Broadcom controller diagnostics, no Connection Complete, the would-be CID
        // counting 0, 1, 2, …) as L2CAP, and so counts bogus ATT in frames 244, 1886, 8646, SMP in
        // 302, 2008, 8730 and signalling in 251, 1941, 8716. The decoder names those packets as
        // diagnostics instead: 571 / 92 / 2.
        CaptureExpectation(file: "android-lock-long-session.btsnoop", records: 10931, leConnections: [0x00: 5],
                           disconnects: [0x16: 2, 0x3E: 1], att: 574 - 3, attErrors: [0x0A: 19], smp: 95 - 3,
                           signaling: 5 - 3, advertisingReports: 8241),
        // 17 BR/EDR Connect Complete events, all status 0x04 Page Timeout (tshark: bthci_evt.code == 0x03).
        CaptureExpectation(file: "android-pongbot.btsnoop", records: 1741, leConnections: [0x00: 3, 0x02: 5],
                           bredrConnections: 17, disconnects: [:], att: 387, attErrors: [0x0A: 22], smp: 0,
                           signaling: 10, advertisingReports: 4),
        CaptureExpectation(file: "android-yeelock.btsnoop", records: 690, leConnections: [0x00: 2, 0x02: 1],
                           disconnects: [0x13: 2], att: 104, attErrors: [0x0A: 14], smp: 0, advertisingReports: 26),
        CaptureExpectation(file: "android-classic-spp.btsnoop", records: 16928, leConnections: [:], bredrConnections: 1,
                           disconnects: [0x08: 1], att: 0, attErrors: [:], smp: 0, advertisingReports: 154),
        // One BR/EDR Connect Complete with status 0x04 (frame 296).
        CaptureExpectation(file: "btmon-monitor.btsnoop", records: 369, leConnections: [0x00: 2], bredrConnections: 1,
                           disconnects: [0x3E: 1], att: 0, attErrors: [:], smp: 0, advertisingReports: 38),
        // tshark 4.0.17 shows frame 207, LE Enhanced Connection Complete [v2] (sub-event 0x29), as
        // "Unknown 0x29" and so counts no connection; the decoder counts it (handle 0x0045).
        // Three links predate the trace: LE 0x005A and 0x005F, and BR/EDR 0x001B (CIDs 0x5810…).
        CaptureExpectation(file: "ios-glasses.pklg", records: 1134, leConnections: [0x00: 1], disconnects: [:],
                           att: 348, attErrors: [0x0A: 2], smp: 0, signaling: 2, advertisingReports: 0,
                           foundInProgress: [.le: 2, .bredr: 1]),
        // LE 0x004E and 0x005A and BR/EDR 0x0051 (CIDs 0x0110/0x0811) predate the trace.
        CaptureExpectation(file: "ios-glasses-app-control.pklg", records: 899, leConnections: [:], disconnects: [:],
                           att: 470, attErrors: [:], smp: 0, signaling: 2, advertisingReports: 0,
                           foundInProgress: [.le: 2, .bredr: 1]),
        CaptureExpectation(file: "scale-h4-phdr.pcap", records: 833, leConnections: [0x00: 1], disconnects: [:],
                           att: 328, attErrors: [0x0A: 19], smp: 0, advertisingReports: 123),
        CaptureExpectation(file: "smartwatch-h4-phdr.pcapng", records: 810, leConnections: [0x00: 1],
                           disconnects: [0x16: 1], att: 391, attErrors: [0x01: 1, 0x0A: 9], smp: 0, signaling: 2,
                           advertisingReports: 5),
    ]

    @Test(arguments: expectations)
    func countsMatchTshark(_ expected: CaptureExpectation) throws {
        let capture = try #require(TestCapture.load(expected.file), "capture \(expected.file) not found")
        let t = CaptureTally.decode(capture)
        #expect(t.records == expected.records)
        #expect(t.leConnections == expected.leConnections)
        #expect(t.bredrConnections == expected.bredrConnections)
        #expect(t.disconnects == expected.disconnects)
        #expect(t.att == expected.att)
        #expect(t.attErrors == expected.attErrors)
        #expect(t.smp == expected.smp)
        #expect(t.signaling == expected.signaling)
        #expect(t.advertisingReports == expected.advertisingReports)
        #expect(t.foundInProgress == expected.foundInProgress)
        let leTotal = expected.leConnections.values.reduce(0, +)
        let inProgress = expected.foundInProgress.values.reduce(0, +)
        #expect(t.connectionsSeen == leTotal + expected.bredrConnections + inProgress)
    }

    /// The classic capture: RFCOMM, A2DP and AVRCP on a BR/EDR link must never become LE.
    @Test func classicCaptureStaysClassic() throws {
        let capture = try #require(TestCapture.load("android-classic-spp.btsnoop"))
        let t = CaptureTally.decode(capture)
        #expect(t.att == 0 && t.smp == 0 && t.signaling == 0)
        #expect((t.layers[.bredr] ?? 0) > 8_000)
        #expect(t.layers[.att] == nil && t.layers[.smp] == nil && t.layers[.signaling] == nil)
        #expect(t.foundInProgress.isEmpty)
    }

    /// Real records with random damage (a byte changed, cut short, junk appended), seeded:
    /// the decoder reports problems and never traps.
    @Test(arguments: ["android-lock-pairing.btsnoop", "android-pongbot.btsnoop", "ios-glasses.pklg"])
    func damagedRealRecordsNeverCrash(_ file: String) throws {
        let capture = try #require(TestCapture.load(file))
        var rng = SplitMix64(seed: 0xDA_3A6E)
        var decoder = PacketDecoder()
        var problems = 0
        for _ in 0..<10 {
            for var r in capture.records {
                let n = r.payload.count
                switch rng.next() % 4 {
                case 0 where n > 0:
                    r.payload[Int(rng.next() % UInt64(n))] = UInt8(truncatingIfNeeded: rng.next())
                case 1 where n > 0:
                    r.payload.removeLast(Int(rng.next() % UInt64(n)) + 1)
                case 2:
                    r.payload += (0..<Int(rng.next() % 8 + 1)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                default:
                    break
                }
                problems += decoder.decode(r).problems.count
            }
        }
        problems += decoder.finish().count
        #expect(problems > 1000)
    }

    /// Vendor events (0xFF) are kept whole and counted as tshark shows them (MANIFEST "vendor evt");
    /// those whose first byte is 0x58 (AOSP HCI_VSE_SUBCODE_BQR_SUB_EVT) on a capture whose host
    /// sent Android's vendor commands are named Bluetooth Quality Reports (tshark -Y
    /// "bthci_evt.code == 0xff", first parameter byte: pongbot 0x58 ×82 and 0x90 ×17, lock-pairing
    /// 0x58 ×2, classic-spp 0x1B ×107, 0x90 ×3 and 0x76 ×1); the iPhone's never are.
    @Test(arguments: [("android-lock-pairing.btsnoop", 2, 2), ("android-pongbot.btsnoop", 99, 82),
                      ("android-classic-spp.btsnoop", 111, 0), ("ios-glasses.pklg", 186, 0)])
    func vendorEvents(_ file: String, _ count: Int, _ qualityReports: Int) throws {
        let capture = try #require(TestCapture.load(file))
        let tally = CaptureTally.decode(capture)
        #expect(tally.vendorEvents == count)
        #expect(tally.qualityReports == qualityReports)
    }
}

// MARK: - A tiny test-only capture reader

/// Records of one capture file, as BLECapture would produce them.
struct TestCapture: Sendable {
    var records: [CaptureRecord]
    /// Bytes from a record's fileOffset to its payload (see DecoderOptions).
    var payloadOffsetInRecord: Int

    /// `../shared/captures/NAME` relative to the package root.
    static func path(_ name: String) -> String {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3) // Tests/BLEDecodeTests/RealCaptureTests.swift
        return parts.joined(separator: "/") + "/../shared/captures/" + name
    }

    static func readFile(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    static func load(_ name: String) -> TestCapture? {
        guard let d = readFile(path(name)) else { return nil }
        if name.hasSuffix(".btsnoop") { return btsnoop(d) }
        if name.hasSuffix(".pklg") { return packetLogger(d) }
        if name.hasSuffix(".pcapng") { return pcapng(d) }
        if name.hasSuffix(".pcap") { return pcap(d) }
        return nil
    }

    static func be32(_ d: [UInt8], _ i: Int) -> Int {
        Int(d[i]) << 24 | Int(d[i + 1]) << 16 | Int(d[i + 2]) << 8 | Int(d[i + 3])
    }
    static func le32(_ d: [UInt8], _ i: Int) -> Int {
        Int(d[i + 3]) << 24 | Int(d[i + 2]) << 16 | Int(d[i + 1]) << 8 | Int(d[i])
    }

    static func h4Kind(_ type: UInt8) -> PacketKind {
        switch type {
        case 1: .command
        case 2: .acl
        case 3: .sco
        case 4: .event
        case 5: .iso
        default: .other
        }
    }

    /// btsnoop: 16-byte header (magic, version, datalink), 24-byte big-endian record headers.
    static func btsnoop(_ d: [UInt8]) -> TestCapture? {
        guard d.count >= 16, d.starts(with: Array("btsnoop\0".utf8)) else { return nil }
        let datalink = be32(d, 12)
        var records: [CaptureRecord] = []
        var off = 16
        while off + 24 <= d.count {
            let included = be32(d, off + 4), flags = be32(d, off + 8), drops = be32(d, off + 12)
            guard off + 24 + included <= d.count else { break }
            var payload = Array(d[(off + 24)..<(off + 24 + included)])
            var kind = PacketKind.other
            var dir: Direction = flags & 1 == 0 ? .sent : .received
            switch datalink {
            case 1002:
                kind = payload.isEmpty ? .other : h4Kind(payload.removeFirst())
            case 1001:
                kind = flags & 2 != 0 ? (flags & 1 == 0 ? .command : .event) : .acl
            case 2001:
                switch flags & 0xFFFF {
                case 2: kind = .command; dir = .sent
                case 3: kind = .event; dir = .received
                case 4: kind = .acl; dir = .sent
                case 5: kind = .acl; dir = .received
                case 6: kind = .sco; dir = .sent
                case 7: kind = .sco; dir = .received
                case 18: kind = .iso; dir = .sent
                case 19: kind = .iso; dir = .received
                case 11, 14, 15, 16, 17: kind = .other; dir = .unknown
                default: kind = .note; dir = .unknown
                }
            default:
                return nil
            }
            records.append(CaptureRecord(frameNumber: records.count + 1, timestamp: 0, direction: dir, kind: kind,
                                         payload: payload, fileOffset: off, cumulativeDrops: UInt32(drops)))
            off += 24 + included
        }
        return TestCapture(records: records, payloadOffsetInRecord: datalink == 1002 ? 25 : 24)
    }

    /// PacketLogger: u32 length (little-endian in the iPhone files), u32 s, u32 µs, u8 type, payload.
    static func packetLogger(_ d: [UInt8]) -> TestCapture? {
        var records: [CaptureRecord] = []
        var off = 0
        while off + 13 <= d.count {
            var length = le32(d, off)
            if length & 0xFFFF == 0 && length != 0 { length = be32(d, off) }
            guard length >= 9, off + 4 + length <= d.count else { break }
            let type = d[off + 12]
            let payload = Array(d[(off + 13)..<(off + 4 + length)])
            let (kind, dir): (PacketKind, Direction) = switch type {
            case 0x00: (.command, .sent)
            case 0x01: (.event, .received)
            case 0x02: (.acl, .sent)
            case 0x03: (.acl, .received)
            case 0x08: (.sco, .sent)
            case 0x09: (.sco, .received)
            case 0xF7, 0xF8, 0xF9, 0xFA, 0xFB, 0xFC: (.note, .unknown)
            default: (.other, .unknown)
            }
            records.append(CaptureRecord(frameNumber: records.count + 1, timestamp: 0, direction: dir, kind: kind,
                                         payload: payload, fileOffset: off, rawType: UInt16(type)))
            off += 4 + length
        }
        return TestCapture(records: records, payloadOffsetInRecord: 13)
    }

    /// One LINKTYPE 201 packet: 4-byte big-endian direction, H4 type, HCI packet.
    static func phdrRecord(_ frame: ArraySlice<UInt8>, number: Int, fileOffset: Int) -> CaptureRecord? {
        guard frame.count >= 5 else { return nil }
        let s = frame.startIndex
        let dir: Direction = frame[s + 3] & 1 == 0 ? .sent : .received
        return CaptureRecord(frameNumber: number, timestamp: 0, direction: dir, kind: h4Kind(frame[s + 4]),
                             payload: Array(frame[(s + 5)...]), fileOffset: fileOffset)
    }

    /// Classic pcap (little-endian magic), LINKTYPE 201 only.
    static func pcap(_ d: [UInt8]) -> TestCapture? {
        guard d.count >= 24, le32(d, 0) == 0xA1B2_C3D4, le32(d, 20) == 201 else { return nil }
        var records: [CaptureRecord] = []
        var off = 24
        while off + 16 <= d.count {
            let caplen = le32(d, off + 8)
            guard off + 16 + caplen <= d.count else { break }
            if let r = phdrRecord(d[(off + 16)..<(off + 16 + caplen)], number: records.count + 1, fileOffset: off) {
                records.append(r)
            }
            off += 16 + caplen
        }
        return TestCapture(records: records, payloadOffsetInRecord: 21)
    }

    /// pcapng (little-endian sections), Enhanced Packet Blocks of LINKTYPE 201 interfaces.
    static func pcapng(_ d: [UInt8]) -> TestCapture? {
        var records: [CaptureRecord] = []
        var off = 0
        while off + 12 <= d.count {
            let type = le32(d, off), length = le32(d, off + 4)
            guard length >= 12, off + length <= d.count else { break }
            if type == 6, length >= 32 {
                let caplen = le32(d, off + 20)
                if off + 28 + caplen <= d.count,
                   let r = phdrRecord(d[(off + 28)..<(off + 28 + caplen)], number: records.count + 1, fileOffset: off) {
                    records.append(r)
                }
            }
            off += length
        }
        return TestCapture(records: records, payloadOffsetInRecord: 33)
    }
}
