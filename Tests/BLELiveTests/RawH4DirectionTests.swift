import Foundation
import Testing
import TestSupport
import BLECore
import BLETimeline
@testable import BLELive

/// Raw H4 (`record --stdin`/`--tcp` without a btsnoop header) carries no direction for ACL, SCO
/// and ISO: the recording stores them unknown, as importing pcap LINKTYPE 187 does, so the
/// analysis infers ATT directions from opcodes in both. `-o FILE.pcap` writes LINKTYPE 187, whose
/// import is the recording's timeline; `-o FILE.btsnoop` cannot say "unknown" and says so.
@Suite struct RawH4DirectionTests {
    static func run(_ arguments: [String], stdin: [UInt8]? = nil) throws -> RecordCLITests.Result {
        try RecordCLITests.run(arguments, stdin: stdin)
    }

    /// What the analysis concluded, without times (a recording stamps records at arrival).
    static func analysis(_ db: String) throws -> [String] {
        let queries = [
            "SELECT id || ' ' || kind || ' ' || direction FROM packets ORDER BY id",
            "SELECT request_packet_id || ' ' || opcode || ' ' || outcome || ' ' || ifnull(error_code, '') FROM att_transactions ORDER BY 1",
            "SELECT direction || ' ' || opcode || ' ' || ifnull(handle, '') FROM att_pdus ORDER BY packet_id",
            "SELECT code || ' ' || severity FROM findings ORDER BY 1",
        ]
        return try queries.flatMap { try Live.rows(db, $0).map { $0[0].string ?? "NULL" } + ["--"] }
    }

