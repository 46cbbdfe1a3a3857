import Foundation
import Testing

/// Errors that name the real cause: a full disk (here the file size limit, which needs no
/// privilege: `ulimit -f` in the child, SIGXFSZ ignored so write(2) fails with EFBIG), no
/// permission, a SQLite file that is not a timeline, damaged input under a diverging replay,
/// and what an export leaves out.
@Suite("Errors that say the real cause", .serialized)
struct StorageErrorCLITests {
    let longSession = CLI.sharedCapture("android-lock-long-session.btsnoop")   // tshark: 10931 frames
    let yeelock = CLI.sharedCapture("android-yeelock.btsnoop")                  // tshark: 690 frames

    static let wrongWords = ["malformed", "not a blereplay timeline", "not an error", "newer blereplay"]

    @Test func aNewTimelineOnAFullDiskSaysSoAndLeavesNothing() throws {
        let dir = CLI.temporaryDirectory().path
        // 200 blocks of 512 bytes: less than the schema and the first pages need.
        let r = try CLIProcesses.shell("ulimit -f 200; trap '' XFSZ; exec \"$BLEREPLAY\" import '\(longSession)' --db '\(dir)/t.db'")
        #expect(r.status == 65)
        #expect(r.stderr.contains("file size limit was reached"), "\(r.stderr)")
        for w in Self.wrongWords { #expect(!r.stderr.contains(w), "\(r.stderr)") }
        #expect(!r.stdout.contains("imported"))
        #expect(CLIProcesses.names(dir) == [])
    }

    @Test func anExistingTimelineOnAFullDiskKeepsWhatItHad() throws {
        let dir = CLI.temporaryDirectory().path
        let db = dir + "/t.db"
        #expect(try CLI.run(["import", yeelock, "--db", db]).status == 0)
        // Room for a little more than the 690-packet timeline, not for 10931 more packets.
        let r = try CLIProcesses.shell("ulimit -f 1600; trap '' XFSZ; exec \"$BLEREPLAY\" import '\(longSession)' --db '\(db)'")
        #expect(r.status == 65)
        #expect(r.stderr.contains("\(longSession): not imported: cannot write the timeline"), "\(r.stderr)")
        #expect(r.stderr.contains("file size limit was reached"))
        for w in Self.wrongWords { #expect(!r.stderr.contains(w), "\(r.stderr)") }
        #expect(try SQLite.scalar(db, "PRAGMA integrity_check") == "ok")
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM packets") == "690")
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM captures") == "1")
        #expect(CLIProcesses.names(dir) == ["t.db"])
    }

    /// The captures after the one the full disk stopped are not read (they would fail the same
    /// way), but each is named as not imported: none is left out unsaid.
    @Test func capturesAfterAFullDiskAreEachNamedAsNotImported() throws {
        let dir = CLI.temporaryDirectory().path
        let db = dir + "/t.db"
        #expect(try CLI.run(["import", yeelock, "--db", db]).status == 0)
        let pongbot = CLI.sharedCapture("android-pongbot.btsnoop")
        let pairing = CLI.sharedCapture("android-lock-pairing.btsnoop")
        let r = try CLIProcesses.shell("ulimit -f 1600; trap '' XFSZ; exec \"$BLEREPLAY\" import '\(longSession)' '\(pongbot)' '\(pairing)' --db '\(db)'")
        #expect(r.status == 65)
        #expect(r.stderr.contains("\(longSession): not imported: cannot write the timeline"), "\(r.stderr)")
        for later in [pongbot, pairing] {
            #expect(r.stderr.contains("\(later): not imported: not read, the timeline \(db) could not be written"), "\(r.stderr)")
        }
        #expect(try SQLite.scalar(db, "SELECT count(*) FROM captures") == "1")
    }

    /// Tests run as root, where chmod denies nothing: the tool then runs as `nobody` (setpriv),
    /// which gets a real EACCES.
    @Test(.enabled(if: geteuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
                   "as root, EACCES needs setpriv (util-linux) to run the tool as nobody"))
    func noPermissionSaysPermissionDenied() throws {
        let dir = CLI.temporaryDirectory().path
        let existing = dir + "/old.db"
        #expect(try CLI.run(["import", yeelock, "--db", existing]).status == 0)
        let asOther: String
        if geteuid() == 0 {
            chmod(dir, 0o755)
            asOther = "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups"
        } else {
            chmod(dir, 0o555)
            chmod(existing, 0o444)
            asOther = ""
        }
        defer { chmod(dir, 0o755) }
        let new = try CLIProcesses.shell("exec \(asOther) \"$BLEREPLAY\" import '\(yeelock)' --db '\(dir)/new.db'")
        #expect(new.status == 65)
        #expect(new.stderr.lowercased().contains("permission denied"), "\(new.stderr)")
        for w in Self.wrongWords { #expect(!new.stderr.contains(w)) }
        let old = try CLIProcesses.shell("exec \(asOther) \"$BLEREPLAY\" import '\(CLI.sharedCapture("android-pongbot.btsnoop"))' --db '\(existing)'")
        #expect(old.status == 65)
        #expect(old.stderr.contains("read-only"), "\(old.stderr)")
        for w in Self.wrongWords { #expect(!old.stderr.contains(w)) }
        #expect(CLIProcesses.names(dir) == ["old.db"])
    }

    /// A target that exists but is no regular file: SQLite said "cannot create the timeline:
    /// Illegal seek (disk I/O error)" for a FIFO and "input/output error" for /dev/null.
    @Test(arguments: [("fifo", "a FIFO (named pipe)"), ("/dev/null", "a character device"), ("dir", "a directory")])
    func aTargetThatIsNoRegularFileIsNotATimeline(target: String, kind: String) throws {
        let dir = CLI.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try CLIProcesses.shell("""
            cd '\(dir)' && mkfifo fifo && mkdir dir && exec timeout 60 "$BLEREPLAY" import '\(yeelock)' --db \(target)
            """)
        #expect(r.status == 65)
        #expect(r.stderr == "blereplay import: \(target): not a timeline: \(kind); a timeline is a regular (SQLite) file\n", "\(r.stderr)")
        #expect(CLIProcesses.names(dir) == ["dir", "fifo"])
        let read = try CLIProcesses.shell("cd '\(dir)' && exec timeout 60 \"$BLEREPLAY\" record --stdin --db \(target) < '\(yeelock)'")
        #expect(read.status == 65)
        #expect(read.stderr.contains("\(target): not a timeline: \(kind)"), "\(read.stderr)")
    }

    @Test func aForeignSQLiteFileIsNotATimeline() throws {
        let dir = CLI.temporaryDirectory().path
        let path = dir + "/app.sqlite"
        _ = try SQLite.scalar(path, "CREATE TABLE settings (key TEXT, value TEXT); PRAGMA user_version = 7;")
        for command in [["timeline", path], ["diagnose", path], ["import", yeelock, "--db", path]] {
            let r = try CLI.run(command)
            #expect(r.status == 65)
            #expect(r.stderr.contains("a SQLite file that is not a blereplay timeline"), "\(r.stderr)")
            #expect(!r.stderr.contains("newer"))
        }
        #expect(try SQLite.scalar(path, "SELECT count(*) FROM sqlite_master") == "1")
        // The 16-byte SQLite header and then no valid page: not a database at all.
        let junk = dir + "/junk.db"
        try Data(Array("SQLite format 3\0".utf8) + [UInt8](repeating: 0xA5, count: 4096)).write(to: URL(fileURLWithPath: junk))
        let r = try CLI.run(["timeline", junk])
        #expect(r.status == 65)
        #expect(r.stderr == "blereplay timeline: \(junk): not a blereplay timeline: not a SQLite database (SQLite error 26: file is not a database)\n")
    }

    /// android-yeelock with record 500's included length set to 0x00FFFFFF (btsnoop record
    /// header: original length, included length, flags, drops, timestamp): damage in the
    /// middle. With latency scaled 100x the replay diverges; the damage still decides: 65.
    @Test func replayOfDamagedInputIs65EvenWhenItDiverges() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: yeelock)))
        var offset = 16, record = 0
        while offset + 24 <= bytes.count {
            record += 1
            let included = bytes[(offset + 4)..<(offset + 8)].reduce(0) { $0 << 8 | Int($1) }
            if record == 500 {
                bytes.replaceSubrange((offset + 4)..<(offset + 8), with: [0x00, 0xFF, 0xFF, 0xFF])
                break
            }
            offset += 24 + included
        }
        let path = CLI.temporaryDirectory().appendingPathComponent("cut.btsnoop").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let r = try CLI.run(["replay", path, "--inject", "latency-scale:100"])
        #expect(r.status == 65, "\(r.stdout)")
        #expect(r.stderr.contains("byte \(offset): record 500: included length 16777215"))
    }

