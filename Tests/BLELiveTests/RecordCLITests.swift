import Foundation
import Testing
import BLECore
import BLECapture
import BLETimeline
@testable import BLELive

/// `blereplay record` run as a user would: the built executable, real captures on stdin or in
/// a file the test keeps appending to, signals sent to the process.
@Suite(.serialized) struct RecordCLITests {
    /// The executable built beside the test bundle.
    static var executable: URL {
        let exe = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                      ?? CommandLine.arguments[0])
        return exe.deletingLastPathComponent().appendingPathComponent("blereplay")
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// A started `blereplay` with stdout and stderr going to files in `dir`.
    final class Running {
        let process = Process()
        let dir: String
        init(_ arguments: [String], dir: String, stdin: [UInt8]? = nil, executable: URL = RecordCLITests.executable) throws {
            self.dir = dir
            process.executableURL = executable
            process.arguments = arguments
            _ = FileManager.default.createFile(atPath: dir + "/stdout", contents: nil)
            _ = FileManager.default.createFile(atPath: dir + "/stderr", contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/stdout"))
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/stderr"))
            if let stdin {
                let input = dir + "/stdin"
                _ = FileManager.default.createFile(atPath: input, contents: Data(stdin))
                process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input))
            } else {
                process.standardInput = FileHandle.nullDevice
            }
            try process.run()
        }

