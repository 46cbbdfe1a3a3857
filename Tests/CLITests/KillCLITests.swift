import Foundation
import Testing

/// SIGKILL at seeded random moments of every command that writes (import into a new and into
/// an existing timeline, record --db, export, report -o) and of the commands that write a
/// scratch timeline for a capture (timeline, diagnose, replay). Afterwards nothing is lost
/// (the target is its old state or the complete new one) and, after the next run, nothing is
/// left (no `.tmp-`, no lock file, nothing in `$TMPDIR`).
@Suite("SIGKILL at random points of every writer", .serialized)
struct KillCLITests {
    /// SplitMix64 (Steele, Lea, Flood 2014): the kill moments are the same on every run.
    struct SplitMix64 {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        /// Kills that came after the command had finished by itself: each halves the range the
        /// next delay is drawn from, so a machine faster than the limits assumed still gets kills
        /// that land.
        var misses: UInt64 = 0
        mutating func microseconds(below limit: UInt64) -> UInt32 { UInt32(next() % max(1_000, limit >> misses)) }
        /// `landed` (1 or 0) as `kill` returns it, counting a miss.
        mutating func counting(_ landed: Int) -> Int {
            if landed == 0 { misses += 1 }
            return landed
        }
    }

    static let yeelock = CLI.sharedCapture("android-yeelock.btsnoop")   // tshark: 690 frames
    static let pongbot = CLI.sharedCapture("android-pongbot.btsnoop")   // tshark: 1741 frames
    static let trials = 3
    /// Trials go on past `trials` while no kill has landed, up to this many.
    static let maxTrials = 10

    /// Starts `arguments`, kills it after `delay` µs, and waits for it. True when the kill
    /// landed (the process had not finished by itself).
    /// Returns 1 when the kill landed (the process had not finished by itself), else 0.
    static func kill(_ arguments: [String], after delay: UInt32, scratch: String, stdin: String? = nil) throws -> Int {
        let running = try CLIProcesses.Running(arguments, environment: ["TMPDIR": scratch], stdin: stdin)
        usleep(delay)
        let sent = Glibc.kill(running.pid, SIGKILL) == 0
        running.process.waitUntilExit()
        let killed = running.process.terminationReason == .uncaughtSignal && running.process.terminationStatus == SIGKILL
        _ = running.wait()
        return sent && killed ? 1 : 0
    }

    static func run(_ arguments: [String], scratch: String) throws -> CLI.Result {
        try CLIProcesses.Running(arguments, environment: ["TMPDIR": scratch]).wait()
    }

    static func count(_ db: String, _ sql: String) throws -> Int { Int(try SQLite.scalar(db, sql)) ?? -1 }

    /// Nothing left beside the target once the next run is over.
    static func expectClean(_ dir: String, keeping kept: [String], _ scratch: String) {
        #expect(CLIProcesses.names(dir) == kept.sorted())
        #expect(CLIProcesses.names(scratch) == [])
    }

    @Test func importIntoANewTimeline() throws {
        var random = SplitMix64(state: 17_001)
        var landed = 0
        for trial in 0..<Self.maxTrials where trial < Self.trials || landed == 0 {
            let dir = CLI.temporaryDirectory().path, scratch = CLI.temporaryDirectory().path
            let db = dir + "/t.db"
            landed += random.counting(try Self.kill(["import", Self.yeelock, "--db", db], after: random.microseconds(below: 400_000), scratch: scratch))
            // Old state (no timeline) or the complete new one.
            if FileManager.default.fileExists(atPath: db) {
                #expect(try Self.count(db, "SELECT count(*) FROM packets") == 690)
            }
            let next = try Self.run(["import", Self.yeelock, "--db", db], scratch: scratch)
            #expect(next.status == 0, "\(next.stderr)")
            #expect(try Self.count(db, "SELECT count(*) FROM packets") == 690)
            Self.expectClean(dir, keeping: ["t.db"], scratch)
        }
        // A kill test whose kills all came too late tested nothing.
        #expect(landed > 0)
    }

    @Test func importIntoAnExistingTimeline() throws {
        var random = SplitMix64(state: 17_002)
        var landed = 0
        for trial in 0..<Self.maxTrials where trial < Self.trials || landed == 0 {
            let dir = CLI.temporaryDirectory().path, scratch = CLI.temporaryDirectory().path
            let db = dir + "/t.db"
            #expect(try Self.run(["import", Self.pongbot, "--db", db], scratch: scratch).status == 0)
            landed += random.counting(try Self.kill(["import", Self.yeelock, "--db", db], after: random.microseconds(below: 500_000), scratch: scratch))
            #expect(try SQLite.scalar(db, "PRAGMA integrity_check") == "ok")
            let packets = try Self.count(db, "SELECT count(*) FROM packets")
            #expect(packets == 1741 || packets == 1741 + 690)
            let next = try Self.run(["import", Self.yeelock, "--db", db], scratch: scratch)
            #expect(next.status == 0, "\(next.stderr)")
            #expect(try Self.count(db, "SELECT count(*) FROM packets") == 1741 + 690)
            Self.expectClean(dir, keeping: ["t.db"], scratch)
        }
        // A kill test whose kills all came too late tested nothing.
        #expect(landed > 0)
    }