    /// btmon-monitor: tshark counts 369 frames, of which hci_mon.opcode 2 (command, 28) and
    /// 3 (event, 72) are HCI; the other 269 are index records (opcodes 0, 8, 10), notes and
    /// user logging (12, 13) and control messages (14, 16, 17), which H4 cannot carry.
    @Test func exportSaysWhatItLeavesOut() throws {
        let dir = CLI.temporaryDirectory().path
        let monitor = CLI.sharedCapture("btmon-monitor.btsnoop")
        #expect(try CLI.run(["import", monitor, "--db", dir + "/m.db"]).status == 0)
        let r = try CLI.run(["export", dir + "/m.db", "--format", "btsnoop", "-o", dir + "/m.btsnoop"])
        #expect(r.status == 0)
        #expect(r.stdout == "wrote \(dir)/m.btsnoop: 100 records, btsnoop v1 datalink 1002 (H4)\n")
        let notes = try SQLite.scalar(dir + "/m.db", "SELECT count(*) FROM packets WHERE kind = 'note'")
        let other = try SQLite.scalar(dir + "/m.db", "SELECT count(*) FROM packets WHERE kind = 'other'")
        #expect(Int(notes)! + Int(other)! == 269)
        #expect(r.stderr == "blereplay export: left out 269 of 369 records that btsnoop v1 datalink 1002 (H4) cannot carry: \(notes) note, \(other) other\n")
        #expect(CLIProcesses.names(dir) == ["m.btsnoop", "m.db"])
    }
}
