import BLECore
import BLETimeline

extension FindingsEngine {
    /// `credit-connection-refused`: an L2CAP LE Credit Based Connection Response (0x15) or Credit
    /// Based Connection Response (0x18: Enhanced ATT bearers on SPSM 0x0027, LE CoC) whose result
    /// refuses the connection (Core v5.4 Vol 3 Part A 4.23, 4.26): the channels asked for were
    /// not opened (for 0x0004 with 0x18, some of them), and ATT stays on the fixed channel.
    func creditConnectionRefusedFindings(_ c: ConnectionFacts) throws -> [Finding] {
        try db.rows("""
            SELECT e.packet_id, e.code, e.name, p.direction FROM error e
            LEFT JOIN packet p ON p.rowid = \(PacketKey.sql(capture: "?2", frame: "e.packet_id"))
            WHERE e.connection_id = ?1 AND e.context = 'credit-connection-refused' ORDER BY e.packet_id
            """, [.integer(c.id), .integer(captureID)]).map { e in
            let frame = e[0].int ?? 0, code = e[1].int ?? 0, name = e[2].string ?? ""
            let refuser = e[3].string == "tx" ? "The local host" : e[3].string == "rx" ? "The peer" : "One side"
            return Finding(connectionID: c.id, captureID: captureID, severity: .info, code: "credit-connection-refused",
                           title: "L2CAP credit-based connection refused: result \(hex(code, width: 4)) \(name)",
                           detail: "\(refuser) answered a credit-based connection request with result \(hex(code, width: 4)) \(name) "
                               + "(Core v5.4 Vol 3 Part A 4.23, 4.26): the channels it asked for (Enhanced ATT bearers, an LE "
                               + "credit-based channel) were not opened" + (code == 0x0004 ? ", or not all of them" : "")
                               + " (for EATT, ATT stays on the fixed channel 0x0004).",
                           evidence: [frame])
        }
    }
}
