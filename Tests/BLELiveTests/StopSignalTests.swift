import Foundation
import Testing
import BLECore
import BLECapture
import BLETimeline
@testable import BLELive

/// `timeout(1)` sends SIGTERM to the recorder and then to its whole process group, so one stop
/// request arrives as two signals: the recorder must finish (exit 0, capture `complete` and
/// analysed), not take the second for "stop now" (exit 130, capture left `recording`).
@Suite(.serialized) struct StopSignalTests {
    @Test func requestsWithinTheWindowAreOne() {
        let flag = StopFlag()
        #expect(!flag.isSet)
        #expect(flag.set(now: 10_000) == .first)
        #expect(flag.isSet)
        #expect(flag.set(now: 10_000) == .same)
        #expect(flag.set(now: 10_000 + StopFlag.coalescingMilliseconds - 1) == .same)
        #expect(flag.set(now: 10_000 + StopFlag.coalescingMilliseconds) == .again)
    }

    /// A loopback server that sends a btsnoop header and then one record every 20 ms until the
    /// client goes away: a recording that only a signal ends.
    static func trickle(_ listener: Int32, records: [[UInt8]], header: [UInt8]) -> Thread {
        let thread = Thread {
            let client = accept(listener, nil, nil)
            _ = header.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            for record in records {
                let sent = record.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent < 0 { break }
                usleep(20_000)
            }
            close(client)
            close(listener)
        }
        thread.start()
        return thread
    }

    /// Waits until the recorder has committed at least one record to its timeline.
    static func waitForRecords(_ db: String, timeoutSeconds: Double = 20) {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if let n = (try? Live.rows(db, "SELECT records FROM capture"))?.first?.first?.int, n > 0 { return }
            usleep(50_000)
        }
    }

    static func check(_ r: RecordCLITests.Result, db: String) throws {
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("second signal"))
        #expect(r.stdout.contains("recorded "))
        let status = try Live.rows(db, "SELECT status, records FROM capture")
        #expect(status.first?[0].string == "complete")
        // Analysed: the analysis marks each capture it covered.
        #expect(try Live.rows(db, "SELECT count(*) FROM analysis_state")[0][0].int == 1)
    }

    @Test func twoSignalsAtOnceAreOneStopRequest() throws {
        let chunks = try Live.btsnoopChunks(Live.capture("android-pongbot.btsnoop"))
        let (fd, port) = try TCPSourceTests.listener()
        _ = Self.trickle(fd, records: Array(chunks.records.prefix(1000)), header: chunks.header)
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let running = try RecordCLITests.Running(["record", "--tcp", "127.0.0.1:\(port)", "--db", dir + "/t.db"], dir: dir)
        Self.waitForRecords(dir + "/t.db")
        // As timeout(1) does: the process, then (a moment later) its group.
        kill(running.process.processIdentifier, SIGTERM)
        usleep(5_000)
        kill(running.process.processIdentifier, SIGTERM)
        try Self.check(running.wait(), db: dir + "/t.db")
    }

    @Test func underTimeout() throws {
        let chunks = try Live.btsnoopChunks(Live.capture("android-pongbot.btsnoop"))
        let (fd, port) = try TCPSourceTests.listener()
        _ = Self.trickle(fd, records: Array(chunks.records.prefix(1000)), header: chunks.header)
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // --preserve-status: timeout exits with the recorder's status, not 124.
        let running = try RecordCLITests.Running(["--preserve-status", "2", RecordCLITests.executable.path,
                                                  "record", "--tcp", "127.0.0.1:\(port)", "--db", dir + "/t.db"],
                                                 dir: dir, executable: URL(fileURLWithPath: "/usr/bin/timeout"))
        try Self.check(running.wait(), db: dir + "/t.db")
    }
}
