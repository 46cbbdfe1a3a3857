import Foundation
import Testing

/// Several `blereplay` processes on one timeline at once, as a busy CI runs them: every
/// capture ends up in it exactly once, and every process either succeeds or says why.
@Suite("Concurrent imports, reports and timelines on one target", .serialized)
struct ConcurrentWritersCLITests {
    /// Captures with their tshark frame counts (MANIFEST.md).
    static let captures = [("android-yeelock.btsnoop", 690), ("android-pongbot.btsnoop", 1741),
                           ("smartwatch-h4-phdr.pcapng", 810), ("scale-h4-phdr.pcap", 833)]

    static func packetsPerCapture(_ db: String) throws -> [String: Int] {
        let rows = try SQLite.scalar(db, "SELECT file_name || '=' || count(p.id) FROM captures c JOIN packets p ON p.capture_id = c.id GROUP BY c.id")
        var out: [String: Int] = [:]
        for line in rows.split(separator: "\n") {
            let parts = line.split(separator: "=")
            out[String(parts[0]), default: 0] += Int(parts[1]) ?? -1
        }
        return out
    }

    /// Before: both imports printed "imported" and exited 0, and one capture was gone.
    @Test func importsAndARecordingIntoANewTimelineAtOnceKeepEveryCapture() throws {
        let dir = CLI.temporaryDirectory().path
        let scratch = CLI.temporaryDirectory().path
        let db = dir + "/t.db"
        var running = try Self.captures.map { name, _ in
            try CLIProcesses.Running(["import", CLI.sharedCapture(name), "--db", db], environment: ["TMPDIR": scratch])
        }
        // record --db creates the timeline too (tshark: android-lock-pairing has 1235 frames).
        running.append(try CLIProcesses.Running(["record", "--stdin", "--db", db], environment: ["TMPDIR": scratch],
                                                stdin: CLI.sharedCapture("android-lock-pairing.btsnoop")))
        let results = running.map { $0.wait() }
        for (r, (name, frames)) in zip(results, Self.captures) {
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("imported \(CLI.sharedCapture(name)): \(frames) records"), "\(r.stdout)")
        }
        #expect(results[4].status == 0, "\(results[4].stderr)")
        #expect(results[4].stdout.contains("recorded 1235 records from <stdin>"))
        var expected = Dictionary(uniqueKeysWithValues: Self.captures.map { ($0.0, $0.1) })
        expected["<stdin>"] = 1235
        #expect(try Self.packetsPerCapture(db) == expected)
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM captures") == "5")
        #expect(try SQLite.scalar(db, "PRAGMA integrity_check") == "ok")
        #expect(CLIProcesses.names(dir) == ["t.db"])
        #expect(CLIProcesses.names(scratch) == [])
    }

    @Test func importsReportsAndTimelinesOnOneTimelineAtOnce() throws {
        let dir = CLI.temporaryDirectory().path
        let scratch = CLI.temporaryDirectory().path
        let db = dir + "/t.db"
        let first = try CLI.run(["import", CLI.sharedCapture(Self.captures[0].0), "--db", db])
        #expect(first.status == 0)
        let env = ["TMPDIR": scratch]
        var imports: [CLIProcesses.Running] = []
        var readers: [CLIProcesses.Running] = []
        for (name, _) in Self.captures {
            imports.append(try CLIProcesses.Running(["import", CLI.sharedCapture(name), "--db", db], environment: env))
            readers.append(try CLIProcesses.Running(["timeline", db], environment: env))
        }
        readers.append(try CLIProcesses.Running(["report", db, "-o", dir + "/r1", "--format", "json"], environment: env))
        readers.append(try CLIProcesses.Running(["report", db, "-o", dir + "/r2", "--format", "md"], environment: env))
        readers.append(try CLIProcesses.Running(["diagnose", db], environment: env))
        // The first capture is in already: its second import is skipped, the others imported.
        let importResults = imports.map { $0.wait() }
        #expect(importResults[0].status == 0 && importResults[0].stdout.contains("skipped"), "\(importResults[0])")
        for (r, (name, frames)) in zip(importResults, Self.captures).dropFirst() {
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("imported \(CLI.sharedCapture(name)): \(frames) records"))
        }
        for (i, r) in readers.map({ $0.wait() }).enumerated() {
            #expect(r.status == 0, "reader \(i): \(r.stderr)")
            #expect(!r.stdout.isEmpty)
        }
        #expect(try Self.packetsPerCapture(db) == Dictionary(uniqueKeysWithValues: Self.captures.map { ($0.0, $0.1) }))
        #expect(try SQLite.scalar(db, "PRAGMA integrity_check") == "ok")
        #expect(FileManager.default.fileExists(atPath: dir + "/r1/report.json"))
        #expect(FileManager.default.fileExists(atPath: dir + "/r2/report.md"))
        #expect(CLIProcesses.names(dir).filter { $0.hasPrefix("t.db") } == ["t.db"])
        #expect(CLIProcesses.names(scratch) == [])
    }
}
