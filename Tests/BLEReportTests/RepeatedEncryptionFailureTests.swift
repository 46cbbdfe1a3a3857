import BLEAnalysis
import BLECore
import BLETimeline
import Foundation
import Testing
import TestSupport

/// The same encryption failure over and over on one link is one finding with its count and
/// packets (wave 1 wrote one finding each: 82 on an nRF Sniffer capture, 22 on one link).
/// The capture, by construction (packet 1): LE Connection Complete at 100 ms, then (2-4) three Encryption Change
/// events (Core v5.4 Vol 4 Part E 7.7.8) with status 0x06 PIN or Key Missing at 200, 300 and
/// 400 ms, one with 0x3D at 500 ms (5), and the link ended by the peer (0x13) at 2,000 ms.
@Suite("repeated encryption failures")
struct RepeatedEncryptionFailureTests {
    @Test func oneFindingPerCodeWithItsCount() throws {
        var c = SpecCapture()
        let h: UInt16 = 0x0040
        c.connectionComplete(100, handle: h, role: 0, peer: [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51])
        for ms: Int64 in [200, 300, 400] { c.evt(ms, 0x08, [0x06] + c.le16(h) + [0x00]) }
        c.evt(500, 0x08, [0x3D] + c.le16(h) + [0x00])
        c.disconnectionComplete(2_000, handle: h, reason: 0x13)
        let (directory, store) = try Support.timeline(of: c)
        defer { Support.remove(directory) }
        let rows = try store.database.rows("""
            SELECT title, evidence_packet_ids FROM finding WHERE code = 'encryption-failed' ORDER BY rowid
            """)
        #expect(rows.map { $0[0].string ?? "" } == ["Encryption failed 3×: PIN or Key Missing",
                                                  "Encryption failed: Connection Terminated due to MIC Failure"])
        #expect(rows.first?[1].string == "[2,3,4]")
        #expect(rows.last?[1].string == "[5]")
    }
}
