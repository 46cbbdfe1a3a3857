import BLECore
import BLETimeline

/// The HCI Disconnect (Core v5.4 Vol 4 Part E 7.1.6) that ended a connection, and the reason it
/// carried: what the peer received in LL_TERMINATE_IND (Vol 6 Part B 2.4.2.2), and what tells the
/// app's own request (0x13) from the stack's (0x05 …).
///
/// The one that took effect is the first the controller accepted (its Command Status, 7.7.15); a
/// later Disconnect on a link already being torn down is refused and changes nothing. With none
/// accepted, the last one sent. The findings, the remote central's view and the Android status
/// column all read this one (`order` in SQL), and so does the replay (`RecordingLoader`).
public struct LocalDisconnectCommand {
    var packetID: Int
    /// Its link event's `reason` field, or in a timeline imported before the command had one the
    /// raw bytes (opcode 2, length, handle 2, reason); nil with neither (`--no-raw`).
    var reason: Int?

    /// The Disconnect that ended connection `connectionID`, sent before `frame` (nil: any).
    static func find(_ db: SQLiteDatabase, captureID: Int64, connectionID: Int64, before frame: Int? = nil) throws -> LocalDisconnectCommand? {
        guard let row = try db.rows("""
            SELECT m.packet_id, l.detail, p.raw FROM command m
            LEFT JOIN link_event l ON l.connection_id = m.connection_id AND l.packet_id = m.packet_id
            LEFT JOIN packet p ON p.rowid = \(PacketKey.sql(capture: "m.capture_id", frame: "m.packet_id"))
            WHERE m.capture_id = ?1 AND m.connection_id = ?2 AND m.opcode = 0x0406 AND m.packet_id < ?3
            ORDER BY \(order("m")) LIMIT 1
            """, [.integer(captureID), .integer(connectionID), .integer(Int64(frame ?? Int(Int32.max)))]).first,
              let packetID = row[0].int else { return nil }
        // Raw bytes only when they are the HCI command itself (opcode 0x0406 little-endian first):
        // an air capture's Disconnect is an LL_TERMINATE_IND, whose byte 5 is no reason.
        let reason = row[1].string.flatMap(FindingsEngine.disconnectReason(inDetail:)).map(Int.init)
            ?? row[2].blob.flatMap { $0.count >= 6 && $0[0] == 0x06 && $0[1] == 0x04 ? Int($0[5]) : nil }
        return LocalDisconnectCommand(packetID: packetID, reason: reason)
    }

    /// `ORDER BY` of a connection's HCI Disconnect commands (`command` rows named `table` in the
    /// query) putting the one that took effect first: the accepted ones earliest first, then the
    /// refused ones latest first.
    public static func order(_ table: String) -> String {
        "coalesce(\(table).status, 0) != 0, CASE WHEN coalesce(\(table).status, 0) = 0 THEN \(table).packet_id ELSE -\(table).packet_id END"
    }
}