        func wait() -> Result {
            process.waitUntilExit()
            return Result(status: process.terminationStatus,
                          stdout: (try? String(contentsOfFile: dir + "/stdout", encoding: .utf8)) ?? "",
                          stderr: (try? String(contentsOfFile: dir + "/stderr", encoding: .utf8)) ?? "")
        }
    }

    static func run(_ arguments: [String], stdin: [UInt8]? = nil) throws -> Result {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        return try Running(arguments, dir: dir, stdin: stdin).wait()
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: Live.capture(name))))
    }

    @Test func stdinBtsnoop() throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try Self.bytes("android-pongbot.btsnoop")
        let r = try Self.run(["record", "--stdin", "-o", dir + "/x.btsnoop", "--db", dir + "/x.db"], stdin: input)
        #expect(r.status == 0)
        #expect(r.stderr == "")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix("recorded 1741 records from <stdin> (btsnoop v1, HCI UART (H4) datalink 1002) in ") == true)
        #expect(Array(lines.dropFirst()) == ["btsnoop: \(dir)/x.btsnoop", "timeline: \(dir)/x.db"])
        // The records pass through unchanged: the output is the input, byte for byte.
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/x.btsnoop"))) == input)
        let diagnose = try Self.run(["diagnose", dir + "/x.db"])
        #expect(diagnose.status == 0)
        #expect(diagnose.stdout.contains("Connection 2 — 5C:B2:60:06:49:73 (public), handle 0x0041, LE, local central"))
    }

    @Test func stdinRawH4() throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try Self.run(["record", "--stdin", "--db", dir + "/h4.db"], stdin: try Live.rawH4(Live.capture("android-lock-pairing.btsnoop")))
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("recorded 1235 records from <stdin> (raw H4) in "))
        let kinds = try Live.rows(dir + "/h4.db", "SELECT kind, direction, count(*) FROM packet GROUP BY 1, 2 ORDER BY 1, 2")
        // Raw H4 has no direction: commands are sent, events received, ACL unknown (as pcap 187 reads it).
        #expect(kinds.map { $0[0].string ?? "" } == ["acl", "cmd", "evt"])
        #expect(kinds.map { $0[1].string ?? "" } == ["?", "tx", "rx"])
    }

    /// `--quiet`: nothing on stdout or stderr when all goes well; the files are written all the same.
    @Test func quietPrintsNothing() throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try Self.run(["record", "--stdin", "-o", dir + "/q.btsnoop", "--db", dir + "/q.db", "--quiet"],
                             stdin: try Self.bytes("android-pongbot.btsnoop"))
        #expect(r.status == 0)
        #expect(r.stdout == "")
        #expect(r.stderr == "")
        #expect(try Live.rows(dir + "/q.db", "SELECT count(*) FROM packet").first?[0].int == 1741)
        #expect(FileManager.default.fileExists(atPath: dir + "/q.btsnoop"))
        // Errors still go to stderr.
        let bad = try Self.run(["record", "--stdin", "--db", dir + "/x.db", "--quiet"], stdin: Array("hello, world\n".utf8))
        #expect(bad.status == 65)
        #expect(bad.stderr.hasPrefix("blereplay record: <stdin>: byte 0: neither a btsnoop stream"))
    }

    @Test func monitorWithoutBluetoothSupport() throws {
        let probe = socket(31, Int32(SOCK_RAW.rawValue), 1)
        if probe >= 0 { close(probe) }
        try #require(probe < 0 && errno == EAFNOSUPPORT, "this kernel has AF_BLUETOOTH; nothing to check")
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try Self.run(["record", "--monitor", "-o", dir + "/m.btsnoop"])
        #expect(r.status == 65)
        #expect(r.stdout == "")
        #expect(r.stderr == "blereplay record: monitor: this kernel has no Bluetooth support (AF_BLUETOOTH): use --follow, --stdin or --tcp\n")
        #expect(!FileManager.default.fileExists(atPath: dir + "/m.btsnoop"))
    }

    @Test func notACaptureOnStdin() throws {
        let r = try Self.run(["record", "--stdin", "--db", Live.temporaryDirectory() + "/x.db"], stdin: Array("hello, world\n".utf8))
        #expect(r.status == 65)
        #expect(r.stderr == "blereplay record: <stdin>: byte 0: neither a btsnoop stream (btsnoop\\0, or whole btsnoop records) nor raw H4 (first byte 0x68 is no H4 packet type 0x01-0x05)\n")
    }

    @Test(arguments: [
        (["record", "-o", "x.btsnoop"], "give exactly one source"),
        (["record", "--stdin", "--monitor", "-o", "x.btsnoop"], "give exactly one source"),
        (["record", "--stdin"], "nothing to write: give -o FILE.btsnoop, --db FILE, or both"),
        (["record", "--stdin", "-o", "x", "--rotate", "10m"], "--rotate 10m is ambiguous: write 10M for megabytes or 10min for minutes"),
        (["record", "--stdin", "--db", "x", "--rotate", "1h"], "--rotate needs -o FILE.btsnoop"),
        (["record", "--tcp", "localhost", "-o", "x"], "--tcp takes HOST:PORT"),
        (["record", "--stdin", "-o", "x", "--address", "AA:BB"], "--address takes AA:BB:CC:DD:EE:FF, not 'AA:BB'"),
        (["record", "--follow", "f", "-o", "f"], "-o f is the followed file f: it would be overwritten"),
        (["record", "--stdin", "-o", "x", "--until-idle", "soon"], "--until-idle takes a number of seconds, not 'soon'"),
        // The output's format follows its name; pcapng is not written, and refused before recording.
        (["record", "--stdin", "-o", "x.pcapng"], "-o x.pcapng: record writes pcap (-o FILE.pcap) or btsnoop (-o FILE.btsnoop), not pcapng"),
    ] as [([String], String)])
    func usageErrors(arguments: [String], message: String) throws {
        let r = try Self.run(arguments)
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("blereplay record: ") && r.stderr.contains(message), "\(r.stderr)")
    }

    /// `--follow` a FIFO waited forever in open(2) for a writer, even with `--until-idle`: a
    /// file that is not a regular file is refused at once, saying to read it with --stdin.
    @Test func followingAFIFOIsRefusedAtOnce() throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try #require(mkfifo(dir + "/pipe", 0o644) == 0)
        let started = Syscall.monotonicMilliseconds()
        let r = try Self.run(["record", "--follow", dir + "/pipe", "--db", dir + "/x.db", "--until-idle", "1"])
        #expect(Syscall.monotonicMilliseconds() - started < 10_000)
        #expect(r.status == 65)
        #expect(r.stderr == "blereplay record: \(dir)/pipe: a FIFO (named pipe), not a file another program appends to: record it with --stdin < \(dir)/pipe\n")
        #expect(!FileManager.default.fileExists(atPath: dir + "/x.db"))
    }

    /// `--tcp` against a loopback btsnoop_net server that drops the first connection.
    @Test func tcpReconnects() throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let chunks = try Live.btsnoopChunks(Live.capture("android-yeelock.btsnoop"))
        let sessions = [chunks.header + chunks.records[..<100].flatMap { $0 }, chunks.header + chunks.records[100...].flatMap { $0 }]
        let (fd, port) = try TCPSourceTests.listener()
        _ = TCPSourceTests.serve(fd, sessions: sessions)
        let r = try Self.run(["record", "--tcp", "127.0.0.1:\(port)", "--retries", "1", "-o", dir + "/net.btsnoop"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("recorded \(chunks.records.count) records from tcp:127.0.0.1:\(port) (btsnoop v1, HCI UART (H4) datalink 1002) in "))
        let stderr = r.stderr.split(separator: "\n").map(String.init)
        #expect(stderr.first == "record: connected to 127.0.0.1 port \(port)")
        #expect(stderr.contains("record: connection 1 closed by the peer after \(sessions[0].count) bytes; reconnecting in 0.25 s (attempt 1 of 1)"))
        #expect(stderr.contains("record: reconnected to 127.0.0.1 port \(port) (attempt 1)"))
        #expect(stderr.last == "warning: tcp:127.0.0.1:\(port): cannot connect: Connection refused; gave up after 1 reconnection attempt")
        #expect(try Live.btsnoopChunks(dir + "/net.btsnoop").records == chunks.records)
    }

    /// SIGKILL while recording: the timeline is consistent and holds every record committed
    /// before the kill (commits happen at least every second), and so does the btsnoop file.
    @Test func sigkillLeavesAConsistentTimeline() throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let chunks = try Live.btsnoopChunks(Live.capture("android-lock-long-session.btsnoop"))
        let log = dir + "/btsnoop_hci.log"
        FollowSourceTests.append(log, chunks.header + chunks.records[0..<300].flatMap { $0 })
        let recorder = try Running(["record", "--follow", log, "-o", dir + "/out.btsnoop", "--db", dir + "/out.db", "--quiet"], dir: dir)
        usleep(500_000)
        FollowSourceTests.append(log, chunks.records[300..<1000].flatMap { $0 })
        usleep(1_500_000)
        kill(recorder.process.processIdentifier, SIGKILL)
        let r = recorder.wait()
        #expect(recorder.process.terminationReason == .uncaughtSignal && r.status == SIGKILL)
        #expect(r.stdout == "")
        let db = try SQLiteDatabase(path: dir + "/out.db", readOnly: true)
        #expect(try db.rows("PRAGMA integrity_check") == [[.text("ok")]])
        #expect(try db.rows("SELECT records, status FROM capture") == [[.integer(1000), .text("recording")]])
        #expect(try db.scalarInt("SELECT count(*) FROM packet") == 1000)
        #expect(try db.scalarInt("SELECT max(frame) FROM packet") == 1000)
        // The btsnoop file was flushed too: every record, readable by BLECapture.
        #expect(try Live.btsnoopChunks(dir + "/out.btsnoop").records == Array(chunks.records[0..<1000]))
        // And the other commands read it.
        let timeline = try Self.run(["timeline", dir + "/out.db"])
        #expect(timeline.status == 0)
        #expect(timeline.stdout.split(separator: "\n").count == 1000)
    }

    /// SIGINT ends the recording cleanly: the timeline is complete and analysed; while it ran,
    /// `blereplay timeline` could read it.
    @Test(arguments: [SIGINT, SIGTERM])
    func signalCompletesTheRecording(signal: Int32) throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let chunks = try Live.btsnoopChunks(Live.capture("android-pongbot.btsnoop"))
        let log = dir + "/log"
        FollowSourceTests.append(log, chunks.header + chunks.records[0..<1000].flatMap { $0 })
        let recorder = try Running(["record", "--follow", log, "-o", dir + "/out.btsnoop", "--db", dir + "/out.db"], dir: dir)
        usleep(1_500_000)
        let during = try Self.run(["timeline", dir + "/out.db"])
        #expect(during.status == 0)
        #expect(during.stdout.split(separator: "\n").count == 1000)
        FollowSourceTests.append(log, chunks.records[1000...].flatMap { $0 })
        usleep(800_000)
        kill(recorder.process.processIdentifier, signal)
        let r = recorder.wait()
        #expect(recorder.process.terminationReason == .exit && r.status == 0)
        #expect(r.stdout.hasPrefix("recorded 1741 records from \(log) (btsnoop v1, HCI UART (H4) datalink 1002) in "))
        let db = dir + "/out.db"
        #expect(try Live.rows(db, "SELECT records, status FROM capture") == [[.integer(1741), .text("complete")]])
        #expect(try Live.rows(db, "SELECT count(*) > 0 FROM findings") == [[.integer(1)]])
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/out.btsnoop"))) == (try Self.bytes("android-pongbot.btsnoop")))
    }
}
