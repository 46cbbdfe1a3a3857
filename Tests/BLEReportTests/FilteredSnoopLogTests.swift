import TestSupport
import Foundation
import Testing
@testable import BLEReport
import BLEAnalysis
import BLETimeline

/// Android's filtered snoop log (AOSP system/gd/hal/snoop_logger.cc, filtered mode; see
/// `PacketDecoder+SnoopCut.swift`): ACL start fragments outside the signalling channel keep 14
/// H4 bytes (type, ACL header, L2CAP header, 5 payload bytes) and the original length in the
/// btsnoop record header; continuation fragments are kept whole. Such records are cut, not
/// malformed: no decode problem, no reassembly failure, and the diagnosis says the log was
/// filtered.
@Suite("Android filtered snoop log")
struct FilteredSnoopLogTests {
    static let sensor: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]

    /// What AOSP's headers filter keeps of an H4 ACL packet (MAX_HCI_ACL_LEN = 14).
    static let kept = 14

    static func capture() -> SpecCapture {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: sensor)
        // Read Request 0A | 0003: 12 H4 bytes, under the limit, kept whole.
        c.att(200, handle: 0x40, [0x0A, 0x03, 0x00], received: false)
        // Read Response 0B | 20 value bytes: 30 H4 bytes, cut to 14.
        c.cut(240, aclH4(handle: 0x40, pb: 0x2, l2cap(cid: 0x0004, [0x0B] + Array(1...20))), keep: kept, received: true)
        // Handle Value Notification 1B | 000E | 30 bytes: cut.
        c.cut(300, aclH4(handle: 0x40, pb: 0x2, l2cap(cid: 0x0004, [0x1B, 0x0E, 0x00] + Array(repeating: 0x55, count: 30))),
              keep: kept, received: true)
        // Write Request 12 | 0010 | 40 bytes = an L2CAP frame of 47 bytes in two ACL fragments
        // (27 + 20): the start is cut, the continuation kept whole.
        let frame = l2cap(cid: 0x0004, [0x12, 0x10, 0x00] + Array(repeating: 0xA5, count: 40))
        c.cut(400, aclH4(handle: 0x40, pb: 0x0, Array(frame.prefix(27))), keep: kept, received: false)
        c.acl(401, handle: 0x40, pb: 0x1, Array(frame.dropFirst(27)), received: false)
        // Write Response 13: whole.
        c.att(440, handle: 0x40, [0x13], received: true)
        c.disconnectionComplete(600, handle: 0x40, reason: 0x13)
        return c
    }

    static func l2cap(cid: UInt16, _ payload: [UInt8]) -> [UInt8] {
        [UInt8(payload.count & 0xFF), UInt8(payload.count >> 8), UInt8(cid & 0xFF), UInt8(cid >> 8)] + payload
    }

    static func aclH4(handle: UInt16, pb: UInt16, _ data: [UInt8]) -> [UInt8] {
        let word = handle | pb << 12
        return [0x02, UInt8(word & 0xFF), UInt8(word >> 8), UInt8(data.count & 0xFF), UInt8(data.count >> 8)] + data
    }

    @Test func cutRecordsAreNeitherMalformedNorReassemblyFailures() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let file = dir + "/btsnoop_hci.log.filtered"
        try Self.capture().write(to: file)
        let store = try Support.timeline([file], at: dir + "/t.db")
        let db = store.database
        #expect(try db.scalarInt("SELECT malformed_packets FROM captures") == 0)
        #expect(try db.scalarInt("SELECT count(*) FROM decode_problem") == 0)
        // Three records were cut; the continuation is named as the rest of a cut PDU.
        let cut = try db.rows("SELECT id, summary FROM packets WHERE summary LIKE '%cut by the capture writer%' ORDER BY id")
        #expect(cut.map { $0[0].int ?? 0 } == [3, 4, 5])
        #expect(cut.first?[1].string == "Rcvd Read Response, 21 bytes (cut by the capture writer: 13 of 29 bytes kept, as Android's filtered snoop log does)")
        let rest = try db.rows("SELECT summary FROM packets WHERE id = 6").first?[0].string
        #expect(rest == "Sent ACL continuation fragment (20 bytes) of an L2CAP PDU whose start the capture writer cut")
        // Cut ATT PDUs keep their opcode and are marked cut, with no value: nothing is made up
        // from the bytes left of them, and none is malformed.
        let pdus = try db.rows("SELECT opcode, cut, malformed, value_offset IS NULL FROM att_pdu ORDER BY packet_id")
        #expect(pdus.map { $0[0].int ?? -1 } == [0x0A, 0x0B, 0x1B, 0x12, 0x13])
        #expect(pdus.map { $0[1].int ?? -1 } == [0, 1, 1, 1, 0])
        #expect(pdus.allSatisfy { $0[2].int == 0 })
        #expect(pdus.filter { $0[1].int == 1 }.allSatisfy { $0[3].int == 1 })
        // The requests are answered: the Read Response and the Write Request pair as the opcodes say.
        let outcomes = try db.rows("SELECT opcode, outcome FROM att_transactions ORDER BY request_packet_id")
        #expect(outcomes.map { $0[0].int ?? -1 } == [0x0A, 0x12] && outcomes.allSatisfy { $0[1].string == "ok" })
        // The diagnosis says the log was filtered, on the connection, with the cut packets.
        let diagnosis = try #require(try DiagnosisLoader.load(store).first)
        let finding = try #require(diagnosis.connections.first?.findings.first { $0.finding.code == "snoop-log-filtered" }?.finding)
        #expect(finding.evidence == [3, 4, 5])
        #expect(finding.title == "The snoop log was filtered: 3 packets of this link kept only their headers")
        // What it says of the cut PDUs is what the rows above show: marked cut, still paired.
        #expect(finding.detail.contains("an att_pdus row marked cut (cut = 1, no value), and its transaction still pairs"))
        #expect(!finding.detail.contains("are not ATT/SMP rows"))
        #expect(finding.detail.contains("btsnooplogmode=filtered"))
    }

    /// A bugreport's btsnooz section cuts ACL data whatever the snoop mode: the same cut records,
    /// read from one, are not blamed on the filtered mode.
    @Test func cutRecordsOfABtsnoozLogAreNotCalledFiltered() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let file = dir + "/btsnoop_hci.log"
        try Self.capture().write(to: file)
        let store = try Support.timeline([file], at: dir + "/t.db")
        try store.database.execute("UPDATE capture SET format = 'btsnooz'")
        _ = try Analyzer.analyze(store, force: true)
        let diagnosis = try #require(try DiagnosisLoader.load(store).first)
        let finding = try #require(diagnosis.connections.first?.findings.first { $0.finding.code == "snoop-log-filtered" }?.finding)
        #expect(finding.title == "The bugreport's btsnooz log cut 3 packets of this link to their first bytes")
        #expect(finding.detail.contains("whatever the snoop mode"))
        #expect(!finding.detail.contains("btsnooplogmode=filtered"))
    }

    /// The same records in a pcap (LINKTYPE_BLUETOOTH_HCI_H4_WITH_PHDR, 201) whose record headers
    /// say caplen < len: the capture tool's snapshot length cut them, not Android's filtered snoop
    /// mode. Both the packet summaries and the finding name the snapshot length.
    @Test func cutRecordsOfAPcapAreTheSnapshotLengths() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let snoop = dir + "/cut.btsnoop"
        try Self.capture().write(to: snoop)
        let file = dir + "/cut.pcap"
        try Data(Self.pcap201(fromBtsnoop: Array(try Data(contentsOf: URL(fileURLWithPath: snoop))))).write(to: URL(fileURLWithPath: file))
        let store = try Support.timeline([file], at: dir + "/t.db")
        let cut = try store.database.rows("SELECT id, summary FROM packets WHERE summary LIKE '%(cut by the capture%' ORDER BY id")
        #expect(cut.map { $0[0].int ?? 0 } == [3, 4, 5])
        #expect(cut.first?[1].string == "Rcvd Read Response, 21 bytes (cut by the capture's snapshot length: 13 of 29 bytes kept)")
        #expect(try store.database.scalarInt("SELECT count(*) FROM packets WHERE summary LIKE '%Android%'") == 0)
        let diagnosis = try #require(try DiagnosisLoader.load(store).first)
        let finding = try #require(diagnosis.connections.first?.findings.first { $0.finding.code == "snoop-log-filtered" }?.finding)
        #expect(finding.title == "The capture's snapshot length cut 3 packets of this link")
        #expect(finding.detail.contains("snapshot length"))
        #expect(!finding.detail.contains("btsnooplogmode"))
        #expect(!finding.detail.contains("Android"))
    }

    /// A btsnoop H4 file (datalink 1002) rewritten as pcap 201: the 24-byte pcap header (snaplen
    /// 65535), then per record ts_sec, ts_usec, caplen and len (little-endian), the 4-byte
    /// big-endian direction (btsnoop flags bit 0) and the H4 bytes; len keeps btsnoop's original length.
    static func pcap201(fromBtsnoop b: [UInt8]) -> [UInt8] {
        func be32(_ o: Int) -> UInt32 { b[o..<o + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        var out = le32(0xA1B2_C3D4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(65535) + le32(201)
        var o = 16
        while o + 24 <= b.count {
            let original = be32(o), included = Int(be32(o + 4)), flags = be32(o + 8)
            let ts = b[o + 16..<o + 24].reduce(Int64(0)) { $0 << 8 | Int64($1) } - 0x00DC_DDB3_0F2F_8000
            out += le32(UInt32(ts / 1_000_000)) + le32(UInt32(ts % 1_000_000)) + le32(UInt32(included + 4)) + le32(original + 4)
            out += [0, 0, 0, UInt8(flags & 1)] + b[o + 24..<o + 24 + included]
            o += 24 + included
        }
        return out
    }
}
