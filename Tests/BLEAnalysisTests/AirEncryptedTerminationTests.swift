import Foundation
import Testing
import TestSupport
@testable import BLETimeline
@testable import BLEAnalysis

/// `terminate-encrypted-on-air` is read from the PDUs themselves (their LLID and Length, Core v5.4
/// Vol 6 Part B 2.4), never from the summaries, which are display text: a reworded summary, or a
/// timeline made without summaries (the fleet report's scratch import, `DecoderOptions.summaries`),
/// makes the same finding.
///
/// The capture comes from the generator (`blegen.air --nordic 2`): encryption starts at event 17;
/// at event 21 the central sends an encrypted LL Control PDU of 6 bytes (packet 46), the
/// peripheral answers with an Empty PDU (47), then it advertises for a second.
@Suite("air captures: an encrypted LL_TERMINATE_IND from the PDU's header")
struct AirEncryptedTerminationTests {
    static func withCapture(_ arguments: [String], _ body: (String, String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("air-terminate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let capture = directory.appendingPathComponent("air.pcap").path
        try BlegenSessions.run("air", arguments + [capture])
        try body(capture, directory.path)
    }

    static func findings(_ db: SQLiteDatabase) throws -> [String: String] {
        var out: [String: String] = [:]
        for r in try db.rows("SELECT code, evidence_packet_ids FROM finding") { out[r[0].string ?? ""] = r[1].string ?? "" }
        return out
    }

    @Test func rewordedSummariesMakeTheSameFinding() throws {
        try Self.withCapture(["--nordic", "2"]) { capture, directory in
            let path = directory + "/air.db"
            _ = try Importer.importCaptures([capture], into: path)
            let store = try TimelineStore(path: path)
            _ = try Analyzer.analyze(store)
            #expect(try Self.findings(store.database)["terminate-encrypted-on-air"] == "[46,47]")
            // Every summary reworded (as a decoder change would): the PDUs have not changed.
            try store.database.execute("UPDATE packet SET summary = 'PDU ' || frame")
            _ = try Analyzer.analyze(store, force: true)
            #expect(try Self.findings(store.database)["terminate-encrypted-on-air"] == "[46,47]")
        }
    }

    /// The fleet report's scratch timeline (no summaries, `ImportOptions.referencedPacketRowsOnly`)
    /// counts the ending as diagnose says it: it keeps an air capture's raw bytes for that.
    @Test func aReportsScratchImportMakesTheFinding() throws {
        try Self.withCapture(["--nordic", "2"]) { capture, _ in
            let store = try TimelineStore(path: ":memory:")
            var options = ImportOptions(keepRaw: false)
            options.referencedPacketRowsOnly = true
            _ = try Importer.importCaptures([capture], intoScratchStore: store, name: capture, options: options) { store in
                try Analyzer.analyze(store, findings: false)
            }
            #expect(try Self.findings(store.database)["terminate-encrypted-on-air"] == "[46,47]")
        }
    }

    /// A timeline imported without raw bytes (`--no-raw`) shows no PDU header: no inference, however
    /// the summary reads.
    @Test func withoutTheBytesNoInference() throws {
        try Self.withCapture(["--nordic", "2"]) { capture, directory in
            let path = directory + "/air.db"
            _ = try Importer.importCaptures([capture], into: path, options: ImportOptions(keepRaw: false))
            let store = try TimelineStore(path: path)
            _ = try Analyzer.analyze(store)
            #expect(try Self.findings(store.database)["terminate-encrypted-on-air"] == nil)
        }
    }

    /// Another length is not an LL_TERMINATE_IND's, however the summary reads.
    @Test func anotherLengthIsNotATermination() throws {
        try Self.withCapture(["--nordic-ending", "5"]) { capture, directory in
            let path = directory + "/air.db"
            _ = try Importer.importCaptures([capture], into: path)
            let store = try TimelineStore(path: path)
            try store.database.execute("UPDATE packet SET summary = 'Encrypted LL Control PDU, 6 bytes (ciphertext)' WHERE frame = 46")
            _ = try Analyzer.analyze(store)
            #expect(try Self.findings(store.database)["terminate-encrypted-on-air"] == nil)
        }
    }
}