    /// `SpecCapture.silentPeerLinkLoss` as raw H4 on stdin gives the timeline importing the same
    /// records as pcap 187 gives; the pcap file the recording writes is LINKTYPE 187 and imports
    /// as the recording's own timeline.
    @Test func recordingRawH4IsImportingLinkType187() throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let capture = SpecCapture.silentPeerLinkLoss()
        try capture.writePcapH4(to: dir + "/spec.pcap")
        let r = try Self.run(["record", "--stdin", "-o", dir + "/r.pcap", "--db", dir + "/r.db"], stdin: capture.rawH4Bytes)
        #expect(r.status == 0)
        #expect(r.stderr == "")
        #expect(r.stdout.contains("\npcap: \(dir)/r.pcap\n"), "\(r.stdout)")
        let imported = try Self.run(["import", dir + "/spec.pcap", "--db", dir + "/spec.db"])
        #expect(imported.status == 0)
        let recorded = try Self.analysis(dir + "/r.db")
        #expect(recorded == (try Self.analysis(dir + "/spec.db")))
        #expect(recorded.contains { $0.hasSuffix(" acl ?") })
        #expect(!recorded.contains { $0.hasSuffix(" acl tx") || $0.hasSuffix(" acl rx") })
        #expect(try Live.rows(dir + "/r.db", "SELECT format, status, link_type FROM capture").first?.map { $0.string ?? "\($0.int ?? -1)" }
                == ["pcap", "complete", "187"])

        // The file written: pcap LINKTYPE 187 (bytes 20-23 of the file header, little-endian).
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/r.pcap")))
        #expect(Array(file[20..<24]) == [187, 0, 0, 0])
        let again = try Self.run(["import", dir + "/r.pcap", "--db", dir + "/again.db"])
        #expect(again.status == 0)
        let mine = try Self.run(["timeline", dir + "/r.db", "--json"]), theirs = try Self.run(["timeline", dir + "/again.db", "--json"])
        #expect(mine.status == 0 && theirs.status == 0)
        #expect(mine.stdout.replacingOccurrences(of: "<stdin>", with: "X") == theirs.stdout.replacingOccurrences(of: "\(dir)/r.pcap", with: "X")
                .replacingOccurrences(of: "r.pcap", with: "X"))
    }

    /// `-o FILE.btsnoop`: btsnoop has no "unknown" direction, so the file says sent (flag 0); the
    /// timeline keeps the records unknown (same analysis as pcap 187) and a warning says what the
    /// file holds, on stderr and in the capture's warnings, without making it truncated.
    @Test func rawH4ToBtsnoopKeepsTheTimelineUnknownAndSaysSo() throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let capture = SpecCapture.silentPeerLinkLoss()
        try capture.writePcapH4(to: dir + "/spec.pcap")
        let r = try Self.run(["record", "--stdin", "-o", dir + "/r.btsnoop", "--db", dir + "/r.db"], stdin: capture.rawH4Bytes)
        #expect(r.status == 0)
        let acl = try Live.rows(dir + "/r.db", "SELECT count(*) FROM packets WHERE kind = 'acl'").first?[0].int ?? 0
        #expect(acl > 0)
        #expect(r.stderr == "warning: \(acl) ACL/SCO/ISO record(s) of raw H4 have no direction (H4 carries none), and btsnoop has no "
                + "\"unknown\" flag: \(dir)/r.btsnoop stores them as sent (flag 0), so importing it shows them as sent; this timeline "
                + "keeps them unknown, as importing pcap LINKTYPE 187 does. Record with -o FILE.pcap (LINKTYPE 187) for a file that keeps them unknown\n")
        _ = try Self.run(["import", dir + "/spec.pcap", "--db", dir + "/spec.db"])
        #expect(try Self.analysis(dir + "/r.db") == (try Self.analysis(dir + "/spec.db")))
        let row = try #require(try Live.rows(dir + "/r.db", "SELECT status, warnings FROM captures").first)
        #expect(row[0].string == "complete")
        #expect(row[1].string?.contains("stores them as sent (flag 0)") == true)
    }

    /// The QA case: android-yeelock's H4 packets on stdin. Stored as sent, the peer's answers looked
    /// like the host's (48 pending + 4 disconnected transactions); unknown, 38 ok and 14 errors.
    @Test func yeelockRawH4PairsItsTransactions() throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try Self.run(["record", "--stdin", "--db", dir + "/y.db"], stdin: try Live.rawH4(Live.capture("android-yeelock.btsnoop")))
        #expect(r.status == 0)
        let outcomes = try Live.rows(dir + "/y.db", "SELECT outcome, count(*) FROM att_transactions GROUP BY 1 ORDER BY 1")
        #expect(outcomes.map { "\($0[0].string ?? "") \($0[1].int ?? 0)" } == ["error 14", "ok 38"])
    }

    /// `export` of a timeline whose ACL has no direction: pcap is LINKTYPE 187 (importing it gives
    /// the same timeline); btsnoop writes them as sent and says how many, exit 0.
    @Test func exportOfADirectionlessTimeline() throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try SpecCapture.silentPeerLinkLoss().writePcapH4(to: dir + "/spec.pcap")
        _ = try Self.run(["import", dir + "/spec.pcap", "--db", dir + "/spec.db"])
        let acl = try Live.rows(dir + "/spec.db", "SELECT count(*) FROM packets WHERE kind = 'acl'").first?[0].int ?? 0
        let pcap = try Self.run(["export", dir + "/spec.db", "--format", "pcap", "-o", dir + "/e.pcap"])
        #expect(pcap.status == 0)
        #expect(pcap.stderr == "")
        #expect(pcap.stdout.hasSuffix("records, pcap LINKTYPE 187 (H4 without direction)\n"), "\(pcap.stdout)")
        _ = try Self.run(["import", dir + "/e.pcap", "--db", dir + "/e.db"])
        #expect(try Self.analysis(dir + "/e.db") == (try Self.analysis(dir + "/spec.db")))
        let btsnoop = try Self.run(["export", dir + "/spec.db", "--format", "btsnoop", "-o", dir + "/e.btsnoop"])
        #expect(btsnoop.status == 0)
        #expect(btsnoop.stderr == "warning: \(acl) record(s) have no known direction (\(acl) acl) and were written as sent (host to controller): "
                + "btsnoop v1 datalink 1002 (H4) has no \"unknown\" direction; importing \(dir)/e.btsnoop shows them as sent; "
                + "--format pcap keeps them unknown (LINKTYPE 187)\n")
    }
}
