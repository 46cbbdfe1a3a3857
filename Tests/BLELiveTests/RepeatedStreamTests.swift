import Foundation
import Testing
import BLECore
import BLECapture
import BLETimeline
@testable import BLELive

/// A server that sends the same cut stream on every connection (the first 127 records of a
/// real capture, then it closes) made the recorder store those records once per reconnection:
/// 236 times in 60 s. A repeated identical prefix is not new data: it is stored once, the
/// connections that bring nothing new count against `--retries`, and the recording ends.
@Suite(.serialized) struct RepeatedStreamTests {
    static let capture = "android-pongbot.btsnoop"

    /// Records stored in the timeline, and how many distinct (timestamp, bytes) pairs they hold.
    static func stored(_ db: String) throws -> (rows: Int, distinct: Int) {
        let rows = try Live.rows(db, "SELECT count(*) FROM packet")[0][0].int ?? -1
        let distinct = try Live.rows(db, "SELECT count(*) FROM (SELECT DISTINCT ts_us, raw FROM packet)")[0][0].int ?? -1
        return (rows, distinct)
    }

    @Test func btsnoopStreamCutAtTheSameRecordIsStoredOnce() throws {
        let chunks = try Live.btsnoopChunks(Live.capture(Self.capture))
        try #require(chunks.records.count > 177)
        let cut = chunks.header + chunks.records[..<127].flatMap { $0 }
        let longer = chunks.header + chunks.records[..<177].flatMap { $0 }
        // 1: 127 new; 2: repeat (attempt 1); 3: 50 new past the cut (count reset); 4: repeat
        // (attempt 1); 5: repeat (attempt 2); with --retries 2 the recorder then gives up.
        let (fd, port) = try TCPSourceTests.listener()
        _ = TCPSourceTests.serve(fd, sessions: [cut, cut, longer, cut, cut])
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = TCPSource(host: "127.0.0.1", port: port, retries: 2, initialBackoffMilliseconds: 20)
        let notices = Live.NoticeLog()
        let summary = try Live.record(source, RecordingOptions(outputPath: dir + "/cut.btsnoop", databasePath: dir + "/cut.db"),
                                      untilIdleMilliseconds: 10_000, notices: notices)
        #expect(source.connections == 5)
        #expect(summary.stopReason == .endOfInput)
        #expect(summary.failure == nil)
        #expect(summary.records == 177)
        let (rows, distinct) = try Self.stored(dir + "/cut.db")
        #expect(rows == 177 && distinct == 177)
        // The btsnoop file holds the 177 records once each, in order, byte for byte.
        #expect(try Live.btsnoopChunks(dir + "/cut.btsnoop").records == Array(chunks.records[..<177]))
        #expect(notices.lines.contains { $0.contains("connection 2 closed by the peer") && $0.contains("its 127 records repeat an earlier connection's") })
        // 127 + 127 + 127 repeats on connections 2, 4 and 5 (connection 3's first 127 too).
        #expect(summary.notes.contains { $0.contains("508 records repeated what an earlier connection had delivered") && $0.contains("3 connections brought nothing new") })
        try Self.expectCompleteWithNothingLost(summary, db: dir + "/cut.db")
    }

    /// Nothing was lost: every record the server sent is stored once. The recording ended
    /// marked `truncated`, with "gave up" warnings, although the skipped records were repeats;
    /// it is `complete`, and the notes (kept with the capture) say what happened.
    static func expectCompleteWithNothingLost(_ summary: RecordingSummary, db: String) throws {
        #expect(summary.warnings.isEmpty, "\(summary.warnings)")
        #expect(summary.notes.contains { $0.contains("the server sends nothing new (it starts the same stream over)") && $0.contains("every record it sent recorded once") }, "\(summary.notes)")
        let capture = try Live.rows(db, "SELECT status, warnings FROM capture")
        #expect(capture.first?[0] == .text("complete"))
        #expect(capture.first?[1].string?.contains("not recorded again") == true)
    }

    @Test func rawH4StreamRepeatedIsStoredOnce() throws {
        let path = Live.capture(Self.capture)
        let packets = try Live.btsnoopChunks(path).records.map { Array($0.dropFirst(24)) }
        let cut = packets[..<127].flatMap { $0 }
        let (fd, port) = try TCPSourceTests.listener()
        _ = TCPSourceTests.serve(fd, sessions: [cut, cut, cut])
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = TCPSource(host: "127.0.0.1", port: port, retries: 2, initialBackoffMilliseconds: 20)
        let summary = try Live.record(source, RecordingOptions(outputPath: dir + "/h4.btsnoop", databasePath: dir + "/h4.db"),
                                      untilIdleMilliseconds: 10_000)
        #expect(source.connections == 3)
        #expect(summary.stopReason == .endOfInput)
        #expect(summary.records == 127)
        let written = try Live.records(dir + "/h4.btsnoop")
        let expected = Array(try Live.records(path).prefix(127))
        #expect(written.map(\.payload) == expected.map(\.payload))
        #expect(try Self.stored(dir + "/h4.db").rows == 127)
        try Self.expectCompleteWithNothingLost(summary, db: dir + "/h4.db")
    }

    /// H4 has no timestamps of its own: a new session may begin with the same packets (HCI
    /// Reset, Read Local Version). When the stream goes on past what was seen, the packets held
    /// back are delivered after all.
    @Test func rawH4SessionThatBeginsTheSameButGoesOnIsKept() throws {
        let packets = try Live.btsnoopChunks(Live.capture(Self.capture)).records.map { Array($0.dropFirst(24)) }
        let first = packets[..<60].flatMap { $0 }
        let second = packets[..<90].flatMap { $0 }
        let (fd, port) = try TCPSourceTests.listener()
        _ = TCPSourceTests.serve(fd, sessions: [first, second])
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = TCPSource(host: "127.0.0.1", port: port, retries: 1, initialBackoffMilliseconds: 20)
        let summary = try Live.record(source, RecordingOptions(databasePath: dir + "/h4.db"), untilIdleMilliseconds: 10_000)
        #expect(summary.records == 150)
        #expect(try Self.stored(dir + "/h4.db").rows == 150)
    }

    @Test func fingerprintsTellTimestampsApartOnlyWhenAsked() {
        let a = CaptureRecord(frameNumber: 1, timestamp: 10, direction: .sent, kind: .command, payload: [0x03, 0x0C, 0x00], fileOffset: 0)
        var b = a
        b.timestamp = 11
        #expect(RepeatedPrefixFilter.fingerprint(a, timestamp: false) == RepeatedPrefixFilter.fingerprint(b, timestamp: false))
        #expect(RepeatedPrefixFilter.fingerprint(a, timestamp: true) != RepeatedPrefixFilter.fingerprint(b, timestamp: true))
        var c = a
        c.payload = [0x03, 0x0C, 0x01]
        #expect(RepeatedPrefixFilter.fingerprint(a, timestamp: false) != RepeatedPrefixFilter.fingerprint(c, timestamp: false))
    }
}
