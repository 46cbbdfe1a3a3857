import Foundation
import Testing
import BLECapture
import BLETimeline
@testable import BLEAnalysis

/// A capture left in status `recording` is analysed only once its recorder is gone: a killed
/// `blereplay record` must not leave a capture that never gets its ATT transactions and findings.
@Suite("Abandoned recordings", .serialized)
struct AbandonedRecordingTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Records the first 150 records of a sample capture (its connection and discovery) and stops
    /// without finishing, as a SIGKILL would leave it.
    func unfinishedRecording(_ db: String) throws -> Int64 {
        var reader = try CaptureFile.open(Self.packageRoot.appendingPathComponent("Captures/heart-rate-healthy.btsnoop").path)
        let recorder = try TimelineRecorder(databasePath: db, source: "stdin", identity: "test-\(getpid())",
                                            format: reader.info.format, linkType: reader.info.linkType,
                                            formatDescription: reader.info.formatDescription, commitEvery: 50)
        for _ in 0..<150 {
            guard let record = try reader.next() else { break }
            try recorder.append(record)
        }
        try recorder.commit()
        return recorder.captureID
    }

    @Test func aRecordingWhoseRecorderRunsIsLeftAlone() throws {
        let db = FileManager.default.temporaryDirectory.appendingPathComponent("abandoned-live-\(getpid()).db").path
        defer { for s in ["", "-wal", "-shm"] { unlink(db + s) } }
        let id = try unfinishedRecording(db)
        let store = try TimelineStore(path: db)
        #expect(try Analyzer.analyze(store) == 0)
        #expect(try store.database.scalarInt("SELECT count(*) FROM capture WHERE id = ?1 AND status = 'recording'", [.integer(id)]) == 1)
    }

    @Test func aRecordingWhoseRecorderIsGoneIsEndedAndAnalysed() throws {
        let db = FileManager.default.temporaryDirectory.appendingPathComponent("abandoned-dead-\(getpid()).db").path
        defer { for s in ["", "-wal", "-shm"] { unlink(db + s) } }
        let id = try unfinishedRecording(db)
        let store = try TimelineStore(path: db)
        // The same token with a start time no process of ours has: the recorder is gone.
        let token = RecorderLiveness.currentToken().split(separator: ":").prefix(2).joined(separator: ":") + ":1"
        #expect(!RecorderLiveness.isRunning(token))
        #expect(RecorderLiveness.isRunning(RecorderLiveness.currentToken()))
        try store.database.run("UPDATE capture SET recorder = ?1 WHERE id = ?2", [.text(token), .integer(id)])
        #expect(try Analyzer.analyze(store) == 1)
        let row = try store.database.rows("SELECT status, warnings FROM capture WHERE id = ?1", [.integer(id)]).first
        #expect(row?[0].string == "truncated")
        #expect(row?[1].string?.contains("the recorder stopped without finishing") == true)
        // The first 150 records hold the GATT discovery: its transactions are now in the timeline.
        #expect(try store.database.scalarInt("SELECT count(*) FROM att_transactions") ?? 0 > 0)
        #expect(try store.database.scalarInt("SELECT count(*) FROM analysis_state WHERE capture_id = ?1", [.integer(id)]) == 1)
        let gap = try store.database.rows("SELECT title, detail FROM findings WHERE code = 'capture-gap'").first
        #expect(gap?[0].string == "The recording stopped without finishing (the recorder was killed?)")
        #expect(gap?[1].string?.hasPrefix("stdin: the recorder stopped without finishing the recording") == true)
    }
}
