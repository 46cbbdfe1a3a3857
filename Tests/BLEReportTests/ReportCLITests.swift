import Foundation
import Testing

/// `blereplay report` and `blereplay export` run as a user would: stdout, stderr, exit code.
@Suite struct ReportCLITests {
    @Test func reportOverADirectoryWithGarbage() throws {
        let dir = Support.scratch(), out = Support.scratch()
        defer { Support.remove(dir); Support.remove(out) }
        try FileManager.default.copyItem(atPath: Support.sample("heart-rate-supervision-timeout.btsnoop"), toPath: dir + "/hrm.btsnoop")
        try Data([0x00, 0x01, 0x02, 0x03]).write(to: URL(fileURLWithPath: dir + "/junk.log"))
        let r = try Tool.run(["report", dir, "-o", out])
        // An unreadable input: exit 65 and named, the report written for the rest.
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains("1 input(s) unreadable or corrupt (the report covers the rest): \(dir)/junk.log"))
        #expect(r.stdout.contains("1 capture(s) from 1 file(s), 1 file(s) could not be read"))
        #expect(r.stdout.contains("0x08 Connection Timeout ×1 (CBError.connectionTimeout; Android 8 GATT_CONN_TIMEOUT)"))
        #expect(r.stdout.contains("not read: 1 file(s)"))
        #expect(r.stdout.contains("written: \(out)/report.html, \(out)/report.md, \(out)/report.json"))
        #expect(r.stderr.contains("junk.log"))
        for file in ["report.html", "report.md", "report.json", "disconnect_reasons.csv", "events_by_firmware.csv"] {
            #expect(FileManager.default.fileExists(atPath: out + "/" + file), "\(file)")
        }
        let csv = String(decoding: Support.read(out + "/disconnect_reasons.csv"), as: UTF8.self)
        #expect(csv.hasPrefix("code,code_hex,name,cb_error,android_status,android_name,count,share_percent\n"))
        #expect(csv.contains("8,0x08,Connection Timeout,CBError.connectionTimeout,8,GATT_CONN_TIMEOUT,1,50.0\n"))
    }

    @Test func reportWithNothingReadable() throws {
        let dir = Support.scratch(), out = Support.scratch() + "/never"
        defer { Support.remove(dir) }
        try Data("nothing".utf8).write(to: URL(fileURLWithPath: dir + "/a.bin"))
        let r = try Tool.run(["report", dir + "/a.bin", dir + "/missing.btsnoop", "-o", out])
        #expect(r.status == 65)
        #expect(r.stderr.contains("no input could be read"))
        #expect(r.stderr.contains("missing.btsnoop"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test(arguments: [["report"], ["report", "Captures", "--format", "pdf"], ["report", "Captures", "--jobs", "0"],
                      ["export"], ["export", "x.db"], ["export", "x.db", "--format", "zip", "-o", "y"]])
    func usageErrors(_ argv: [String]) throws {
        let r = try Tool.run(argv)
        #expect(r.status == 2, "\(argv): \(r.stderr)")
    }

    @Test func formatsCanBeChosen() throws {
        let out = Support.scratch()
        defer { Support.remove(out) }
        let r = try Tool.run(["report", Support.sample("auth-errors.btsnoop"), "-o", out, "--format", "json,md", "--jobs", "1"])
        #expect(r.status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(files == ["report.json", "report.md"])
    }

    @Test func exportAndNoRaw() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        #expect(try Tool.run(["import", Support.sample("pairing-failed.btsnoop"), "--db", dir + "/a.db"]).status == 0)
        let ok = try Tool.run(["export", dir + "/a.db", "--format", "btsnoop", "-o", dir + "/a.btsnoop"])
        #expect(ok.status == 0)
        // The pairing's Confirm and Random values are zeroed (key material); nothing else changes.
        let exported = Array(Support.read(dir + "/a.btsnoop")), source = Array(Support.read(Support.sample("pairing-failed.btsnoop")))
        #expect(exported.count == source.count)
        #expect(zip(exported, source).filter { $0 != $1 }.allSatisfy { $0.0 == 0 })
        #expect(exported != source)
        let trace = try Tool.run(["export", dir + "/a.db", "--format", "trace", "-o", dir + "/a.json"])
        #expect(trace.status == 0)
        #expect(String(decoding: Support.read(dir + "/a.json"), as: UTF8.self).hasPrefix("{\"traceEvents\":["))

        #expect(try Tool.run(["import", Support.sample("pairing-failed.btsnoop"), "--db", dir + "/b.db", "--no-raw"]).status == 0)
        let refused = try Tool.run(["export", dir + "/b.db", "--format", "pcap", "-o", dir + "/b.pcap"])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("--no-raw"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/b.pcap"))
    }
}

/// `report` exits 65 when an input is unreadable or corrupt, names each, and still writes the
/// report for the rest; a cut-short last record (a log still being written) is only a warning.
@Suite struct ReportDamagedInputTests {
    /// heart-rate-healthy.btsnoop with record 101's included length set to 0x7FFFFFFF (btsnoop
    /// record header: original length u32, included length u32, flags, drops, timestamp; all
    /// big-endian), or with its last 3 bytes cut off.
    static func damaged(_ dir: String) throws -> (middle: String, cut: String) {
        var bytes = Array(Support.read(Support.sample("heart-rate-healthy.btsnoop")))
        let cut = dir + "/cut.btsnoop", middle = dir + "/middle.btsnoop"
        try Data(bytes.dropLast(3)).write(to: URL(fileURLWithPath: cut))
        var offset = 16
        for _ in 0..<100 {
            let included = bytes[(offset + 4)..<(offset + 8)].reduce(0) { $0 << 8 | Int($1) }
            offset += 24 + included
        }
        bytes.replaceSubrange((offset + 4)..<(offset + 8), with: [0x7F, 0xFF, 0xFF, 0xFF])
        try Data(bytes).write(to: URL(fileURLWithPath: middle))
        return (middle, cut)
    }

    @Test func corruptInputExits65AndIsNamed() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let (middle, cut) = try Self.damaged(dir)
        let r = try Tool.run(["report", middle, cut, Support.sample("auth-errors.btsnoop"), "-o", dir + "/out", "--format", "json"])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains("corrupt, read up to the damage: \(middle): byte 3999: record 101"))
        #expect(r.stderr.contains("1 input(s) unreadable or corrupt (the report covers the rest): \(middle)\n"))
        #expect(FileManager.default.fileExists(atPath: dir + "/out/report.json"))
        // A timeline holding the corrupt capture is corrupt too.
        #expect(try Tool.run(["import", middle, "--db", dir + "/m.db"]).status == 65)
        let db = try Tool.run(["report", dir + "/m.db", "-o", dir + "/out2", "--format", "json"])
        #expect(db.status == 65, "\(db.stderr)")
        #expect(db.stderr.contains("unreadable or corrupt (the report covers the rest): \(dir)/m.db"))
    }

    @Test func cutShortLastRecordIsAWarning() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let (_, cut) = try Self.damaged(dir)
        let r = try Tool.run(["report", cut, "-o", dir + "/out", "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("warning: \(cut): byte 7810: truncated record"))
    }
}
