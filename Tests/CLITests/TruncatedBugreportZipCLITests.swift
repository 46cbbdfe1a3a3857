import Foundation
import Testing

/// Bugreport zips cut short (an interrupted `adb pull`, download or copy): the central directory
/// at the end is gone, and every command reads the members from their local headers, up to the
/// cut. The zips are built at test time by `Scripts/make_bugreport_zip.py`, with sizes in the
/// local headers and with data descriptors (general purpose bit 3), deflated and stored, and cut
/// where their own layout says (as Python's zipfile reads it): inside the central directory,
/// inside a log's data, inside a local header, inside the main text. The records each log must
/// give are counted from what Python's zlib inflates from the bytes before the cut.
@Suite("Bugreport zips cut short", .serialized)
struct TruncatedBugreportZipCLITests {
    static let longSession = CLI.sharedCapture("android-lock-long-session.btsnoop")
    static let yeelock = CLI.sharedCapture("android-yeelock.btsnoop")
    static let logDirectory = "FS/data/misc/bluetooth/logs/"
    static let mainText = "bugreport-panther-UQ1A.240205.004-2024-03-01-12-00-00.txt"

    /// Where a zip is cut.
    enum Cut: String, CaseIterable, Sendable {
        /// Ten bytes into the central directory: every member is whole.
        case centralDirectory
        /// Halfway through the data of the last log (`btsnoop_hci.log.last`).
        case lastLogData
        /// 60% into the data of the first log: the rotated log after it is gone.
        case firstLogData
        /// Ten bytes into the local header of the last log.
        case localHeader
        /// A thousand bytes into the main text: no log is left.
        case mainText
    }

    /// Prints, as JSON, the zip's central directory offset and, for each cut, the offset and what
    /// each member whose data begins before it yields: its bytes, its complete btsnoop records,
    /// and whether the cut is inside it. Stored bytes are taken as they are, deflated ones through
    /// `zlib.decompressobj(-15)`.
    static let layoutScript = #"""
        import json, struct, sys, zipfile, zlib
        path = sys.argv[1]
        data = open(path, "rb").read()
        z = zipfile.ZipFile(path)

        def records(b):
            if b[:8] != b"btsnoop\0":
                return None
            off, n = 16, 0
            while off + 24 <= len(b):
                included = struct.unpack(">I", b[off + 4:off + 8])[0]
                if off + 24 + included > len(b):
                    break
                n, off = n + 1, off + 24 + included
            return n

