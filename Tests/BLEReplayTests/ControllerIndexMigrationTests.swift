import BLECore
import Foundation
import Testing
@testable import BLEReplay
import BLEAnalysis
@testable import BLETimeline

/// A timeline of schema version 6 (completions stored by handle alone, no
/// `connection.controller_index`) opens, is migrated to 7, and replays as a fresh import does:
/// a one-controller capture keeps its stored scan (its completions filed under its controller),
/// so does a btmon capture of one adapter whose notes carry index 0xFFFF (HCI_DEV_NONE), and a
/// capture of two controllers on one handle loses its row and is scanned per controller.
@Suite("controller index migration")
struct ControllerIndexMigrationTests {
    /// Rewrites a current timeline into version 6's shape, as blereplay 6 left it: no
    /// `controller_index` in `connection` (nor in the `connections` view), and each stored
    /// completions blob of 12-byte entries (handle, count, time) in handle then frame order.
    static func downgrade(_ path: String) throws {
        let db = try SQLiteDatabase(path: path)
        for view in try db.rows("SELECT name FROM sqlite_master WHERE type = 'view'").compactMap({ $0[0].string }) {
            try db.execute("DROP VIEW \(view)")
        }
        for row in try db.rows("SELECT capture_id, completions FROM capture_packet_scan") {
            var byHandle: [UInt16: [(time: Int64, count: Int)]] = [:]
            for (key, list) in StoredPacketScan.completions(row[1].blob ?? []) { byHandle[key.handle, default: []] += list }
            var blob: [UInt8] = []
            for handle in byHandle.keys.sorted() {
                // Version 6 kept a handle's returns in frame order, whatever the controller.
                for e in (byHandle[handle] ?? []).sorted(by: { $0.time < $1.time }) {
                    blob += [UInt8(handle & 0xFF), UInt8(handle >> 8), UInt8(e.count & 0xFF), UInt8(e.count >> 8)]
                    withUnsafeBytes(of: e.time.littleEndian) { blob += $0 }
                }
            }
            try db.run("UPDATE capture_packet_scan SET completions = ?1 WHERE capture_id = ?2",
                       [blob.isEmpty ? .null : .blob(blob), row[0]])
        }
        try db.execute("DROP INDEX connection_capture; DROP INDEX connection_peer; ALTER TABLE connection DROP COLUMN controller_index; PRAGMA user_version = 6")
    }

    @Test func aVersion6TimelineIsMigratedAndReplaysAsAFreshImport() throws {
        let (capture, links, directory) = try MultiControllerCompletionsTests.generate()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fresh = directory.appendingPathComponent("fresh.db").path
        let old = directory.appendingPathComponent("old.db").path
        // Capture 1: one controller (a phone's btsnoop); capture 2: two controllers, one handle;
        // capture 3: btmon, controller 0 and notes of index 0xFFFF.
        _ = try Importer.importCaptures([TestCaptures.sample("heart-rate-healthy.btsnoop"), capture,
                                         TestCaptures.shared("btmon-monitor.btsnoop")], into: fresh)
        #expect(try Analyzer.analyze(TimelineStore(path: fresh)) == 3)
        try FileManager.default.copyItem(atPath: fresh, toPath: old)
        try Self.downgrade(old)
        #expect(try SQLiteDatabase(path: old).scalarInt("PRAGMA user_version") == 6)

        let migrated = try TimelineStore(path: old)
        let db = migrated.database
        #expect(try db.scalarInt("PRAGMA user_version") == TimelineSchema.version)
        let want = try TimelineStore(path: fresh)
        for view in ["connections", "packets", "att_pdus", "findings"] {
            #expect(try db.rows("SELECT * FROM \(view)") == want.database.rows("SELECT * FROM \(view)"), "\(view)")
        }
        // One controller: the row is kept, rewritten with the controller; several: dropped.
        for capture: Int64 in [1, 3] {
            let kept = try #require(try StoredPacketScan.read(capture, db: db))
            let wanted = try #require(try StoredPacketScan.read(capture, db: want.database))
            #expect(capture == 3 || !kept.completions.isEmpty)
            #expect(kept.completions.mapValues { $0.map { "\($0.time):\($0.count)" } }
                    == wanted.completions.mapValues { $0.map { "\($0.time):\($0.count)" } }, "capture \(capture)")
        }
        #expect(try StoredPacketScan.read(2, db: db) == nil)
        // Several controllers: analysed again (its findings counted the other's acknowledgements);
        // one controller: the analysis stands.
        #expect(try db.rows("SELECT capture_id FROM analysis_state ORDER BY capture_id").map { $0[0].int64 } == [1, 3])
        #expect(try Analyzer.analyze(migrated) == 1)
        let findings = "SELECT * FROM findings ORDER BY capture_id, connection_id, code, evidence_packet_ids"
        #expect(try db.rows(findings) == want.database.rows(findings))

        let replayed = try RecordingLoader.load(migrated, jobs: 1)
        let fromFresh = try RecordingLoader.load(want, jobs: 1)
        #expect(replayed.count == 3 && fromFresh.count == 3)
        for (a, b) in zip(replayed, fromFresh) {
            #expect(a.connections.map { Array(a.completions(of: $0)) } == b.connections.map { Array(b.completions(of: $0)) })
            #expect(a.connections.map(\.controller) == b.connections.map(\.controller))
        }
        for link in links {
            let c = try MultiControllerCompletionsTests.connection(replayed[1], link)
            #expect(c.controller == link.controller && Array(replayed[1].completions(of: c)) == link.completions, "controller \(link.controller)")
        }
        // The replays' HCI traces (`--write-capture`) are the same, record for record.
        var configuration = ReplayConfiguration()
        configuration.keepTrace = true
        for (a, b) in zip(replayed, fromFresh) {
            let (ra, wa) = FaithfulReplay.run(a, configuration: configuration)
            let (rb, wb) = FaithfulReplay.run(b, configuration: configuration)
            #expect(ra.allReproduced && rb.allReproduced)
            #expect(ra.verdicts.count == rb.verdicts.count)
            #expect(wa.trace.records.map { "\($0.timestamp) \($0.payload)" } == wb.trace.records.map { "\($0.timestamp) \($0.payload)" })
        }
    }
}
