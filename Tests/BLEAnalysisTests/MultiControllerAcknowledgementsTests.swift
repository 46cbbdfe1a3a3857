import Foundation
import Testing
import TestSupport
import BLETimeline
@testable import BLEAnalysis

/// The liveness evidence of a lost link (`AcknowledgedPackets`) counts only its own controller's
/// Number Of Completed Packets (Core v5.4 Vol 4 Part E 7.7.19): handles are per controller, and in
/// a btmon capture of two adapters another adapter's link on the same handle returns its own
/// buffers. Counted by handle alone, a link whose peer stopped acknowledging looked alive to the end.
///
/// The capture comes from the generator (`blegen.adversarial --same-handle --link-loss`): on
/// controller 0 four Write Commands, two returned, then 0x08; on controller 1 four, all returned.
@Suite("acknowledged packets per controller")
struct MultiControllerAcknowledgementsTests {
    @Test func aLostLinkCountsOnlyItsControllersCredits() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("same-handle-loss-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let capture = directory.appendingPathComponent("loss.btsnoop").path
        try BlegenSessions.run("adversarial", ["--same-handle", capture, "--link-loss"])

        let db = directory.appendingPathComponent("loss.db").path
        _ = try Importer.importCaptures([capture], into: db)
        let store = try TimelineStore(path: db)
        _ = try Analyzer.analyze(store)
        let rows = try store.database.rows("""
            SELECT c.controller_index, c.handle, f.detail FROM finding f JOIN connection c ON c.id = f.connection_id
            WHERE f.code = 'supervision-timeout'
            """)
        #expect(rows.count == 1)
        // Controller 0's link: two of its four packets returned, two never.
        #expect(rows.first?[0].int == 0 && rows.first?[1].int == 0x0040)
        let detail = rows.first?[2].string ?? ""
        #expect(detail.contains("2 packet(s) the host sent after it were never acknowledged"), "\(detail)")
        #expect(!detail.contains("every packet the host sent on the link was acknowledged"), "\(detail)")
    }
}