        members = []
        for info in z.infolist():
            h = info.header_offset
            name_length, extra_length = struct.unpack("<HH", data[h + 26:h + 30])
            start = h + 30 + name_length + extra_length
            members.append((info, h, start, start + info.compress_size))
        end_record = data.rfind(b"PK\x05\x06")
        central = struct.unpack("<I", data[end_record + 16:end_record + 20])[0]
        by_name = {m[0].filename: m for m in members}
        first_log = by_name["FS/data/misc/bluetooth/logs/btsnoop_hci.log"]
        last_log = by_name["FS/data/misc/bluetooth/logs/btsnoop_hci.log.last"]
        main = members[0]
        cuts = {
            "centralDirectory": central + 10,
            "lastLogData": last_log[2] + (last_log[3] - last_log[2]) // 2,
            "firstLogData": first_log[2] + (first_log[3] - first_log[2]) * 6 // 10,
            "localHeader": last_log[1] + 10,
            "mainText": main[2] + 1000,
        }
        out = {"centralDirectory": central, "cuts": {}}
        for kind, cut in cuts.items():
            yields = {}
            for info, header, start, end in members:
                if cut < start:
                    continue
                if cut >= end:
                    got = z.read(info)
                else:
                    raw = data[start:cut]
                    got = raw if info.compress_type == zipfile.ZIP_STORED else zlib.decompressobj(-15).decompress(raw)
                yields[info.filename] = {"bytes": len(got), "records": records(got), "cut": cut < end}
            out["cuts"][kind] = {"offset": cut, "members": yields}
        print(json.dumps(out))
        """#

    struct Expected {
        var offset: Int
        /// member -> (bytes, records, cut inside it)
        var members: [String: (bytes: Int, records: Int?, isCut: Bool)]
    }

    /// The cut offsets and yields of `zip`, from `layoutScript`.
    static func layout(_ zip: String) throws -> (centralDirectory: Int, cuts: [Cut: Expected]) {
        let script = CLI.temporaryDirectory().appendingPathComponent("layout.py")
        try layoutScript.write(to: script, atomically: true, encoding: .utf8)
        let r = try CLIProcesses.shell("python3 '\(script.path)' '\(zip)'")
        #expect(r.status == 0, "layout.py: \(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        var cuts: [Cut: Expected] = [:]
        for (kind, value) in (json["cuts"] as? [String: [String: Any]]) ?? [:] {
            guard let cut = Cut(rawValue: kind), let offset = value["offset"] as? Int,
                  let members = value["members"] as? [String: [String: Any]] else { continue }
            cuts[cut] = Expected(offset: offset, members: members.mapValues {
                (bytes: $0["bytes"] as? Int ?? -1, records: $0["records"] as? Int, isCut: $0["cut"] as? Bool ?? false)
            })
        }
        return (json["centralDirectory"] as? Int ?? -1, cuts)
    }

    /// The first `count` bytes of `path`, as a new file named `name`.
    static func prefix(_ path: String, _ count: Int, name: String) throws -> String {
        let out = CLI.temporaryDirectory().appendingPathComponent(name).path
        #expect(try CLIProcesses.shell("head -c \(count) '\(path)' > '\(out)'").status == 0)
        return out
    }

    /// What `import` exits with for a plain btsnoop capture cut inside a record.
    static func truncatedCaptureStatus() throws -> Int32 {
        let size = try FileManager.default.attributesOfItem(atPath: yeelock)[.size] as? Int ?? 0
        let cut = try prefix(yeelock, size - 5, name: "cut.btsnoop")
        let db = CLI.temporaryDirectory().appendingPathComponent("plain.db").path
        let r = try CLI.run(["import", cut, "--db", db])
        #expect(r.stderr.contains("warning: \(cut): byte "))
        #expect(try SQLite.scalar(db, "SELECT status FROM captures") == "truncated")
        return r.status
    }

    static let zipKinds: [[String]] = [[], ["--data-descriptor"], ["--data-descriptor", "--store-logs"]]

    /// Each cut of each kind of zip: the logs whose data begins before the cut are imported with
    /// the records that fit before it, the log the cut reaches is a truncated capture with a
    /// warning at its byte, the zip's warning names where the damage begins, and the exit code is
    /// a truncated capture's.
    @Test(arguments: zipKinds, [Cut.centralDirectory, .lastLogData, .firstLogData, .localHeader])
    func aCutZipIsImportedUpToTheCut(options: [String], cut: Cut) throws {
        let whole = try BugreportZipCLITests.makeZip("whole.zip", ["--layout", "o"] + options + [Self.longSession, Self.yeelock])
        let layout = try Self.layout(whole)
        let expected = try #require(layout.cuts[cut])
        let zip = try Self.prefix(whole, expected.offset, name: "bugreport-cut.zip")
        let db = CLI.temporaryDirectory().appendingPathComponent("t.db").path
        let r = try CLI.run(["import", zip, "--db", db])
        #expect(r.status == (try Self.truncatedCaptureStatus()), "\(r.stderr)")
        let damage = cut == .centralDirectory ? layout.centralDirectory : expected.offset
        #expect(r.stderr.contains("warning: \(zip): the zip's central directory cannot be read (libzip: Not a zip archive): "
                                  + "it is cut short or damaged at or after byte \(damage), where "), "\(r.stderr)")
        let logs = expected.members.filter { $0.key.hasPrefix(Self.logDirectory) && $0.value.bytes > 0 }
        #expect(!logs.isEmpty)
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM captures") == "\(logs.count)")
        for (member, yield) in logs {
            let path = "\(zip)!\(member)"
            let records = try #require(yield.records)
            #expect(r.stdout.contains("imported \(path): \(records) records, btsnoop v1"), "\(member): \(r.stdout)")
            #expect(try SQLite.scalar(db, "SELECT records || ' ' || status FROM captures WHERE path = '\(path)'")
                    == "\(records) \(yield.isCut ? "truncated" : "complete")")
            let cutWarning = "warning: \(path): byte \(yield.bytes): the zip is cut short at byte \(expected.offset), "
                + "inside this member: its bytes end at byte \(yield.bytes)"
            #expect(r.stderr.contains(cutWarning) == yield.isCut, "\(member): \(r.stderr)")
        }
        // The same cut zip again: each log is recognised by the SHA-256 of what it yields.
        let again = try CLI.run(["import", zip, "--db", db])
        #expect(again.status == r.status)
        #expect(again.stdout.split(separator: "\n").filter { $0.hasPrefix("skipped ") }.count == logs.count, "\(again.stdout)")
    }

    /// A zip cut inside the main text holds no log: refused (exit 65) as a zip without one, saying
    /// the zip is cut and where.
    @Test(arguments: zipKinds)
    func aZipCutInsideTheMainTextSaysSo(options: [String]) throws {
        let whole = try BugreportZipCLITests.makeZip("whole.zip", ["--layout", "o"] + options + [Self.longSession, Self.yeelock])
        let expected = try #require(try Self.layout(whole).cuts[.mainText])
        let zip = try Self.prefix(whole, expected.offset, name: "bugreport-cut.zip")
        let db = CLI.temporaryDirectory().appendingPathComponent("t.db").path
        let r = try CLI.run(["import", zip, "--db", db])
        #expect(r.status == 65)
        #expect(r.stderr.contains("error: \(zip): a zip without a Bluetooth log: "), "\(r.stderr)")
        #expect(r.stderr.contains("; the zip's central directory cannot be read (libzip: Not a zip archive): it is cut short or "
                                  + "damaged at or after byte \(expected.offset), where the file ends inside the data of \(Self.mainText)"),
                "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    /// The same zips whole are read by libzip as before: nothing said, every record.
    @Test(arguments: zipKinds)
    func aWholeZipIsReadAsBefore(options: [String]) throws {
        let zip = try BugreportZipCLITests.makeZip("whole.zip", ["--layout", "o"] + options + [Self.longSession, Self.yeelock])
        let db = CLI.temporaryDirectory().appendingPathComponent("t.db").path
        let r = try CLI.run(["import", zip, "--db", db])
        #expect(r.status == 0)
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        #expect(r.stdout == """
            imported \(zip)!\(Self.logDirectory)btsnoop_hci.log: 10931 records, btsnoop v1, HCI UART (H4) datalink 1002
            imported \(zip)!\(Self.logDirectory)btsnoop_hci.log.last: 690 records, btsnoop v1, HCI UART (H4) datalink 1002
            timeline: \(db)

