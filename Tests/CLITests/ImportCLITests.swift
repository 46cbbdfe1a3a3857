import Foundation
import Testing

/// `blereplay import` run as a user runs it: exit codes, messages, and what lands on disk.
@Suite("blereplay import", .serialized)
struct ImportCLITests {
    let yeelock = CLI.sharedCapture("android-yeelock.btsnoop")

    @Test func importsARealCapture() throws {
        let dir = CLI.temporaryDirectory()
        let db = dir.appendingPathComponent("t.db").path
        let r = try CLI.run(["import", yeelock, "--db", db])
        #expect(r.status == 0)
        #expect(r.stdout.contains("imported \(yeelock): 690 records, btsnoop v1, HCI UART (H4) datalink 1002"))
        #expect(r.stdout.contains("timeline: \(db)"))
        #expect(FileManager.default.fileExists(atPath: db))
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM packets") == "690")
        // android-yeelock: tshark counts 3 LE connection completes and 2 disconnects with 0x13.
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM connections") == "3")
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM errors WHERE context = 'disconnect' AND code = 19") == "2")
    }

    @Test func importingTheSameCaptureTwiceDoesNotDuplicate() throws {
        let db = CLI.temporaryDirectory().appendingPathComponent("t.db").path
        _ = try CLI.run(["import", yeelock, "--db", db])
        let again = try CLI.run(["import", yeelock, "--db", db])
        #expect(again.status == 0)
        #expect(again.stdout.contains("skipped \(yeelock): already in \(db)"))
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM packets") == "690")
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM captures") == "1")
    }

    @Test func unknownFormatIsExit65AndLeavesNoFile() throws {
        let dir = CLI.temporaryDirectory()
        let junk = dir.appendingPathComponent("notes.txt")
        try Data("just some text, not a capture\n".utf8).write(to: junk)
        let db = dir.appendingPathComponent("t.db").path
        let r = try CLI.run(["import", junk.path, "--db", db])
        #expect(r.status == 65)
        #expect(r.stderr.contains(junk.path))
        #expect(!FileManager.default.fileExists(atPath: db))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: dir.path))?.filter { $0.hasPrefix("t.db") } == [])
    }

    /// A pcapng whose two interfaces have different link types: 201 (H4 with direction) and
    /// 187 (H4), as a merge of two captures gives. libpcap reads one link type per file; the
    /// reader reads on from a copy that gives them one, each packet by its own interface's link
    /// type, so the HCI_Reset on interface 1 (LINKTYPE 187) is frame 1 of controller 1. Blocks as
    /// the pcapng spec lays them out: SHB (0x0A0D0D0A), IDB (0x00000001) x2, EPB (0x00000006)
    /// on interface 1.
    @Test func aPcapngMixingLinkTypesIsImported() throws {
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        func block(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
            let length = UInt32(12 + body.count)
            return le32(type) + le32(length) + body + le32(length)
        }
        let shb = block(0x0A0D_0D0A, le32(0x1A2B_3C4D) + le16(1) + le16(0) + [UInt8](repeating: 0xFF, count: 8))
        let idb201 = block(1, le16(201) + le16(0) + le32(0))
        let idb187 = block(1, le16(187) + le16(0) + le32(0))
        let hciReset: [UInt8] = [0x01, 0x03, 0x0C, 0x00]   // H4 command: HCI_Reset
        let epb = block(6, le32(1) + le32(0) + le32(0) + le32(4) + le32(4) + hciReset)
        let dir = CLI.temporaryDirectory()
        let file = dir.appendingPathComponent("merged.pcapng")
        try Data(shb + idb201 + idb187 + epb).write(to: file)
        let db = dir.appendingPathComponent("t.db").path
        let r = try CLI.run(["import", file.path, "--db", db])
        #expect(r.status == 0)
        #expect(FileManager.default.fileExists(atPath: db))
        let timeline = try CLI.run(["timeline", db])
        #expect(timeline.status == 0)
        #expect(timeline.stdout.contains("Reset"))
    }

    @Test func emptyAndMissingFilesAreExit65() throws {
        let dir = CLI.temporaryDirectory()
        let empty = dir.appendingPathComponent("empty.btsnoop")
        FileManager.default.createFile(atPath: empty.path, contents: Data())
        let r = try CLI.run(["import", empty.path, "--db", dir.appendingPathComponent("t.db").path])
        #expect(r.status == 65)
        #expect(r.stderr.contains(empty.path))
        let missing = try CLI.run(["import", dir.appendingPathComponent("nope.log").path, "--db", dir.appendingPathComponent("u.db").path])
        #expect(missing.status == 65)
        #expect(missing.stderr.contains("nope.log"))
    }

