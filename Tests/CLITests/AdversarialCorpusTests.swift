import Foundation
import Testing

/// The sample of the adversarial corpus (`Scripts/blegen/adversarial.py`, issue 17) through every
/// command a user runs on a capture: extreme timestamps, the largest records, many links,
/// reassemblies that never complete. None may crash; absurd timestamps are warnings naming the
/// record; every record is kept. `make fuzz` runs the full-size corpus (Scripts/fuzz.sh).
@Suite("adversarial corpus")
struct AdversarialCorpusTests {
    /// One generated file and what the generator says it holds.
    struct Entry: CustomTestStringConvertible, Sendable {
        var path: String
        var records: Int
        var absurd: Int
        var name: String { URL(fileURLWithPath: path).lastPathComponent }
        var testDescription: String { name }
    }

    static let directory = CLI.temporaryDirectory()

    /// Runs the generator once (python3, from Scripts/) and parses its listing:
    /// `PATH records=N absurd=M ...`.
    static let corpus: [Entry] = {
        guard let out = try? python(["-m", "blegen.adversarial", directory.path]) else { return [] }
        return out.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard let path = parts.first else { return nil }
            var fields: [String: Int] = [:]
            for p in parts.dropFirst() {
                let kv = p.split(separator: "=")
                if kv.count == 2, let v = Int(kv[1]) { fields[String(kv[0])] = v }
            }
            guard let records = fields["records"], let absurd = fields["absurd"] else { return nil }
            return Entry(path: String(path), records: records, absurd: absurd)
        }
    }()

    static func python(_ arguments: [String]) throws -> String {
        try pythonRun(arguments).stdout
    }

    /// Runs python3 with Scripts/ importable, in `directory` (default Scripts/); its stdout
    /// and exit status (stderr is discarded).
    static func pythonRun(_ arguments: [String], in directory: URL? = nil) throws -> (stdout: String, status: Int32) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let scripts = CLI.packageRoot.appendingPathComponent("Scripts")
        p.arguments = ["PYTHONPATH=" + scripts.path, "python3"] + arguments
        p.currentDirectoryURL = directory ?? scripts
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (String(decoding: data, as: UTF8.self), p.terminationStatus)
    }

    /// `--help` wrote the whole corpus into the current directory (Scripts/, where it is run):
    /// an option the generator does not know, or no OUTDIR, must write nothing.
    @Test(arguments: [(["--help"], 0), ([], 2), (["--fuLL", "out"], 2)] as [([String], Int32)])
    func theGeneratorWritesNothingUnasked(arguments: [String], status: Int32) throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Self.pythonRun(["-m", "blegen.adversarial"] + arguments, in: dir)
        #expect(run.status == status)
        if status == 0 { #expect(run.stdout.hasPrefix("Hostile captures")) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// How many warning lines the import prints for `absurd` records (`TimestampAudit`): one per
    /// record up to 20, then one counting the rest.
    static func expectedWarnings(_ absurd: Int) -> Int { absurd <= 20 ? absurd : 21 }

    @Test func theGeneratorWroteEveryShape() {
        let names = Set(Self.corpus.map(\.name))
        for shape in ["ts-int64-max.btsnoop", "ts-int64-min.btsnoop", "ts-unix-int64-max.btsnoop", "ts-unix-int64-min.btsnoop",
                      "ts-zero.btsnoop", "ts-minus-one.btsnoop", "ts-backwards.btsnoop", "ts-jumps.btsnoop",
                      "ts-int64-max-monitor.btsnoop", "ts-int64-max.pcapng", "huge-att.pklg", "huge-att.btsnoop",
                      "huge-fragmented.btsnoop", "many-links.btsnoop", "never-complete.btsnoop", "mix.btsnoop"] {
            #expect(names.contains(shape), "\(shape) missing from the corpus")
        }
    }

    @Test(arguments: corpus)
    func everyCommandRunsWithoutCrashing(_ entry: Entry) throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("t.db").path
        let imported = try CLI.run(["import", entry.path, "--db", db])
        #expect(!imported.signalled && imported.status == 0, "import: \(imported.status) \(imported.stderr)")
        #expect(imported.stdout.contains("imported \(entry.path): \(entry.records) records"), "\(imported.stdout)")
        // Every record kept, absurd or not.
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM packets") == String(entry.records))
        let warnings = imported.stderr.split(separator: "\n").filter { $0.contains("absurd timestamp") }
        #expect(warnings.count == Self.expectedWarnings(entry.absurd), "\(imported.stderr)")
        // The warnings are capture warnings, kept with the capture.
        let stored = try SQLite.scalar(db, "SELECT count(*) FROM capture, json_each(capture.warnings) WHERE value LIKE '%absurd timestamp%'")
        #expect(stored == String(Self.expectedWarnings(entry.absurd)))

        let out = dir.appendingPathComponent("out")
        // Every command on the timestamp shapes (where the traps were); the import's analysis,
        // diagnose and replay on the large shapes, which are about memory and time (Scripts/fuzz.sh
        // runs everything on the full-size corpus).
        let everything = entry.name.hasPrefix("ts-") || entry.name.hasPrefix("mix")
        let commands: [[String]] = !everything ? [["diagnose", db], ["replay", db]] : [
            ["timeline", entry.path], ["diagnose", db, "--json"], ["gatt", db], ["replay", db], ["report", db, "-o", out.path],
            ["export", db, "--format", "btsnoop", "-o", out.appendingPathComponent("x.btsnoop").path],
        ]
        for command in commands {
            let r = try CLI.run(command)
            #expect(!r.signalled, "\(command.joined(separator: " ")) died of signal \(r.status): \(r.stderr.suffix(600))")
            #expect([0, 1].contains(r.status), "\(command.joined(separator: " ")) exited \(r.status): \(r.stderr.suffix(600))")
        }
    }

    @Test func theWarningNamesTheRecord() throws {
        let entry = try #require(Self.corpus.first { $0.name == "ts-unix-int64-min.btsnoop" })
        let r = try CLI.run(["import", entry.path, "--db", CLI.temporaryDirectory().appendingPathComponent("t.db").path])
        // Record 1 is the LE Connection Complete the generator stamps with the extreme value; its
        // Unix time is Int64.min.
        #expect(r.stderr.contains("record 1: absurd timestamp -9223372036854775808 µs since the Unix epoch"), "\(r.stderr)")
    }

    /// A real capture made hostile in one field (issue 17's reproduction): android-pongbot
    /// (tshark: 1741 frames) with four records stamped Int64.min and Int64.max Unix time.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: CLI.sharedCapture("android-pongbot.btsnoop"))),
          arguments: ["unix-int64-min", "unix-int64-max"])
    func aRealCaptureWithOneAbsurdTimestamp(_ value: String) throws {
        let raw = value == "unix-int64-min" ? "-0x7f23224cf0d08000" : "-0x7f23224cf0d08001"
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("pongbot-\(value).btsnoop").path
        _ = try Self.python(["-m", "blegen.adversarial", "--restamp", CLI.sharedCapture("android-pongbot.btsnoop"),
                             "1,580,870,1741", raw, capture])
        let db = dir.appendingPathComponent("t.db").path
        let imported = try CLI.run(["import", capture, "--db", db])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("1741 records"))
        for frame in [1, 580, 870, 1741] {
            #expect(imported.stderr.contains("record \(frame): absurd timestamp"), "\(imported.stderr)")
        }
        for command in [["timeline", capture], ["diagnose", db], ["gatt", db], ["replay", db],
                        ["report", db, "-o", dir.appendingPathComponent("r").path],
                        ["export", db, "--format", "btsnoop", "-o", dir.appendingPathComponent("x.btsnoop").path]] {
            let r = try CLI.run(command)
            #expect(!r.signalled && [0, 1].contains(r.status), "\(command[0]): \(r.status) \(r.stderr.suffix(600))")
        }
    }
}