            """)
    }

    /// report over a folder holding a cut zip: the zip is a partial input with its warnings, as a
    /// capture cut short is, and the exit code is the same; diagnose takes the zip too.
    @Test func reportAndDiagnoseTakeACutZip() throws {
        let whole = try BugreportZipCLITests.makeZip("whole.zip", ["--layout", "o", "--data-descriptor", Self.longSession, Self.yeelock])
        let expected = try #require(try Self.layout(whole).cuts[.lastLogData])
        let folder = CLI.temporaryDirectory()
        let zip = folder.appendingPathComponent("bugreport-cut.zip").path
        #expect(try CLIProcesses.shell("head -c \(expected.offset) '\(whole)' > '\(zip)'").status == 0)
        let out = CLI.temporaryDirectory()
        let r = try CLI.run(["report", folder.path, "-o", out.path, "--format", "json"])

        let plainFolder = CLI.temporaryDirectory()
        let size = try FileManager.default.attributesOfItem(atPath: Self.yeelock)[.size] as? Int ?? 0
        #expect(try CLIProcesses.shell("head -c \(size - 5) '\(Self.yeelock)' > '\(plainFolder.path)/cut.btsnoop'").status == 0)
        let plain = try CLI.run(["report", plainFolder.path, "-o", CLI.temporaryDirectory().path, "--format", "json"])
        #expect(r.status == plain.status, "\(r.stderr)")

        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("report.json"))) as? [String: Any]
        let files = ((json?["inputs"] as? [String: Any])?["files"] as? [[String: Any]]) ?? []
        #expect(files.count == 1)
        #expect(files.first?["kind"] as? String == "bugreport")
        #expect(files.first?["status"] as? String == "partial")
        #expect(files.first?["captures"] as? Int == 2)
        let warnings = (files.first?["warnings"] as? [String]) ?? []
        #expect(warnings.first?.hasPrefix("\(zip): the zip's central directory cannot be read") == true, "\(warnings)")
        let last = try #require(expected.members[Self.logDirectory + "btsnoop_hci.log.last"])
        #expect(warnings.contains("\(zip)!\(Self.logDirectory)btsnoop_hci.log.last: byte \(last.bytes): the zip is cut short at byte "
                                  + "\(expected.offset), inside this member: its bytes end at byte \(last.bytes)"), "\(warnings)")

        let diagnosis = try CLI.run(["diagnose", zip])
        #expect(diagnosis.status == 0, "\(diagnosis.stderr)")
        #expect(diagnosis.stderr.contains("warning: \(zip): the zip's central directory cannot be read"))
        #expect(diagnosis.stdout.contains("host: Android, inferred from an Android bugreport"))
    }
}