    @Test func airCaptureFromASnifferImports() throws {
        let dir = CLI.temporaryDirectory()
        let db = dir.appendingPathComponent("t.db").path
        let r = try CLI.run(["import", CLI.sharedCapture("nrf-sniffer-zero-ltk.pcap"), "--db", db])
        #expect(r.status == 0)
        #expect(r.stdout.contains("LINKTYPE_NORDIC_BLE (272)"))
        // tshark: 479 frames, one CONNECT_IND, 154 ATT PDUs, LL_TERMINATE_IND 0x13.
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM packets") == "479")
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM connections WHERE began_before_capture = 0") == "1")
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM att_pdus") == "154")
        #expect(try SQLite.scalar(db, "SELECT group_concat(code) FROM errors WHERE context = 'disconnect'") == "19")
    }

    /// An air capture is replayed (Docs/replay.md "Sniffer captures"): it was refused with exit 65.
    @Test func replayReplaysAnAirCapture() throws {
        let r = try CLI.run(["replay", CLI.sharedCapture("sniffle-gatt.pcap")])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(!r.stderr.contains("link-layer (air) capture"))
        #expect(r.stdout.contains("1 connection(s): 1 reproduced, 0 diverged"), "\(r.stdout)")
    }

    @Test func truncatedLastRecordImportsTheRestWithAWarning() throws {
        let dir = CLI.temporaryDirectory()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: yeelock))
        bytes.removeLast(5)   // Android writes the log while it runs: the last record is cut short.
        let cut = dir.appendingPathComponent("cut.log")
        try bytes.write(to: cut)
        let db = dir.appendingPathComponent("t.db").path
        let r = try CLI.run(["import", cut.path, "--db", db])
        #expect(r.status == 0)
        #expect(r.stderr.contains("warning: \(cut.path): byte "))
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM packets") == "689")
        #expect(try SQLite.scalar(db, "SELECT status FROM captures") == "truncated")
    }

    @Test func corruptRecordInTheMiddleImportsWhatPrecedesAndExits65() throws {
        let dir = CLI.temporaryDirectory()
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: yeelock)))
        // Walk to record 101 (btsnoop: 16-byte header, then 24-byte record headers with big-endian lengths).
        var offset = 16
        for _ in 0..<100 {
            let included = Int(bytes[offset + 4]) << 24 | Int(bytes[offset + 5]) << 16 | Int(bytes[offset + 6]) << 8 | Int(bytes[offset + 7])
            offset += 24 + included
        }
        // Included length 0x7FFFFFFF: impossible (greater than the original length and than any HCI packet).
        bytes[offset + 4] = 0x7F; bytes[offset + 5] = 0xFF; bytes[offset + 6] = 0xFF; bytes[offset + 7] = 0xFF
        let bad = dir.appendingPathComponent("bad.btsnoop")
        try Data(bytes).write(to: bad)
        let db = dir.appendingPathComponent("t.db").path
        let r = try CLI.run(["import", bad.path, "--db", db])
        #expect(r.status == 65)
        #expect(r.stderr.contains("\(bad.path): byte \(offset)"))
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM packets") == "100")
        #expect(try SQLite.scalar(db, "SELECT status FROM captures") == "corrupt")
    }

    @Test func aFailedRunNeverDamagesAnExistingTimeline() throws {
        let dir = CLI.temporaryDirectory()
        let db = dir.appendingPathComponent("t.db").path
        _ = try CLI.run(["import", yeelock, "--db", db])
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let junk = dir.appendingPathComponent("junk.bin")
        try Data(repeating: 0xAB, count: 4096).write(to: junk)
        let r = try CLI.run(["import", junk.path, "--db", db])
        #expect(r.status == 65)
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
    }

    @Test func usageErrorsAreExit2() throws {
        #expect(try CLI.run([]).status == 2)
        #expect(try CLI.run(["import"]).status == 2)
        #expect(try CLI.run(["import", yeelock, "--frobnicate"]).status == 2)
        #expect(try CLI.run(["no-such-command"]).status == 2)
        let dir = CLI.temporaryDirectory()
        let notTimeline = dir.appendingPathComponent("x.db")
        FileManager.default.createFile(atPath: notTimeline.path, contents: Data("SQLite format 3\0".utf8) + Data(count: 100))
        #expect(try CLI.run(["timeline", yeelock, "--layer", "bogus"]).status == 2)
    }
}

/// Reads a value with the sqlite3 shell (independent of our own SQLite wrapper).
enum SQLite {
    static func scalar(_ db: String, _ sql: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = [db, sql]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
