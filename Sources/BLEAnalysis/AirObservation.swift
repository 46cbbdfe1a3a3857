import BLECapture
import BLECore
import BLETimeline

/// How far an air capture (a sniffer's: `PcapLinkType.isAirCapture`) shows each connection.
///
/// An HCI capture sees every packet the host exchanges until the capture ends, so a link without a
/// Disconnection Complete was still up at the capture's end. A sniffer sees a connection only while
/// it follows it: every connection event carries a packet from the central (Core v5.4 Vol 6 Part B
/// 4.5.1), an Empty PDU if nothing else, so once a followed connection's packets stop while the
/// capture goes on, the link ended where the sniffer could not see it (no LL_TERMINATE_IND
/// captured, or a supervision timeout, Vol 6 Part B 4.5.2) or the sniffer lost it (a missed
/// connection update or channel map, a jump to another link). What came after its last packet is
/// not in the capture: an ATT request unanswered then is unanswered as far as the capture shows,
/// never 30 s unanswered (Vol 3 Part F 3.3.3), and the link is not "still open at the end".
struct AirObservation {
    let captureID: Int64
    let isAirCapture: Bool
    private let lastPacket: SQLiteStatement?

    init(captureID: Int64, db: SQLiteDatabase) throws {
        self.captureID = captureID
        let linkType = try db.scalarInt("SELECT link_type FROM capture WHERE id = ?1", [.integer(captureID)])
        isAirCapture = linkType.map { PcapLinkType(rawValue: UInt32(truncatingIfNeeded: $0)).isAirCapture } ?? false
        lastPacket = isAirCapture
            ? try db.prepare("SELECT ts_us FROM packet WHERE rowid = \(PacketKey.sql(capture: "?1", frame: "?2"))") : nil
    }

    /// When the capture last showed a connection whose end it does not show: its last packet's
    /// time, on an air capture, for a link with no disconnection seen; nil otherwise (an HCI
    /// capture, or a link seen to end).
    func lastSeen(_ c: ConnectionFacts) throws -> Int64? {
        guard isAirCapture, c.disconnectedAt == nil, c.disconnectPacketID == nil, let s = lastPacket else { return nil }
        try s.bind([.integer(captureID), .integer(Int64(c.lastPacketID))])
        defer { s.reset() }
        guard try s.step(), !s.isNull(0) else { return nil }
        return s.int64(0)
    }
}
