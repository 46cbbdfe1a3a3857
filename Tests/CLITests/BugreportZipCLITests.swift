import Foundation
import Testing

/// Android bugreport zips (`adb bugreport`) given to every command as they come: each snoop log
/// in the zip is a capture named `ZIP!member`, the phone's identity comes from the main text, and
/// bad zips are refused with exit 65. The zips are built at test time by
/// `Scripts/make_bugreport_zip.py` in each Android version's layout, around the sample captures
/// and the real ones in `../shared/captures`.
@Suite("Bugreport zips", .serialized)
struct BugreportZipCLITests {
    static let longSession = CLI.sharedCapture("android-lock-long-session.btsnoop")
    static let yeelock = CLI.sharedCapture("android-yeelock.btsnoop")
    static let logDirectory = "FS/data/misc/bluetooth/logs/"
    static let mainText = "bugreport-panther-UQ1A.240205.004-2024-03-01-12-00-00.txt"
    static let fingerprint = "google/panther/panther:14/UQ1A.240205.004/11269751:user/release-keys"

    /// Runs the zip builder; `arguments` are its options and captures.
    static func makeZip(_ name: String, _ arguments: [String]) throws -> String {
        let out = CLI.temporaryDirectory().appendingPathComponent(name).path
        let script = CLI.packageRoot.appendingPathComponent("Scripts/make_bugreport_zip.py").path
        let quoted = ([script, "-o", out] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let r = try CLIProcesses.shell("python3 \(quoted)")
        #expect(r.status == 0, "make_bugreport_zip.py: \(r.stderr)")
        return out
    }

    /// tshark's frame count for a capture.
    static func tsharkFrames(_ path: String) throws -> Int {
        let r = try CLIProcesses.shell("tshark -r '\(path)' -T fields -e frame.number | wc -l")
        return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    static func sha256(_ path: String) throws -> String {
        String(try CLIProcesses.shell("sha256sum '\(path)'").stdout.prefix(64))
    }

    /// The full-log layouts: the log and its rotation are two captures, each with the packet count
    /// of the member imported directly (and tshark's), the member's own SHA-256, and the phone.
    @Test(arguments: [("o", "btsnoop_hci.log"), ("filtered", "btsnoop_hci.log.filtered")])
    func eachLogIsACaptureNamedAfterItsMember(layout: String, log: String) throws {
        let zip = try Self.makeZip("bugreport-\(layout).zip", ["--layout", layout, Self.longSession, Self.yeelock])
        let db = CLI.temporaryDirectory().appendingPathComponent("t.db").path
        let r = try CLI.run(["import", zip, "--db", db])
        #expect(r.status == 0, "\(r.stderr)")
        let member = "\(zip)!\(Self.logDirectory)\(log)", last = "\(member).last"
        // tshark: 10931 frames in android-lock-long-session, 690 in android-yeelock (MANIFEST.md).
        #expect(try Self.tsharkFrames(Self.longSession) == 10931)
        #expect(r.stdout.contains("imported \(member): 10931 records, btsnoop v1, HCI UART (H4) datalink 1002"))
        #expect(r.stdout.contains("imported \(last): 690 records"))
        let direct = CLI.temporaryDirectory().appendingPathComponent("d.db").path
        #expect(try CLI.run(["import", Self.longSession, "--db", direct]).status == 0)
        #expect(try SQLite.scalar(db, "SELECT records FROM captures WHERE path = '\(member)'")
                == SQLite.scalar(direct, "SELECT records FROM captures"))
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM packets WHERE capture_id = (SELECT id FROM captures WHERE path = '\(member)')") == "10931")
        #expect(try SQLite.scalar(db, "SELECT sha256 FROM captures WHERE path = '\(member)'") == Self.sha256(Self.longSession))
        #expect(try SQLite.scalar(db, "SELECT file_name FROM captures WHERE path = '\(last)'") == "\(log).last")
        #expect(try SQLite.scalar(db, """
            SELECT group_concat(phone_manufacturer || '|' || phone_model || '|' || android_version || '|' || build_fingerprint, ';')
            FROM captures
            """) == "Google|Pixel 7|14|\(Self.fingerprint);Google|Pixel 7|14|\(Self.fingerprint)")

        // The same bugreport again: both logs are recognised by their SHA-256, nothing is added.
        let again = try CLI.run(["import", zip, "--db", db])
        #expect(again.status == 0)
        #expect(again.stdout.contains("skipped \(member): already in \(db)"))
        #expect(again.stdout.contains("skipped \(last): already in \(db)"))
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM captures") == "2")
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM packets") == "11621")
    }

    /// A phone that keeps its log in /data/log/bt.
    @Test func theVendorLogDirectoryIsRead() throws {
        let zip = try Self.makeZip("bugreport-vendor.zip", ["--layout", "vendor", "--manufacturer", "samsung",
                                                            "--model", "SM-S918B", Self.yeelock])
        let db = CLI.temporaryDirectory().appendingPathComponent("t.db").path
        let r = try CLI.run(["import", zip, "--db", db])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("imported \(zip)!FS/data/log/bt/btsnoop_hci.log: 690 records"))
        #expect(try SQLite.scalar(db, "SELECT phone_manufacturer || ' ' || phone_model FROM captures") == "samsung SM-S918B")
    }

    /// Android M and N zips carry no snoop log: the btsnooz section of the main text is the
    /// capture, with the records the text itself gives when imported unzipped.
    @Test(arguments: ["m", "n"])
    func withoutAFullLogTheBtsnoozSectionIsRead(layout: String) throws {
        let zip = try Self.makeZip("bugreport-\(layout).zip", ["--layout", layout, Self.yeelock])
        let db = CLI.temporaryDirectory().appendingPathComponent("t.db").path
        let r = try CLI.run(["import", zip, "--db", db])
        #expect(r.status == 0, "\(r.stderr)")
        let member = "\(zip)!\(Self.mainText)"
        #expect(r.stdout.contains("imported \(member): 690 records, Android btsnooz v2"))
        // The same text unzipped, read as the bugreport text it is.
        let text = CLI.temporaryDirectory().appendingPathComponent(Self.mainText).path
        #expect(try CLIProcesses.shell("unzip -p '\(zip)' '\(Self.mainText)' > '\(text)'").status == 0)
        let direct = CLI.temporaryDirectory().appendingPathComponent("d.db").path
        #expect(try CLI.run(["import", text, "--db", direct]).status == 0)
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM packets") == SQLite.scalar(direct, "SELECT count(*) FROM packets"))
        #expect(try SQLite.scalar(db, "SELECT sha256 FROM captures") == Self.sha256(text))
        #expect(try SQLite.scalar(db, "SELECT phone_model || ' / ' || android_version FROM captures") == "Pixel 7 / 14")
    }

    /// diagnose, gatt, timeline and replay take the zip as they take the capture: the same output
    /// but for the capture's name. diagnose also knows the host from the bugreport: Android's view
    /// only, where the bare btsnoop file (H4, no vendor commands) leaves the host open and shows both.
    @Test func commandsTakeTheZipAsTheyTakeTheCapture() throws {
        let sample = CLI.sample("heart-rate-supervision-timeout.btsnoop")
        let zip = try Self.makeZip("bugreport-sample.zip", ["--layout", "o", sample])
        let member = "\(zip)!\(Self.logDirectory)btsnoop_hci.log"
        let diagnosis = try CLI.run(["diagnose", zip])
        #expect(diagnosis.status == 0)
        #expect(diagnosis.stdout.contains("host: Android, inferred from an Android bugreport"))
        #expect(diagnosis.stdout.contains("Android app: onConnectionStateChange status 8 GATT_CONN_TIMEOUT"))
        #expect(!diagnosis.stdout.contains("CBError"))
        let bare = try CLI.run(["diagnose", sample]).stdout
        #expect(bare.contains("CBError"))
        #expect(bare.contains("host: possibly Android, from the btsnoop H4 format Android writes (datalink 1002), which other tools write too"))
        for command in [["gatt"], ["timeline", "--errors"], ["replay"]] {
            let fromCapture = try CLI.run([command[0], sample] + command.dropFirst())
            let fromZip = try CLI.run([command[0], zip] + command.dropFirst())
            #expect(fromZip.status == fromCapture.status, "\(command): \(fromZip.stderr)")
            // Where a command names the capture by its file name, the member's is the log's.
            let renamed = fromZip.stdout.replacingOccurrences(of: member, with: sample)
                .replacingOccurrences(of: "btsnoop_hci.log", with: "heart-rate-supervision-timeout.btsnoop")
            #expect(renamed == fromCapture.stdout, "\(command)")
            #expect(!fromZip.stdout.isEmpty)
        }
    }

    /// report counts each phone: a breakdown by phone appears, one row per model and build.
    @Test func reportBreaksDownByPhone() throws {
        let pixel = try Self.makeZip("pixel.zip", ["--layout", "o", CLI.sample("heart-rate-supervision-timeout.btsnoop")])
        let galaxy = try Self.makeZip("galaxy.zip", ["--layout", "vendor", "--manufacturer", "samsung", "--model", "SM-S918B",
                                                     "--brand", "samsung", "--device", "dm3q", "--build", "UP1A.231005.007",
                                                     CLI.sample("att-timeout.btsnoop")])
        let out = CLI.temporaryDirectory()
        let r = try CLI.run(["report", pixel, galaxy, "-o", out.path, "--format", "json,md"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("report.json"))) as? [String: Any]
        let rows = (json?["by_phone"] as? [[String: Any]]) ?? []
        #expect(rows.map { "\($0["phone_manufacturer"] ?? "")|\($0["phone_model"] ?? "")|\($0["captures"] ?? "")" }
                == ["Google|Pixel 7|1", "samsung|SM-S918B|1"])
        #expect(rows.first?["build_fingerprint"] as? String == Self.fingerprint)
        let inputs = ((json?["inputs"] as? [String: Any])?["files"] as? [[String: Any]]) ?? []
        #expect(inputs.map { $0["kind"] as? String } == ["bugreport", "bugreport"])
        let md = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        #expect(md.contains("By phone (manufacturer / model / build fingerprint)"))
        // A report of captures from no bugreport has no such table.
        let plain = CLI.temporaryDirectory()
        #expect(try CLI.run(["report", CLI.sample("att-timeout.btsnoop"), "-o", plain.path, "--format", "json"]).status == 0)
        let plainJSON = try JSONSerialization.jsonObject(with: Data(contentsOf: plain.appendingPathComponent("report.json"))) as? [String: Any]
        #expect(plainJSON?["by_phone"] == nil)
    }

    // MARK: logs found by their bytes, not their names

    /// Every member whose bytes are a capture is a log, wherever it sits and whatever its name: a
    /// plain zip of the log, a path without the `FS/` prefix, Samsung's `hci_snoop….cfa`, a pcap.
    /// The bugreport's full log is read, not its btsnooz ring buffer.
    @Test(arguments: [
        (["--layout", "plain"], "btsnoop_hci.log", "android-yeelock.btsnoop", "690 records, btsnoop v1"),
        (["--layout", "plain", "--log-name", "data/misc/bluetooth/logs/btsnoop_hci.log"],
         "data/misc/bluetooth/logs/btsnoop_hci.log", "android-yeelock.btsnoop", "690 records, btsnoop v1"),
        (["--layout", "o", "--log-name", "FS/data/log/bt/hci_snoop20250125165300.cfa"],
         "FS/data/log/bt/hci_snoop20250125165300.cfa", "android-yeelock.btsnoop", "690 records, btsnoop v1"),
        (["--layout", "plain", "--log-name", "sniff/capture.bin"], "sniff/capture.bin", "nrf-sniffer-zero-ltk.pcap", "records, pcap"),
        (["--layout", "plain", "--log-name", "glasses.dat"], "glasses.dat", "ios-glasses.pklg", "records, PacketLogger"),
    ])
    func aLogIsFoundByItsBytesWhereverItSits(options: [String], member: String, capture: String, imported: String) throws {
        let zip = try Self.makeZip("bytes.zip", options + [CLI.sharedCapture(capture)])
        let db = CLI.temporaryDirectory().appendingPathComponent("t.db").path
        let r = try CLI.run(["import", zip, "--db", db])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("imported \(zip)!\(member): "), "\(r.stdout)")
        #expect(r.stdout.contains(imported), "\(r.stdout)")
        #expect(!r.stdout.contains(Self.mainText))
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM captures") == "1")
        #expect(try SQLite.scalar(db, "SELECT sha256 FROM captures") == Self.sha256(CLI.sharedCapture(capture)))
    }

    /// An empty full log: the btsnooz ring buffer of the main text is read, and a warning says so.
    @Test func theRingBufferInsteadOfAnEmptyFullLogIsSaid() throws {
        let zip = try Self.makeZip("empty-log.zip", ["--layout", "o", "--bad", "empty-log", Self.yeelock])
        let db = CLI.temporaryDirectory().appendingPathComponent("t.db").path
        let r = try CLI.run(["import", zip, "--db", db])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("imported \(zip)!\(Self.mainText): 690 records, Android btsnooz v2"))
        #expect(r.stderr.contains("warning: \(zip): read the btsnooz ring buffer of \(Self.mainText) (only the last packets before the bugreport) "
                                  + "because the full log \(Self.logDirectory)btsnoop_hci.log is empty"), "\(r.stderr)")
    }

    // MARK: the phone identity does not depend on which copy came first

    /// A capture imported bare, then again inside a bugreport: the bugreport's phone identity is
    /// added to the stored capture, and said so. A different identity later is kept out, with a warning.
    @Test func aBugreportAddsItsPhoneToACaptureImportedBare() throws {
        let zip = try Self.makeZip("o.zip", ["--layout", "o", Self.yeelock])
        let db = CLI.temporaryDirectory().appendingPathComponent("t.db").path
        #expect(try CLI.run(["import", Self.yeelock, "--db", db]).status == 0)
        let r = try CLI.run(["import", zip, "--db", db])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("skipped \(zip)!\(Self.logDirectory)btsnoop_hci.log: already in \(db); phone identity added from \(zip)"))
        #expect(try SQLite.scalar(db, "SELECT phone_manufacturer || '|' || phone_model || '|' || android_version || '|' || build_fingerprint FROM captures")
                == "Google|Pixel 7|14|\(Self.fingerprint)")
        let again = try CLI.run(["import", zip, "--db", db])
        #expect(again.stdout.contains("skipped \(zip)!\(Self.logDirectory)btsnoop_hci.log: already in \(db)\n"))

        let other = try Self.makeZip("galaxy.zip", ["--layout", "o", "--manufacturer", "samsung", "--model", "SM-S918B", Self.yeelock])
        let conflict = try CLI.run(["import", other, "--db", db])
        #expect(conflict.status == 0)
        #expect(conflict.stdout.contains("skipped \(other)!\(Self.logDirectory)btsnoop_hci.log: already in \(db)\n"))
        #expect(conflict.stderr.contains("warning: \(other)!\(Self.logDirectory)btsnoop_hci.log: same capture as one already stored with phone Google Pixel 7"))
        #expect(try SQLite.scalar(db, "SELECT phone_model FROM captures") == "Pixel 7")
    }

    /// report: the bare capture and the bugreport holding it give the same outputs in either
    /// order, with the phone counted.
    @Test func reportOutputsDoNotDependOnArgumentOrder() throws {
        let zip = try Self.makeZip("o.zip", ["--layout", "o", Self.yeelock])
        let bare = CLI.temporaryDirectory().appendingPathComponent("bare")
        try FileManager.default.createDirectory(at: bare, withIntermediateDirectories: true)
        let copy = bare.appendingPathComponent("android-yeelock.btsnoop").path
        try FileManager.default.copyItem(atPath: Self.yeelock, toPath: copy)
        var outputs: [[String: String]] = []
        for arguments in [[zip, bare.path], [bare.path, zip]] {
            let out = CLI.temporaryDirectory()
            let r = try CLI.run(["report"] + arguments + ["-o", out.path])
            #expect(r.status == 0, "\(r.stderr)")
            var files: [String: String] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: out.path) {
                files[name] = try String(contentsOf: out.appendingPathComponent(name), encoding: .utf8)
            }
            outputs.append(files)
        }
        #expect(outputs[0] == outputs[1])
        #expect(outputs[0]["by_phone.csv"]?.contains("Google,Pixel 7") == true, "\(outputs[0].keys.sorted())")
    }

    // MARK: bad zips: exit 65, saying what and where, no timeline left behind

    @Test func aZipWithoutABluetoothLogSaysWhatItHolds() throws {
        let zip = try Self.makeZip("nolog.zip", ["--layout", "o", "--bad", "no-log", Self.yeelock])
        let db = CLI.temporaryDirectory().appendingPathComponent("t.db").path
        let r = try CLI.run(["import", zip, "--db", db])
        #expect(r.status == 65)
        #expect(r.stderr.contains("\(zip): a zip without a Bluetooth log: no member holds a btsnoop, pcap, pcapng or PacketLogger capture"))
        #expect(r.stderr.contains("no --- BEGIN:BTSNOOP_LOG_SUMMARY section in \(Self.mainText)"))
        #expect(r.stderr.contains("it holds 5 files: \(Self.mainText), version.txt, main_entry.txt, FS/data/anr/"))
        #expect(!FileManager.default.fileExists(atPath: db))
        #expect(try CLI.run(["diagnose", zip]).status == 65)
    }

    /// A damaged deflate stream: what precedes the damage is imported, the error names the member
    /// and the offset in it.
    @Test func aDamagedMemberIsNamedWithTheOffset() throws {
        let zip = try Self.makeZip("damaged.zip", ["--layout", "o", "--bad", "damaged", Self.longSession])
        let db = CLI.temporaryDirectory().appendingPathComponent("t.db").path
        let r = try CLI.run(["import", zip, "--db", db])
        #expect(r.status == 65)
        let member = "\(zip)!\(Self.logDirectory)btsnoop_hci.log"
        let line = r.stderr.split(separator: "\n").first { $0.hasPrefix("error: \(member): byte ") }
        #expect(line != nil, "\(r.stderr)")
        // The damage sits in the middle of the compressed data: the error comes after some records.
        let records = Int(try SQLite.scalar(db, "SELECT records FROM captures")) ?? 0
        #expect(records > 0 && records < 10931)
        #expect(try SQLite.scalar(db, "SELECT status FROM captures") == "corrupt")
    }

    @Test func aZipBombIsRefusedBeforeAnythingIsInflated() throws {
        let zip = try Self.makeZip("bomb.zip", ["--layout", "o", "--bad", "bomb", Self.yeelock])
        let db = CLI.temporaryDirectory().appendingPathComponent("t.db").path
        let r = try CLI.run(["import", zip, "--db", db])
        #expect(r.status == 65)
        #expect(r.stderr.contains("\(zip)!\(Self.logDirectory)btsnoop_hci.log: zip member declares 67108880 bytes from "))
        #expect(r.stderr.contains("a ratio over 200:1 that only a zip bomb reaches: refused"))
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test func anAbsurdSizeIsRefused() throws {
        let zip = try Self.makeZip("absurd.zip", ["--layout", "o", "--bad", "absurd", Self.yeelock])
        let r = try CLI.run(["import", zip, "--db", CLI.temporaryDirectory().appendingPathComponent("t.db").path])
        #expect(r.status == 65)
        #expect(r.stderr.contains("\(zip)!\(Self.logDirectory)btsnoop_hci.log: zip member declares 4294967294 bytes uncompressed, "
                                  + "more than the 2147483648 blereplay reads: refused"))
    }
}
