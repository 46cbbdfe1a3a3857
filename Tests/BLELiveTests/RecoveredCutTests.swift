import Foundation
import Testing
import BLECore
import BLECapture
import BLETimeline
@testable import BLELive

/// A TCP server that starts its btsnoop stream over on every connection (a btsnoop file served
/// whole) and dropped the first connection in the middle of a record: the next connection sends
/// that record whole, after the same records with the same timestamps. Nothing is missing, yet
/// the recording kept the warning "the stream dropped in the middle of a record (10 bytes kept
/// out of the recording)" and ended `truncated`, beside the note "nothing was lost".
@Suite(.serialized) struct RecoveredCutTests {
    static func record(_ sessions: [[UInt8]], dir: String) throws -> (RecordingSummary, TCPSource) {
        let (fd, port) = try TCPSourceTests.listener()
        _ = TCPSourceTests.serve(fd, sessions: sessions)
        let source = TCPSource(host: "127.0.0.1", port: port, retries: 1, initialBackoffMilliseconds: 20)
        let summary = try Live.record(source, RecordingOptions(outputPath: dir + "/r.btsnoop", databasePath: dir + "/r.db"),
                                      untilIdleMilliseconds: 10_000)
        return (summary, source)
    }

    @Test func aCutRecordThatArrivesWholeLaterIsNotMissing() throws {
        let chunks = try Live.btsnoopChunks(Live.capture("android-yeelock.btsnoop"))
        let whole = chunks.header + chunks.records.flatMap { $0 }
        // Connection 1: 100 records and the first 10 bytes of record 101; connection 2: everything.
        let cutAt = chunks.header.count + chunks.records[..<100].reduce(0) { $0 + $1.count }
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (summary, source) = try Self.record([Array(whole[..<(cutAt + 10)]), whole], dir: dir)
        #expect(source.connections == 2)
        #expect(summary.failure == nil)
        #expect(summary.records == chunks.records.count)
        #expect(try Live.btsnoopChunks(dir + "/r.btsnoop").records == chunks.records)
        // No warning that a record is missing; a note says the cut record came whole.
        #expect(!summary.warnings.contains { $0.contains("middle of a record") }, "\(summary.warnings)")
        #expect(summary.notes.contains { $0.contains("the record connection 1 cut at byte \(cutAt) arrived whole on connection 2") },
                "\(summary.notes)")
        let status = try Live.rows(dir + "/r.db", "SELECT status FROM capture").first?[0].string
        // Only the server going away after data (a warning, it may have had more) may make it truncated.
        #expect(status == (summary.warnings.isEmpty ? "complete" : "truncated"))
        #expect(summary.warnings.allSatisfy { $0.contains("gave up") }, "\(summary.warnings)")
    }

    /// The record cut is not the one the next connection brings at that place (another stream
    /// whose earlier records match but whose next record differs): still missing, still a warning.
    @Test func aCutRecordReplacedByAnotherStaysMissing() throws {
        let chunks = try Live.btsnoopChunks(Live.capture("android-yeelock.btsnoop"))
        let first = chunks.header + chunks.records[..<100].flatMap { $0 } + Array(chunks.records[100].prefix(30))
        // Connection 2: the same 100 records, then record 102 where record 101 was.
        let second = chunks.header + chunks.records[..<100].flatMap { $0 } + chunks.records[101...].flatMap { $0 }
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (summary, _) = try Self.record([first, second], dir: dir)
        #expect(summary.records == chunks.records.count - 1)
        #expect(summary.warnings.contains { $0.contains("of connection 1: the stream dropped in the middle of a record (30 bytes kept out of the recording)") },
                "\(summary.warnings)")
        #expect(try Live.rows(dir + "/r.db", "SELECT status FROM capture").first?[0].string == "truncated")
    }
}
