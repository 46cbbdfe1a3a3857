import BLECore
import BLETimeline

/// What stands in for LE connection parameters on a BR/EDR ACL link carrying ATT (GATT over
/// BR/EDR, Core v5.4 Vol 3 Part G 2.1), so the replay's link model serves both transports:
///
/// - there is no connection interval: the central polls the link every T_poll, 40 slots (25 ms)
///   unless negotiated (Vol 2 Part C 4.1.8, Quality of Service). It only paces buffer returns the
///   recording does not show and a peer's termination;
/// - the link supervision timeout is 0x7D00 slots (20 s) by default and changes only by Write
///   Link Supervision Timeout (Vol 4 Part E 7.3.42; slots of 0.625 ms), which the central's host
///   sends: each one the capture shows becomes a parameter update at its time.
///
/// A link loss (0x08) is then anchored like an LE one: the link went silent one supervision
/// timeout (the one in force) before the recorded Disconnection Complete, or at the peer's last
/// PDU when that came later.
public enum BREDRLinkParameters {
    public static let pollInterval: Int64 = 25_000
    public static let defaultSupervisionTimeout: Int64 = 20_000_000
    static let writeLinkSupervisionTimeout = 0x0C37

    static func load(_ c: inout RecordedConnection, _ q: RecordingLoader.Statements, clock: RecordingClock) throws {
        c.parameters = ConnectionParameters(interval: pollInterval, latency: 0, supervisionTimeout: defaultSupervisionTimeout)
        c.parameterUpdates = []
        for r in try q.rows("""
            SELECT m.packet_id, m.ts_us, p.raw FROM command m JOIN packet p ON p.rowid = \(PacketKey.sql(capture: "m.capture_id", frame: "m.packet_id"))
            WHERE m.connection_id = ?1 AND m.opcode = \(writeLinkSupervisionTimeout) ORDER BY m.packet_id
            """, [.integer(c.id)]) {
            // 37 0C | 04 | Handle (2) | Link_Supervision_Timeout (2), slots of 0.625 ms; 0 means none.
            guard let packet = r[0].int, let t = r[1].int64, let raw = r[2].blob, raw.count >= 7 else { continue }
            let slots = Int64(raw[5]) | Int64(raw[6]) << 8
            guard slots > 0 else { continue }
            let p = ConnectionParameters(interval: pollInterval, latency: 0, supervisionTimeout: slots.saturatingMultiplied(by: 625))
            let offset = clock.time(frame: packet, raw: t).saturatingSubtracting(c.origin)
            if offset <= 0 { c.parameters = p } else { c.parameterUpdates.append((offset, p, packet)) }
        }
    }
}
