import Foundation
import Testing
@testable import BLEReport
import BLETimeline

/// `export`: a timeline back out as btsnoop or pcap gives the same timeline again; the trace
/// is Chrome trace-event JSON whose slices nest on every track.
@Suite struct ExportTests {
    /// Packets (H4 kinds), ATT PDUs, errors and transactions of a timeline's only capture.
    static func counts(_ store: TimelineStore) throws -> [Int64] {
        try ["SELECT count(*) FROM packets WHERE kind NOT IN ('note', 'other')", "SELECT count(*) FROM att_pdus",
             "SELECT count(*) FROM errors", "SELECT count(*) FROM att_transactions", "SELECT count(*) FROM connections",
             "SELECT count(*) FROM adv_reports"].map { try store.database.scalarInt($0) ?? -1 }
    }

    static let roundTrip = [Support.shared("android-lock-pairing.btsnoop"), Support.shared("android-yeelock.btsnoop"),
                            Support.shared("smartwatch-h4-phdr.pcapng")] + Support.samples.map(Support.sample)

    @Test(arguments: roundTrip)
    func btsnoopRoundTrip(_ capture: String) throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let original = try Support.timeline([capture], at: dir + "/a.db")
        let id = try CaptureExporter.choose(original, requested: nil)
        let written = try CaptureExporter.export(original, captureID: id, format: .btsnoop, to: dir + "/a.btsnoop").written
        let again = try Support.timeline([dir + "/a.btsnoop"], at: dir + "/b.db")
        #expect(try Self.counts(again) == Self.counts(original))
        #expect(Int64(written) == (try Self.counts(original)[0]))
        try CaptureExporter.export(again, captureID: 1, format: .btsnoop, to: dir + "/b.btsnoop")
        #expect(Support.read(dir + "/a.btsnoop") == Support.read(dir + "/b.btsnoop"))
        if capture.hasSuffix(".btsnoop") {
            // An H4 btsnoop (datalink 1002) comes back byte for byte but for its key material,
            // zeroed in place; imported with keys kept, byte for byte.
            let exported = Array(Support.read(dir + "/a.btsnoop")), source = Array(Support.read(capture))
            #expect(exported.count == source.count)
            #expect(zip(exported, source).allSatisfy { $0 == $1 || $0 == 0 })
            let kept = try Support.timeline([capture], at: dir + "/k.db", keepKeys: true)
            try CaptureExporter.export(kept, captureID: 1, format: .btsnoop, to: dir + "/k.btsnoop")
            #expect(Support.read(dir + "/k.btsnoop") == Support.read(capture))
        }
    }

    @Test(arguments: [Support.shared("android-lock-pairing.btsnoop"), Support.sample("auth-errors.btsnoop")])
    func pcapRoundTrip(_ capture: String) throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let original = try Support.timeline([capture], at: dir + "/a.db")
        try CaptureExporter.export(original, captureID: 1, format: .pcap, to: dir + "/a.pcap")
        let again = try Support.timeline([dir + "/a.pcap"], at: dir + "/b.db")
        #expect(try Self.counts(again) == Self.counts(original))
        try CaptureExporter.export(again, captureID: 1, format: .pcap, to: dir + "/b.pcap")
        #expect(Support.read(dir + "/a.pcap") == Support.read(dir + "/b.pcap"))
        #expect(try again.database.scalarInt("SELECT link_type FROM capture") == 201)
    }

    /// A btmon monitor capture (datalink 2001) keeps its notes in the timeline; H4 has no type
    /// byte for them, so the export leaves them out and keeps everything else.
    @Test func monitorCaptureLosesOnlyItsNotes() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let original = try Support.timeline([Support.shared("btmon-monitor.btsnoop")], at: dir + "/a.db")
        try CaptureExporter.export(original, captureID: 1, format: .btsnoop, to: dir + "/a.btsnoop")
        let again = try Support.timeline([dir + "/a.btsnoop"], at: dir + "/b.db")
        let a = try Self.counts(original), b = try Self.counts(again)
        #expect(a[0] == b[0] && a[1] == b[1] && a[4] == b[4])
        #expect(try again.database.scalarInt("SELECT count(*) FROM packets WHERE kind = 'note'") == 0)
    }

    @Test func timelineWithoutRawBytesCannotBeExported() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let store = try Support.timeline([Support.sample("heart-rate-healthy.btsnoop")], at: dir + "/a.db", keepRaw: false)
        #expect {
            try CaptureExporter.export(store, captureID: 1, format: .btsnoop, to: dir + "/a.btsnoop")
        } throws: { error in
            guard let f = error as? CaptureExporter.Failure else { return false }
            return !f.isUsage && f.message.contains("--no-raw")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/a.btsnoop"))
    }

    @Test func severalCapturesNeedAChoice() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let store = try Support.timeline([Support.sample("heart-rate-healthy.btsnoop"), Support.sample("att-timeout.btsnoop")], at: dir + "/a.db")
        #expect(throws: CaptureExporter.Failure.self) { try CaptureExporter.choose(store, requested: nil) }
        #expect(throws: CaptureExporter.Failure.self) { try CaptureExporter.choose(store, requested: 9) }
        #expect(try CaptureExporter.choose(store, requested: 2) == 2)
        try CaptureExporter.export(store, captureID: 2, format: .btsnoop, to: dir + "/two.btsnoop")
        #expect(Support.read(dir + "/two.btsnoop") == Support.read(Support.sample("att-timeout.btsnoop")))
    }

    @Test(arguments: [Support.sample("heart-rate-supervision-timeout.btsnoop"), Support.sample("att-timeout.btsnoop"),
                      Support.shared("android-lock-pairing.btsnoop")])
    func traceIsWellFormedAndNests(_ capture: String) throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let store = try Support.timeline([capture], at: dir + "/a.db")
        try TraceExporter.write(store, to: dir + "/t.json")
        let json = try Support.json(dir + "/t.json")
        let events = try #require(json["traceEvents"] as? [[String: Any]])
        func count(_ ph: String, _ cat: String? = nil) -> Int {
            events.filter { $0["ph"] as? String == ph && (cat == nil || $0["cat"] as? String == cat) }.count
        }
        let db = store.database
        #expect(Int64(count("X", "att")) == (try db.scalarInt("SELECT count(*) FROM att_transactions")))
        #expect(Int64(count("X", "connection")) == (try db.scalarInt("SELECT count(*) FROM connections WHERE status = 0")))
        #expect(Int64(count("i", "error")) == (try db.scalarInt("SELECT count(*) FROM errors")))
        #expect(Int64(count("i", "advertising")) == (try db.scalarInt("SELECT count(*) FROM adv_reports")))
        let names = events.filter { $0["name"] as? String == "thread_name" }.compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
        #expect(names.contains("advertising"))
        // Every X slice on a track nests inside or follows the one before it.
        var tracks: [String: [(Int, Int)]] = [:]
        for e in events where e["ph"] as? String == "X" {
            let ts = try #require(e["ts"] as? Int), dur = try #require(e["dur"] as? Int)
            #expect(dur >= 0)
            tracks["\(e["pid"] ?? 0)/\(e["tid"] ?? 0)", default: []].append((ts, ts + dur))
        }
        for (_, slices) in tracks {
            var stack: [(Int, Int)] = []
            for s in slices.sorted(by: { ($0.0, -$0.1) < ($1.0, -$1.1) }) {
                while let top = stack.last, top.1 <= s.0 { stack.removeLast() }
                if let top = stack.last { #expect(s.1 <= top.1, "slice \(s) overlaps \(top)") }
                stack.append(s)
            }
        }
        if capture.hasSuffix("att-timeout.btsnoop") {
            let timedOut = try #require(events.first { ($0["name"] as? String)?.contains("[timeout]") == true })
            #expect((timedOut["dur"] as? Int ?? 0) >= 29_000_000)
        }
    }

    /// A `btmon -w` capture of two controllers (btsnoop datalink 2001, flags = index << 16 |
    /// opcode: 3 event, 4 ACL TX, 5 ACL RX; REFERENCE.md), both using handle 0x0040: each
    /// controller connects a different peer (LE Connection Complete, Vol 4 Part E 7.7.65.1),
    /// reads 0x0003 (ATT Read Request 0x0A / Response 0x0B) and disconnects, 0x13 and 0x08.
    static func twoControllers() -> [UInt8] {
        var out = Array("btsnoop\0".utf8) + [0, 0, 0, 1] + [0, 0, 0x07, 0xD1]
        func be32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } }
        func record(_ ms: Int64, index: UInt32, opcode: UInt32, _ body: [UInt8]) {
            let ts = UInt64(0x00DC_DDB3_0F2F_8000 + 1_700_000_000_000_000 + ms * 1000)
            out += be32(UInt32(body.count)) + be32(UInt32(body.count)) + be32(index << 16 | opcode) + be32(0)
            out += (0..<8).map { UInt8(truncatingIfNeeded: ts >> (56 - 8 * $0)) } + body
        }
        func acl(_ att: [UInt8]) -> [UInt8] {
            let l2 = [UInt8(att.count), 0, 0x04, 0x00] + att
            return [0x40, 0x20, UInt8(l2.count), 0] + l2
        }
        for (index, peer, reason) in [(UInt32(0), UInt8(0x51), UInt8(0x13)), (1, 0x52, 0x08)] {
            let t = Int64(index) * 100
            record(t, index: index, opcode: 3, [0x3E, 19, 0x01, 0x00, 0x40, 0x00, 0x00, 0x01, peer, 0x9E, 0x12, 0x3B, 0x7A, 0xC4,
                                                 24, 0, 0, 0, 0x90, 0x01, 0x00])
            record(t + 10, index: index, opcode: 4, acl([0x0A, 0x03, 0x00]))
            record(t + 40, index: index, opcode: 5, acl([0x0B, 0x41, 0x42]))
            record(t + 50, index: index, opcode: 3, [0x05, 4, 0x00, 0x40, 0x00, reason])
        }
        return out
    }

    /// H4 has no controller index: a capture of two controllers is exported in the monitor form
    /// (datalink 2001, LINKTYPE 254) and comes back with both links apart.
    @Test(arguments: CaptureExporter.Format.allCases)
    func twoControllersKeepTheirLinksApart(_ format: CaptureExporter.Format) throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        try Data(Self.twoControllers()).write(to: URL(fileURLWithPath: dir + "/two.btsnoop"))
        let original = try Support.timeline([dir + "/two.btsnoop"], at: dir + "/a.db")
        let links = "SELECT peer_address, disconnect_reason FROM connections ORDER BY id"
        #expect(try original.database.rows(links).map { [$0[0].string ?? "", String($0[1].int ?? -1)] }
                == [["C4:7A:3B:12:9E:51", "19"], ["C4:7A:3B:12:9E:52", "8"]])
        try CaptureExporter.export(original, captureID: 1, format: format, to: dir + "/b.\(format)")
        let again = try Support.timeline([dir + "/b.\(format)"], at: dir + "/b.db")
        #expect(try again.database.rows(links) == original.database.rows(links))
        #expect(try Self.counts(again) == Self.counts(original))
        #expect(try again.database.scalarInt("SELECT count(*) FROM att_transactions WHERE outcome = 'ok'") == 2)
        let form = "SELECT link_type FROM capture"  // the btsnoop datalink or the pcap LINKTYPE
        #expect(try again.database.scalarInt(form) == (format == .btsnoop ? 2001 : 254))
    }

    /// An air capture (Sniffle, LINKTYPE 256) has no HCI packets: export refuses rather than
    /// writing an empty capture; the trace still works.
    @Test func airCaptureIsRefusedWithTheReason() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let store = try Support.timeline([Support.shared("sniffle-gatt.pcap")], at: dir + "/a.db")
        #expect(throws: CaptureExporter.Failure.self) {
            try CaptureExporter.export(store, captureID: 1, format: .btsnoop, to: dir + "/a.btsnoop")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/a.btsnoop"))
        let r = try Tool.run(["export", dir + "/a.db", "--format", "pcap", "-o", dir + "/a.pcap"])
        #expect(r.status == 65 && r.stderr.contains("no HCI packets"), "\(r.stderr)")
        try TraceExporter.write(store, to: dir + "/t.json")
        #expect(try Support.json(dir + "/t.json")["traceEvents"] != nil)
    }
}
