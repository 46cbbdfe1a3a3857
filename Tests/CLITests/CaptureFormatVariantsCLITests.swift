import Foundation
import Testing
import TestSupport

/// Capture files other people's tools write that do not say plainly what they hold, imported as
/// a user imports them: a btsnoop labelled datalink 1001 (H1) whose records are H4, and a pcapng
/// with Simple Packet Blocks (no timestamp). Each imports as what it holds, complete, with a
/// warning on the capture that says how it was read.
@Suite("capture format variants", .serialized)
struct CaptureFormatVariantsCLITests {
    static let peer: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]

    /// A central's link: LE Connection Complete (handle 0x0040), two ATT reads 30 ms apart
    /// each (Read Request 0A, handle 0x0003 / 0x0005; Read Response 0B with the value), then
    /// Disconnection Complete 0x13. Records 0 to 5; the responses are records 2 and 4.
    static func link() -> SpecCapture {
        var c = SpecCapture()
        c.connectionComplete(0, handle: 0x0040, role: 0, peer: peer)
        var t: Int64 = 100
        c.exchange(&t, handle: 0x0040, [0x0A, 0x03, 0x00], [0x0B, 0x01, 0x02])
        c.exchange(&t, handle: 0x0040, [0x0A, 0x05, 0x00], [0x0B, 0x03])
        c.disconnectionComplete(t + 100, handle: 0x0040, reason: 0x13)
        return c
    }

    static func importing(_ bytes: [UInt8], as name: String) throws -> (CLI.Result, String, String) {
        let dir = CLI.temporaryDirectory()
        let file = dir.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let db = dir.appendingPathComponent("t.db").path
        return (try CLI.run(["import", file, "--db", db]), file, db)
    }

    @Test func btsnoopLabelledH1HoldingH4ImportsAsH4WithAWarning() throws {
        var bytes = Self.link().bytes
        bytes[12..<16] = [0x00, 0x00, 0x03, 0xE9]   // datalink 1001 in the file header
        let (r, file, db) = try Self.importing(bytes, as: "labelled-h1.btsnoop")
        #expect(r.status == 0)
        #expect(r.stdout.contains("imported \(file): 6 records, btsnoop v1, unencapsulated HCI (H1) datalink 1001 "
            + "in the header, records read as HCI UART (H4) datalink 1002"))
        #expect(r.stderr.contains("warning: \(file): byte 16: the file header says datalink 1001"))
        #expect(try SQLite.scalar(db, "SELECT status FROM captures") == "complete")
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM json_each((SELECT warnings FROM captures))") == "1")
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM connections WHERE status = 0 AND disconnect_reason = 19") == "1")
        #expect(try SQLite.scalar(db, "SELECT group_concat(outcome || ':' || latency_us) FROM att_transactions") == "ok:30000,ok:30000")
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM packets WHERE summary LIKE '%malformed%'") == "0")
    }

    /// The two Read Responses in Simple Packet Blocks: each is timed at the request before it, so
    /// the link's times stay those of its timestamped packets.
    @Test func pcapngSimplePacketsTakeTheTimeBeforeThem() throws {
        let (r, file, db) = try Self.importing(Self.link().pcapngBytes(simplePackets: [2, 4]), as: "spb.pcapng")
        #expect(r.status == 0)
        #expect(r.stderr.contains("warning: \(file): byte "))
        #expect(r.stderr.contains("2 packet(s) in pcapng Simple Packet Blocks, which carry no timestamp: "
            + "2 timed at the timestamped packet before them"))
        #expect(try SQLite.scalar(db, "SELECT status FROM captures") == "complete")
        // 2026-05-04T08:00:00Z, the link 0 to 280 ms.
        #expect(try SQLite.scalar(db, "SELECT first_ts_us || ' ' || last_ts_us FROM captures")
            == "1777881600000000 1777881600280000")
        #expect(try SQLite.scalar(db, "SELECT group_concat(ts_us - 1777881600000000) FROM packets") == "0,100000,100000,140000,140000,280000")
        #expect(try SQLite.scalar(db, "SELECT group_concat(outcome || ':' || latency_us) FROM att_transactions") == "ok:0,ok:0")
        #expect(try SQLite.scalar(db, "SELECT disconnected_ts_us - connected_ts_us FROM connections") == "280000")
    }

    /// A fleet report over such files reads them whole: `read`, with the note among the input's
    /// warnings, not `partial` (which says a capture was counted only up to its damage).
    @Test func aFleetReportCountsTheseInputsAsRead() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let inputs = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        var labelled = Self.link().bytes
        labelled[12..<16] = [0x00, 0x00, 0x03, 0xE9]
        try Data(labelled).write(to: inputs.appendingPathComponent("labelled-h1.btsnoop"))
        try Data(Self.link().pcapngBytes(simplePackets: [2, 4])).write(to: inputs.appendingPathComponent("spb.pcapng"))
        let out = dir.appendingPathComponent("report").path
        let r = try CLI.run(["report", inputs.path, "-o", out, "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/report.json"))) as? [String: Any]
        let files = (json?["inputs"] as? [String: Any])?["files"] as? [[String: Any]] ?? []
        #expect(files.count == 2)
        for f in files {
            #expect(f["status"] as? String == "read", "\(f)")
            #expect((f["warnings"] as? [String])?.count == 1, "\(f)")
        }
        #expect((json?["connections"] as? [String: Any])?["established"] as? Int == 2)
    }
}
