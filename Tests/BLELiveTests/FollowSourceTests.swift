import Foundation
import Testing
import BLECore
import BLECapture
@testable import BLELive

/// `--follow`: a thread in the test writes a btsnoop file the way Android does while the
/// recorder follows it: appends in bursts, a record split across two writes with a pause
/// between them, and a rotation to `FILE.last` with a new file started after a gap.
@Suite(.serialized) struct FollowSourceTests {
    /// Appends `bytes` to the file at `path` with one write(2).
    static func append(_ path: String, _ bytes: [UInt8]) {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    @Test func appendsSplitRecordAndRotation() throws {
        let chunks = try Live.btsnoopChunks(Live.capture("android-lock-pairing.btsnoop"))
        let records = chunks.records
        let first = Array(records[0..<400]), second = Array(records[400..<700]), third = Array(records[700...])
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = dir + "/btsnoop_hci.log"
        Self.append(log, chunks.header + first.prefix(100).flatMap { $0 })
        let source = try FollowSource(path: log, pollIntervalMilliseconds: 20)
        let header = chunks.header
        let writer = Thread {
            usleep(100_000)
            Self.append(log, first.dropFirst(100).flatMap { $0 })
            // A record split across two writes, the second one well after the poll interval.
            let split = second[0]
            Self.append(log, Array(split.prefix(30)))
            usleep(300_000)
            Self.append(log, Array(split.dropFirst(30)) + second.dropFirst().flatMap { $0 })
            usleep(200_000)
            // Rotation as Android does it: the log becomes FILE.last, a new FILE starts later.
            rename(log, log + ".last")
            usleep(200_000)
            Self.append(log, header + third.prefix(50).flatMap { $0 })
            usleep(150_000)
            Self.append(log, third.dropFirst(50).flatMap { $0 })
        }
        writer.start()
        let notices = Live.NoticeLog()
        let summary = try Live.record(source, RecordingOptions(outputPath: dir + "/out.btsnoop", databasePath: dir + "/out.db"),
                                      untilIdleMilliseconds: 1500, notices: notices)
        #expect(summary.stopReason == .idle)
        #expect(summary.failure == nil)
        #expect(summary.warnings.isEmpty)
        #expect(summary.records == records.count)
        #expect(source.generation == 2)
        #expect(notices.lines == ["\(log) was replaced (the previous log is now \(log).last): following the new file"])
        // The output holds every record, in order, byte for byte.
        let out = try Live.btsnoopChunks(dir + "/out.btsnoop")
        #expect(out.header == chunks.header)
        #expect(out.records == records)
        let expected = try Live.records(Live.capture("android-lock-pairing.btsnoop"))
        #expect(try Live.records(dir + "/out.btsnoop").map { Live.RecordKey($0) } == expected.map { Live.RecordKey($0) })
        #expect(try Live.rows(dir + "/out.db", "SELECT records, status FROM capture") == [[.integer(Int64(records.count)), .text("complete")]])
    }

    @Test func recordCutByRotationIsAWarning() throws {
        let chunks = try Live.btsnoopChunks(Live.capture("android-pongbot.btsnoop"))
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = dir + "/log"
        Self.append(log, chunks.header + chunks.records[0..<10].flatMap { $0 } + chunks.records[10].prefix(5))
        let source = try FollowSource(path: log, pollIntervalMilliseconds: 20)
        let header = chunks.header, rest = Array(chunks.records[11..<20])
        let writer = Thread {
            usleep(150_000)
            rename(log, log + ".last")
            Self.append(log, header + rest.flatMap { $0 })
        }
        writer.start()
        let summary = try Live.record(source, RecordingOptions(databasePath: dir + "/db"), untilIdleMilliseconds: 800)
        #expect(summary.records == 19)
        #expect(summary.warnings == ["\(log): byte \(16 + chunks.records[0..<10].reduce(0) { $0 + $1.count }): the file was rotated "
                                     + "in the middle of a record (5 bytes kept out of the recording)"])
    }

    @Test func truncatedInPlaceIsFollowedFromItsStart() throws {
        let chunks = try Live.btsnoopChunks(Live.capture("android-yeelock.btsnoop"))
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = dir + "/log"
        Self.append(log, chunks.header + chunks.records[0..<30].flatMap { $0 })
        let source = try FollowSource(path: log, pollIntervalMilliseconds: 20)
        let again = chunks.header + chunks.records[30..<35].flatMap { $0 }
        let writer = Thread {
            usleep(150_000)
            truncate(log, 0)
            usleep(100_000)
            Self.append(log, again)
        }
        writer.start()
        let notices = Live.NoticeLog()
        let summary = try Live.record(source, RecordingOptions(databasePath: dir + "/db"), untilIdleMilliseconds: 800, notices: notices)
        #expect(summary.records == 35)
        #expect(notices.lines == ["\(log) was truncated: following it from its start"])
    }

    /// Every event until the source has nothing more (a few idle polls in a row).
    static func drain(_ source: FollowSource) throws -> (records: Int, notices: [String]) {
        var records = 0, notices: [String] = [], idle = 0
        while idle < 3 {
            switch try source.next(timeoutMilliseconds: 5) {
            case .record: records += 1; idle = 0
            case .notice(let text): notices.append(text); idle = 0
            case .idle: idle += 1
            case .end: return (records, notices)
            }
        }
        return (records, notices)
    }

    /// Truncated and written again between two polls, already longer than before: the bytes
    /// already read changed, so the file is followed again from its start (not from the old offset).
    @Test func rewrittenInPlaceLongerIsFollowedFromItsStart() throws {
        let chunks = try Live.btsnoopChunks(Live.capture("android-yeelock.btsnoop"))
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = dir + "/log"
        Self.append(log, chunks.header + chunks.records[0..<10].flatMap { $0 })
        let source = try FollowSource(path: log, pollIntervalMilliseconds: 1)
        #expect(try Self.drain(source).records == 10)
        truncate(log, 0)
        Self.append(log, chunks.header + chunks.records[10..<40].flatMap { $0 })
        let after = try Self.drain(source)
        #expect(after.records == 30)
        #expect(after.notices == ["\(log) was rewritten in place: following it from its start"])
        #expect(source.warnings == [])
    }

    /// Rotated twice between two polls (FILE → FILE.last, new FILE → FILE.last, newest FILE):
    /// the log in between is read from FILE.last before the newest file.
    @Test func rotatedTwiceBetweenPollsReadsTheLogInBetween() throws {
        let chunks = try Live.btsnoopChunks(Live.capture("android-yeelock.btsnoop"))
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = dir + "/log"
        Self.append(log + ".last", chunks.header + chunks.records[0..<3].flatMap { $0 })  // from before the recording
        Self.append(log, chunks.header + chunks.records[0..<10].flatMap { $0 })
        let source = try FollowSource(path: log, pollIntervalMilliseconds: 1)
        #expect(try Self.drain(source).records == 10)
        rename(log, log + ".last")
        Self.append(log, chunks.header + chunks.records[10..<17].flatMap { $0 })
        rename(log, log + ".last")
        Self.append(log, chunks.header + chunks.records[17..<30].flatMap { $0 })
        let after = try Self.drain(source)
        #expect(after.records == 7 + 13)
        #expect(after.notices.first == "\(log) was rotated twice between two polls: recording the log in between from \(log).last first")
        #expect(after.notices.count == 2)
    }

    /// Deleted and created again while FILE.last is a log from before the recording: that old
    /// log is not read.
    @Test func deletedAndRecreatedDoesNotReadAnOldBackup() throws {
        let chunks = try Live.btsnoopChunks(Live.capture("android-yeelock.btsnoop"))
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = dir + "/log"
        Self.append(log + ".last", chunks.header + chunks.records[0..<3].flatMap { $0 })
        Self.append(log, chunks.header + chunks.records[0..<10].flatMap { $0 })
        let source = try FollowSource(path: log, pollIntervalMilliseconds: 1)
        #expect(try Self.drain(source).records == 10)
        unlink(log)
        Self.append(log, chunks.header + chunks.records[10..<15].flatMap { $0 })
        let after = try Self.drain(source)
        #expect(after.records == 5)
        #expect(after.notices == ["\(log) was replaced (the previous log is now \(log).last): following the new file"])
    }

    /// A record the writer never finishes: a warning, and the timeline says "truncated" as an import would.
    @Test func unfinishedLastRecordIsAWarning() throws {
        let chunks = try Live.btsnoopChunks(Live.capture("android-yeelock.btsnoop"))
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = dir + "/log"
        Self.append(log, chunks.header + chunks.records[0..<20].flatMap { $0 } + chunks.records[20].prefix(30))
        let source = try FollowSource(path: log, pollIntervalMilliseconds: 20)
        let summary = try Live.record(source, RecordingOptions(databasePath: dir + "/db"), untilIdleMilliseconds: 300)
        let offset = 16 + chunks.records[0..<20].reduce(0) { $0 + $1.count }
        #expect(summary.records == 20)
        #expect(summary.warnings == ["\(log): byte \(offset): recording stopped in the middle of a record (30 bytes not recorded)"])
        #expect(try Live.rows(dir + "/db", "SELECT status FROM capture") == [[.text("truncated")]])
    }

    @Test func missingFileIsUnavailable() {
        let error = #expect(throws: LiveError.self) { try FollowSource(path: "/nonexistent/btsnoop_hci.log") }
        #expect(error?.kind == .unavailable)
        #expect(error?.description == "/nonexistent/btsnoop_hci.log: cannot open: No such file or directory")
    }
}
