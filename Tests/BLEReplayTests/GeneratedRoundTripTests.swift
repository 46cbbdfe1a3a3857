import BLECore
import BLETimeline
import Foundation
import Testing
@testable import BLEReplay

/// `replay --write-capture` of generated sessions (Scripts/blegen/sessions.py) imported again: the
/// controller's link events the replay writes as recorded (`RecordedLinkEvent`: LE Connection
/// Update Complete, refused ones too; LE PHY Update Complete, accepted or rejected 0x1A; LE Data
/// Length Change) come back as the same timeline rows, at the same dates. The sessions that hold
/// such an event by construction (their shapes say `connection update refused 0x3B`, `PHY update
/// ...`, `data length update`: seeds 1-60, and ll-procedures 1-10) are the ones checked; the test
/// fails when too few of the seeds made one, so it cannot pass by checking nothing.
@Suite struct GeneratedRoundTripTests {
    /// The HCI connection updates, PHY updates and data length changes of a capture's timeline,
    /// by handle and date.
    static func facts(_ path: String) throws -> [String] {
        let source = try TimelineSource(path: path)
        let db = source.store.database
        var out: [String] = []
        for r in try db.rows("""
            SELECT c.handle, u.ts_us, coalesce(u.status, 0), u.interval_us, u.latency, u.supervision_timeout_ms
            FROM connection_update u JOIN connection c ON c.id = u.connection_id WHERE u.source = 'hci' ORDER BY u.ts_us, u.packet_id
            """) {
            out.append("update handle \(r[0].int ?? -1) at \(r[1].int64 ?? -1) status \(r[2].int ?? -1) \(r[3].int64 ?? -1)/\(r[4].int ?? -1)/\(r[5].int64 ?? -1)")
        }
        for r in try db.rows("""
            SELECT c.handle, e.ts_us, coalesce(e.status, 0), e.detail, e.name FROM link_event e JOIN connection c ON c.id = e.connection_id
            WHERE e.name IN ('LE PHY Update Complete', 'LE Data Length Change') ORDER BY e.ts_us, e.packet_id
            """) {
            out.append("\(r[4].string ?? "") handle \(r[0].int ?? -1) at \(r[1].int64 ?? -1) status \(r[2].int ?? -1) \(r[3].string ?? "")")
        }
        return out
    }

    @Test func updatesPHYsAndDataLengthsSurviveTheWrittenCapture() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("roundtrip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var refused = 0, phys = 0, dataLengths = 0
        let random = try GeneratedSession.generate(seed: 1, count: 60, into: dir.appendingPathComponent("random"))
        let procedures = try GeneratedSession.generate(seed: 1, count: 10, shape: "ll-procedures", into: dir.appendingPathComponent("ll"))
        for s in random + procedures {
            let shapes = s.links.flatMap(\.shapes)
            let holdsRefused = shapes.contains("connection update refused 0x3B")
            let holdsPHY = shapes.contains { $0.hasPrefix("PHY update") }
            let holdsDataLength = shapes.contains("data length update")
            guard holdsRefused || holdsPHY || holdsDataLength else { continue }
            if holdsRefused { refused += 1 }
            if holdsPHY { phys += 1 }
            if holdsDataLength { dataLengths += 1 }
            let written = s.path + ".written.btsnoop"
            try TestCaptures.replayWriting(try TestCaptures.session(s.path), to: written)
            let before = try Self.facts(s.path), after = try Self.facts(written)
            #expect(after == before, "seed \(s.seed) (\(shapes.joined(separator: ", "))): original\n\(before)\nwritten\n\(after)")
        }
        // Seeds 1-60 and ll-procedures 1-10 make 5 sessions with a refused update and more with PHY updates.
        #expect(refused >= 4, "only \(refused) session(s) with a refused connection update")
        #expect(phys >= 10, "only \(phys) session(s) with a PHY update")
        #expect(dataLengths >= 5, "only \(dataLengths) session(s) with a data length update")
    }
}
