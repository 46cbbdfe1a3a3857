import Testing
import TestSupport
import BLETimeline
import BLEAnalysis

/// A finding about the capture itself (`capture-gap`: a link that began before it) names no
/// callback an app was given. It cites the link's first packet, and when that packet is an error
/// (the link's Disconnection Complete, an ATT Error Response to a request the capture never saw),
/// it must not take that error's Android status as its own: `diagnose` printed "Android: status 8
/// GATT_CONN_TIMEOUT" under "Connection began before the capture" (blegen.shapes `handles.btsnoop`).
@Suite("a capture's own findings take no Android status from their evidence")
struct CaptureGapAndroidStatusTests {
    static let peer: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]

    /// Two links found in progress, each opened by an error, and one link seen from its start.
    static func capture() -> [UInt8] {
        var c = SpecCapture()
        // 05 Disconnection Complete | 00 status | 40 00 handle | 08 Connection Timeout            1
        c.disconnectionComplete(0, handle: 0x40, reason: 0x08)
        // ATT Error Response (Vol 3 Part F 3.4.1.1) on handle 0x0041 to a Read Request the capture
        // never saw: 01 | 0A Read Request | 10 00 handle | 05 Insufficient Authentication          2
        c.att(100, handle: 0x41, [0x01, 0x0A, 0x10, 0x00, 0x05], received: true)
        c.disconnectionComplete(800, handle: 0x41, reason: 0x13)                                     // 3
        // A link seen from its start: its own error findings keep their statuses.
        c.connectionComplete(1000, handle: 0x42, role: 0, peer: peer)                                // 4
        c.att(1100, handle: 0x42, [0x0A, 0x03, 0x00], received: false)                               // 5 Read Request 0x0003
        c.att(1130, handle: 0x42, [0x01, 0x0A, 0x03, 0x00, 0x02], received: true)                    // 6 Read Not Permitted
        c.disconnectionComplete(1500, handle: 0x42, reason: 0x08)                                    // 7
        return c.bytes
    }

    @Test func beganBeforeTheCaptureNamesNoCallback() throws {
        try AnalysedSpecCapture.withTimeline(Self.capture()) { store in
            let gaps = try store.database.rows("""
                SELECT evidence_packet_ids, android_status, android_name, cb_error FROM finding
                WHERE code = 'capture-gap' ORDER BY evidence_packet_ids
                """)
            #expect(gaps.map { $0[0].string } == ["[1]", "[2]"])
            for gap in gaps {
                #expect(gap[1].int == nil && gap[2].string == nil && gap[3].string == nil)
            }
            // The errors those packets are keep their statuses, and so do the findings about them.
            let errors = try store.database.rows("SELECT packet_id, android_status FROM error ORDER BY packet_id")
            #expect(errors.map { [$0[0].int, $0[1].int] } == [[1, 8], [2, 5], [3, 19], [6, 2], [7, 8]])
            let attError = try store.database.rows("SELECT android_status FROM finding WHERE code = 'att-error' AND evidence_packet_ids = '[2]'")
            #expect(attError.first?[0].int == 5)
            let timeout = try store.database.rows("SELECT android_status FROM finding WHERE code = 'supervision-timeout' AND evidence_packet_ids LIKE '%7]'")
            #expect(timeout.first?[0].int == 8)
        }
    }
}
