import BLECore
import BLETimeline
import Foundation
import Testing
import TestSupport
@testable import BLEAnalysis

/// `invalid-parameters`: LE connection parameters outside the spec's ranges (Core v5.4 Vol 6 Part B
/// 4.5.1, 4.5.2), on the link's creation or an applied update. Wave 1 showed an update to
/// interval 0 as a fact ("last: interval 0.00 ms") and said nothing of it.
@Suite("invalid connection parameters")
struct InvalidParameterTests {
    @Test func theSpecsBoundsAreTheBounds() {
        // 7.5 ms to 4 s; 100 ms to 32 s; latency up to 499; timeout > (1 + latency) x interval x 2.
        #expect(FindingsEngine.specViolations(intervalUs: 7_500, latency: 0, timeoutMs: 100).isEmpty)
        #expect(FindingsEngine.specViolations(intervalUs: 4_000_000, latency: 0, timeoutMs: 32_000).isEmpty)
        #expect(FindingsEngine.specViolations(intervalUs: 6_250, latency: 0, timeoutMs: 100).count == 1)
        #expect(FindingsEngine.specViolations(intervalUs: 4_001_250, latency: 0, timeoutMs: 32_000).count == 1)
        #expect(FindingsEngine.specViolations(intervalUs: 7_500, latency: 0, timeoutMs: 90).count == 1)
        #expect(FindingsEngine.specViolations(intervalUs: 7_500, latency: 500, timeoutMs: 32_000).count == 1)
        // 30 ms x (1 + 3) x 2 = 240 ms: 240 is not larger, 250 is.
        #expect(FindingsEngine.specViolations(intervalUs: 30_000, latency: 3, timeoutMs: 240).count == 1)
        #expect(FindingsEngine.specViolations(intervalUs: 30_000, latency: 3, timeoutMs: 250).isEmpty)
        #expect(FindingsEngine.specViolations(intervalUs: 0, latency: 0, timeoutMs: 690).count == 1)
    }

    /// LE Connection Complete (interval 30 ms, timeout 4 s) at 100 ms, then LE Connection Update
    /// Complete (Vol 4 Part E 7.7.65.3) to interval 5 x 1.25 = 6.25 ms at 500 ms, then a valid one.
    @Test func anAppliedUpdateOutsideTheRangesIsAnError() throws {
        var c = SpecCapture()
        let h: UInt16 = 0x0040
        c.connectionComplete(100, handle: h, role: 0, peer: [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51])
        c.evt(500, 0x3E, [0x03, 0x00] + c.le16(h) + c.le16(5) + c.le16(0) + c.le16(400))
        c.evt(900, 0x3E, [0x03, 0x00] + c.le16(h) + c.le16(24) + c.le16(0) + c.le16(400))
        c.disconnectionComplete(1_500, handle: h, reason: 0x13)
        let (directory, store) = try Support.timeline(of: c)
        defer { Support.remove(directory) }
        let rows = try store.database.rows("SELECT title, evidence_packet_ids, severity FROM finding WHERE code = 'invalid-parameters'")
        #expect(rows.count == 1)
        #expect(rows.first?[0].string == "Connection parameters the spec does not allow: interval 6.25 ms outside 7.5 ms to 4 s")
        #expect(rows.first?[1].string == "[2]")
        #expect(rows.first?[2].string == "error")
    }
}
