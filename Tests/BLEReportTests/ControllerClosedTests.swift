import TestSupport
import Foundation
import Testing
@testable import BLEReport
import BLEAnalysis
import BLETimeline

/// btmon's Close Index (opcode 9) and Delete Index (1) take an adapter away with its links open:
/// BlueZ drops them itself (hci_dev_close_sync -> hci_conn_hash_flush) and no Disconnection
/// Complete is recorded; the index can come back (New Index) and use handle 0x0040 again. The
/// link ends at the Close Index, and the next Connection Complete on the handle is a new link,
/// not a malformed event. Records: btsnoop datalink 2001, flags = index << 16 | opcode
/// (REFERENCE.md "btsnoop"); the shape of the capture is a btmon trace of `hciconfig hci1 down`
/// then a re-plugged adapter.
@Suite("btmon controller closed with links open")
struct ControllerClosedTests {
    static let peer: [UInt8] = [0xD1, 0x22, 0x33, 0x44, 0x55, 0x66]
    static let peer2: [UInt8] = [0xE1, 0x22, 0x33, 0x44, 0x55, 0x77]

    static func connectionComplete(_ peer: [UInt8]) -> [UInt8] { MonitorCapture.connectionComplete(peer) }

    static func capture() -> [UInt8] {
        var c = MonitorCapture()
        func record(_ index: UInt32, _ opcode: UInt32, _ body: [UInt8]) { c.record(index, opcode, body) }
        let readRequest: [UInt8] = [0x40, 0x00, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0A, 0x03, 0x00]
        record(1, 3, connectionComplete(peer))                // 1 LE Connection Complete on hci1
        record(1, 4, readRequest)                             // 2 ATT Read Request
        record(1, 4, [0x40, 0x00, 0x05, 0x00, 0x0A, 0x00, 0x04, 0x00, 0x0B])  // 3 start of a PDU that never completes
        record(1, 9, [])                                      // 4 Close Index hci1
        record(1, 1, [])                                      // 5 Delete Index hci1
        record(1, 3, connectionComplete(peer2))               // 6 the adapter back: handle 0x0040 again
        record(1, 4, readRequest)                             // 7
        record(1, 3, [0x05, 0x04, 0x00, 0x40, 0x00, 0x08])   // 8 Disconnection Complete 0x08
        return c.bytes
    }

    @Test func closeIndexEndsTheControllersLinks() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let file = dir + "/btmon.btsnoop"
        try Data(Self.capture()).write(to: URL(fileURLWithPath: file))
        let store = try Support.timeline([file], at: dir + "/t.db")
        let db = store.database
        // The reused handle is a new link, not "connection complete while #1 was still open";
        // the one problem is the PDU the closed controller never completed, at its start fragment
        // (3: `DecodeError.frame`), the Close Index named as why; no packet is malformed for it.
        let problems = try db.rows("SELECT packet_id, reason FROM decode_problem")
        #expect(problems.count == 1 && problems.first?[0].int == 3)
        #expect(try db.scalarInt("SELECT count(*) FROM packet WHERE malformed = 1") == 0)
        #expect(problems.first?[1].string?.contains("Close Index") == true)
        let rows = try db.rows("SELECT peer_address, disconnected_ts_us IS NOT NULL, disconnect_reason FROM connections ORDER BY id")
        #expect(rows.map { $0[0].string ?? "" } == ["D1:22:33:44:55:66", "E1:22:33:44:55:77"])
        #expect(rows[0][1].int == 1 && rows[0][2].int == nil)
        #expect(rows[1][2].int == 8)
        let ended = try db.rows("SELECT packet_id, name FROM link_event WHERE name LIKE 'Controller closed%'")
        #expect(ended.count == 1 && ended.first?[0].int == 4 && ended.first?[1].string == "Controller closed (Close Index)")
        let diagnosis = try #require(try DiagnosisLoader.load(store).first)
        let text = DiagnosisRenderer.text([diagnosis])
        #expect(text.contains("ended: with its controller at packet 4"))
        #expect(!text.contains("still open when the capture ended"))
    }

    /// HCI_Reset resets the Link Layer (Core v5.4 Vol 4 Part E 7.3.2): a link open before it ends
    /// at its Command Complete, in any capture (here btsnoop H4, as Android writes when its stack
    /// restarts), and the handle's next Connection Complete is a new link.
    @Test func hciResetEndsTheLinks() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: Self.peer)          // 1
        c.att(200, handle: 0x40, [0x0A, 0x03, 0x00], received: false)             // 2 Read Request
        c.cmd(300, 0x0C03, [])                                                   // 3 HCI_Reset
        c.evt(310, 0x0E, [0x01, 0x03, 0x0C, 0x00])                               // 4 Command Complete, success
        c.connectionComplete(400, handle: 0x40, role: 0, peer: Self.peer2)         // 5
        c.disconnectionComplete(600, handle: 0x40, reason: 0x13)                   // 6
        let file = dir + "/reset.btsnoop"
        try c.write(to: file)
        let store = try Support.timeline([file], at: dir + "/t.db")
        let db = store.database
        #expect(try db.scalarInt("SELECT count(*) FROM decode_problem") == 0)
        let rows = try db.rows("SELECT disconnected_ts_us IS NOT NULL, disconnect_reason FROM connections ORDER BY id")
        #expect(rows.count == 2 && rows[0][0].int == 1 && rows[0][1].int == nil && rows[1][1].int == 0x13)
        let ended = try db.rows("SELECT packet_id, name FROM link_event WHERE name LIKE 'Controller closed%'")
        #expect(ended.count == 1 && ended.first?[0].int == 4 && ended.first?[1].string == "Controller closed (HCI Reset)")
    }
}
