import BLECore
import BLETimeline

extension FindingsEngine {
    /// `controller-reset`: the link was up when the local controller's HCI Reset completed (Core
    /// v5.4 Vol 4 Part E 7.3.2: the controller returns to its default state, with no connections,
    /// and reports no Disconnection Complete for them). The link ended there, for no reason the
    /// capture can give; a request still outstanding was never answered. The host restarted its
    /// Bluetooth (radio switched off, a stack restart, recovery after a controller fault), not
    /// the peer.
    func controllerResetFindings(_ c: ConnectionFacts) throws -> [Finding] {
        guard c.disconnectReason == nil, let frame = c.disconnectPacketID,
              let reset = try db.rows("""
                SELECT packet_id FROM link_event WHERE connection_id = ?1 AND name = ?2 ORDER BY packet_id LIMIT 1
                """, [.integer(c.id), .text(LinkEventName.controllerReset)]).first?[0].int, reset == frame
        else { return [] }
        let command = try db.rows("""
            SELECT packet_id FROM command WHERE capture_id = ?1 AND opcode = \(0x0C03) AND result_packet_id = ?2 LIMIT 1
            """, [.integer(captureID), .integer(Int64(frame))]).first?[0].int
        let outstanding = try db.scalarInt("""
            SELECT count(*) FROM att_transaction WHERE connection_id = ?1 AND outcome = 'disconnected'
            """, [.integer(c.id)]) ?? 0
        let peer = c.peerAddress ?? "the peer"
        var detail = "Known: the host sent HCI Reset" + (command.map { " (packet \($0))" } ?? "")
            + " and the controller completed it (packet \(frame)) while this link was up. A reset controller has no connections"
            + " and reports no Disconnection Complete for them (Core v5.4 Vol 4 Part E 7.3.2): the link ended there, and the"
            + " capture has no HCI reason for it."
        if outstanding > 0 {
            detail += " \(outstanding) ATT request(s) were still outstanding and were never answered."
        }
        detail += " Inferred: the local host restarted its Bluetooth (the radio switched off, a stack restart, or recovery"
            + " after a controller fault), not the peer."
        return [Finding(connectionID: c.id, captureID: captureID, severity: .error, code: "controller-reset",
                        title: "Link to \(peer) ended by a reset of the local controller",
                        detail: detail, evidence: (command.map { [$0] } ?? []) + [frame])]
    }
}
