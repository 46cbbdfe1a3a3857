import BLECore
import BLETimeline

/// The account of a 0x22 LMP Response Timeout / LL Response Timeout ending (Core v5.4 Vol 4
/// Part E 7.7.5): a link-layer procedure's response did not come within 40 s, the procedure
/// response timeout (Vol 6 Part B 5.2).
extension FindingsEngine {
    /// Commands that start a link-layer procedure the peer must answer: LE Connection Update
    /// (0x2013), LE Read Remote Features (0x2016), LE Start Encryption (0x2019), LE Remote
    /// Connection Parameter Request Reply (0x2020), LE Set Data Length (0x2022), LE Set PHY (0x2032),
    /// Read Remote Version Information (0x041D).
    static let procedureStartingOpcodes: [Int] = [0x2013, 0x2016, 0x2019, 0x2020, 0x2022, 0x2032, 0x041D]

    /// The procedure response timeout (Vol 6 Part B 5.2).
    static let procedureResponseTimeoutUs: Int64 = 40_000_000

    func llResponseTimeoutExplanation(_ c: ConnectionFacts, frame: Int, at: Int64) throws -> String {
        let since = at.saturatingSubtracting(Self.procedureResponseTimeoutUs + 1_000_000)
        let started = try db.rows("""
            SELECT packet_id, name FROM command WHERE capture_id = ?1 AND connection_id = ?2 AND packet_id < ?3 AND ts_us >= ?4
            AND opcode IN (\(Self.procedureStartingOpcodes.map(String.init).joined(separator: ", ")))
            ORDER BY packet_id
            """, [.integer(captureID), .integer(c.id), .integer(Int64(frame)), .integer(since)])
        let startedText = started.isEmpty ? "" : " In the 40 s before it the host started " +
            started.prefix(4).map { "\($0[1].string ?? "a procedure") (packet \($0[0].int ?? 0))" }.joined(separator: ", ") +
            (started.count > 4 ? " and \(started.count - 4) more" : "") + "."
        // A link younger than the timeout cannot have waited it out.
        if !c.beganBeforeCapture, let connected = c.connectedAt,
           at.saturatingSubtracting(connected) < Self.procedureResponseTimeoutUs - 1_000_000 {
            return "The link lasted only \(TextFormat.duration(at.saturatingSubtracting(connected))), less than the 40 s a link-layer procedure waits for its response (Core Vol 6 Part B 5.2): no procedure can have timed out; the controller reported 0x22 for a procedure that failed otherwise (an unexpected or missing PDU from the peer)." + startedText
        }
        return "A link-layer procedure (encryption, parameter update, PHY, feature exchange) got no response within the 40 s the spec allows (Core Vol 6 Part B 5.2)." + startedText
    }
}
