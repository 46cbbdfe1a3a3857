import TestSupport
import Foundation
import Testing
@testable import BLEReport
import BLEAnalysis
import BLETimeline

/// A link up when the local controller is reset. HCI Reset (Core v5.4 Vol 4 Part E 7.3.2)
/// returns the controller to its default state with no connections, and no Disconnection
/// Complete comes for them: the link ended at the reset's Command Complete, with no reason, and
/// a request it still had outstanding was never answered (it is `disconnected`, not `pending`).
/// An iPhone does this when bluetoothd restarts or recovers its controller.
@Suite("Links ended by a controller reset")
struct ControllerResetTests {

    /// `SpecCapture.controllerReset` (TestSupport): frame 6 completes the Reset.
    static func capture() -> SpecCapture { SpecCapture.controllerReset() }

    @Test func resetEndsTheLinkWithNoReason() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let file = dir + "/reset.pklg"
        try Self.capture().writePacketLogger(to: file)
        let store = try Support.timeline([file], at: dir + "/t.db")
        let capture = try #require(try DiagnosisLoader.load(store).first)
        #expect(capture.connections.count == 2)
        let first = try #require(capture.connections.first)
        #expect(first.disconnectPacketID == 6)
        #expect(first.disconnectReason == nil)
        #expect(first.controllerResetPacketID == 6)
        #expect(first.lastPacketID == 6)
        // The unanswered read ended with the link, not with the capture.
        let outcomes = try store.database.rows("""
            SELECT request_packet_id, outcome FROM att_transactions WHERE connection_id = ?1 ORDER BY request_packet_id
            """, [.integer(first.id)]).map { "\($0[0].int ?? 0):\($0[1].string ?? "")" }
        #expect(outcomes == ["2:ok", "4:disconnected"])
        #expect(!first.findings.contains { $0.finding.code == "capture-ended-pending" })
        let reset = try #require(first.findings.first { $0.finding.code == "controller-reset" })
        #expect(reset.finding.severity == .error)
        #expect(reset.finding.evidence == [5, 6])
        #expect(reset.finding.cbError == nil)
        // The handle reused after the reset is a new link, not a Connection Complete on a link
        // still open (which would be a malformed packet).
        let malformed = try store.database.scalarInt("SELECT count(*) FROM packet WHERE malformed = 1") ?? -1
        #expect(malformed == 0)
        let second = try #require(capture.connections.last)
        #expect(second.disconnectReason == 0x13)
        #expect(second.disconnectCBError == "CBError.peripheralDisconnected")

        let text = DiagnosisRenderer.text([capture])
        #expect(text.contains("ended: the controller was reset at packet 6 (HCI Reset completed with the link up)"))
        #expect(text.contains("no CBError for the link (inferred): a CoreBluetooth app sees the manager state leave .poweredOn"))
        #expect(!text.contains("still open when the capture ended"))
    }
}
