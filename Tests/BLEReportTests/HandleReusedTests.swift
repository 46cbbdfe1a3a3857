import TestSupport
import Foundation
import Testing
@testable import BLEReport
import BLEAnalysis
import BLETimeline

/// A controller gives a connection handle to a new link only once the old one is gone (Core v5.4
/// Vol 4 Part E 7.7.65.1, 5.3.1: a handle names one link while it exists). A successful Connection
/// Complete on a handle whose link the capture still shows open therefore proves that link ended
/// before it, its Disconnection Complete missing from the capture (a writer that dropped records,
/// a filtered or ring-buffer log). That link was not "still open when the capture ended": it ended
/// at the latest at the new link's Connection Complete, with no reason in the capture.
@Suite("a handle given to a new link with no Disconnection Complete for the old one")
struct HandleReusedTests {
    static let peer: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]
    static let peer2: [UInt8] = [0xD1, 0x22, 0x33, 0x44, 0x55, 0x66]

    static func capture() -> SpecCapture {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: peer)                 // 1
        c.att(200, handle: 0x40, [0x0A, 0x03, 0x00], received: false)               // 2 Read Request 0x0003
        c.att(230, handle: 0x40, [0x0B, 0x41], received: true)                      // 3 Read Response
        // The old link's Disconnection Complete is not in the capture.
        c.connectionComplete(9000, handle: 0x40, role: 0, peer: peer2)               // 4
        c.att(9100, handle: 0x40, [0x0A, 0x05, 0x00], received: false)              // 5
        c.att(9130, handle: 0x40, [0x0B, 0x42], received: true)                     // 6
        c.disconnectionComplete(9500, handle: 0x40, reason: 0x13)                    // 7
        return c
    }

    @Test func theOldLinkEndedAtTheNewOnesConnectionComplete() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let file = dir + "/reused.btsnoop"
        try Self.capture().write(to: file)
        let store = try Support.timeline([file], at: dir + "/t.db")
        let db = store.database
        let rows = try db.rows("SELECT peer_address, disconnected_ts_us IS NOT NULL, disconnect_reason, disconnect_packet_id FROM connection ORDER BY id")
        #expect(rows.map { $0[0].string ?? "" } == ["C4:7A:3B:12:9E:51", "D1:22:33:44:55:66"])
        // Ended, with no reason, at packet 4; the new link's end is its own.
        #expect(rows[0][1].int == 1 && rows[0][2].int == nil && rows[0][3].int == 4)
        #expect(rows[1][2].int == 0x13 && rows[1][3].int == 7)
        // The new link's Connection Complete is well formed (tshark finds nothing wrong in it).
        #expect(try db.scalarInt("SELECT count(*) FROM decode_problem") == 0)
        #expect(try db.scalarInt("SELECT malformed FROM packet WHERE frame = 4") == 0)
        let ended = try db.rows("SELECT connection_id, packet_id, name FROM link_event WHERE name = ?1", [.text(LinkEventName.handleReused)])
        #expect(ended.count == 1 && ended.first?[0].int == 1 && ended.first?[1].int == 4)
        // No disconnect is counted for it: the reason is not in the capture.
        #expect(try db.scalarInt("SELECT count(*) FROM error WHERE context = 'disconnect'") == 1)
        let diagnoses = try DiagnosisLoader.load(store)
        let text = DiagnosisRenderer.text(diagnoses)
        #expect(!text.contains("still open when the capture ended"))
        #expect(!text.contains("with its controller"))
        #expect(text.contains("ended: not in the capture: by packet 4 at the latest"))
        let first = try #require(diagnoses.first?.connections.first)
        #expect(first.handleReusedPacketID == 4)
    }
}