    @Test func recordIntoANewTimeline() throws {
        var random = SplitMix64(state: 17_003)
        var landed = 0
        for trial in 0..<Self.maxTrials where trial < Self.trials || landed == 0 {
            let dir = CLI.temporaryDirectory().path, scratch = CLI.temporaryDirectory().path
            let db = dir + "/t.db"
            landed += random.counting(try Self.kill(["record", "--stdin", "--db", db, "--quiet"], after: random.microseconds(below: 600_000),
                          scratch: scratch, stdin: Self.pongbot))
            if FileManager.default.fileExists(atPath: db) {
                // Consistent up to the last commit: the capture row counts what is stored.
                #expect(try SQLite.scalar(db, "PRAGMA integrity_check") == "ok")
                let stored = try Self.count(db, "SELECT count(*) FROM packets")
                #expect(try Self.count(db, "SELECT coalesce(sum(records), 0) FROM capture") == stored)
                #expect(stored <= 1741)
            }
            let next = try Self.run(["import", Self.yeelock, "--db", db], scratch: scratch)
            #expect(next.status == 0, "\(next.stderr)")
            #expect(try Self.count(db, "SELECT count(*) FROM packets WHERE capture_id = (SELECT id FROM capture WHERE file_name = 'android-yeelock.btsnoop')") == 690)
            Self.expectClean(dir, keeping: ["t.db"], scratch)
        }
        // A kill test whose kills all came too late tested nothing.
        #expect(landed > 0)
    }

    @Test func export() throws {
        var random = SplitMix64(state: 17_004)
        var landed = 0
        let dir = CLI.temporaryDirectory().path, scratch = CLI.temporaryDirectory().path
        let db = dir + "/t.db"
        // Imported with its keys kept, an H4 btsnoop comes back byte for byte: the complete export
        // is the capture itself.
        #expect(try Self.run(["import", Self.yeelock, "--db", db, "--keep-keys"], scratch: scratch).status == 0)
        let complete = try Data(contentsOf: URL(fileURLWithPath: Self.yeelock))
        for trial in 0..<Self.maxTrials where trial < Self.trials || landed == 0 {
            let out = dir + "/out.btsnoop"
            try? FileManager.default.removeItem(atPath: out)
            landed += random.counting(try Self.kill(["export", db, "--format", "btsnoop", "-o", out], after: random.microseconds(below: 120_000), scratch: scratch))
            if FileManager.default.fileExists(atPath: out) {
                #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == complete)
            }
            #expect(try Self.run(["export", db, "--format", "btsnoop", "-o", out], scratch: scratch).status == 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == complete)
            Self.expectClean(dir, keeping: ["t.db", "out.btsnoop"], scratch)
        }
        #expect(landed > 0)
    }

    @Test func reportIntoADirectory() throws {
        var random = SplitMix64(state: 17_005)
        var landed = 0
        let dir = CLI.temporaryDirectory().path, scratch = CLI.temporaryDirectory().path
        let reference = dir + "/reference"
        #expect(try Self.run(["report", Self.yeelock, "-o", reference], scratch: scratch).status == 0)
        let files = CLIProcesses.names(reference)
        for trial in 0..<Self.maxTrials where trial < Self.trials || landed == 0 {
            let out = dir + "/r"
            try? FileManager.default.removeItem(atPath: out)
            // A capture as input: report keeps its scratch timeline in $TMPDIR meanwhile.
            landed += random.counting(try Self.kill(["report", Self.yeelock, "-o", out], after: random.microseconds(below: 400_000), scratch: scratch))
            // Each report file is absent or complete, never half written.
            for name in CLIProcesses.names(out) where !name.contains(".tmp-") {
                #expect(files.contains(name))
                #expect(FileManager.default.contents(atPath: out + "/" + name) == FileManager.default.contents(atPath: reference + "/" + name))
            }
            #expect(try Self.run(["report", Self.yeelock, "-o", out], scratch: scratch).status == 0)
            #expect(CLIProcesses.names(out) == files)
            #expect(CLIProcesses.names(scratch) == [])
        }
        #expect(landed > 0)
    }

    /// timeline, diagnose and replay on a capture import it into a scratch timeline in $TMPDIR.
    @Test(arguments: [["timeline"], ["diagnose"], ["replay"]])
    func commandsWithAScratchTimeline(_ command: [String]) throws {
        var random = SplitMix64(state: 17_006)
        var landed = 0
        let scratch = CLI.temporaryDirectory().path
        for trial in 0..<Self.maxTrials where trial < Self.trials || landed == 0 {
            landed += random.counting(try Self.kill(command + [Self.yeelock], after: random.microseconds(below: 300_000), scratch: scratch))
            let next = try Self.run(command + [Self.yeelock], scratch: scratch)
            #expect(next.status == 0, "\(next.stderr)")
            #expect(CLIProcesses.names(scratch) == [])
        }
        #expect(landed > 0)
    }
}
