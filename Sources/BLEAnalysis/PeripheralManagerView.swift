import BLECore
import BLETimeline

/// What CoreBluetooth apps see of a link on which the local device was the LE peripheral (LE
/// Connection Complete role 0x01, Core v5.4 Vol 4 Part E 7.7.65.1): the local app is a
/// `CBPeripheralManager`, the remote one a `CBCentralManager`.
///
/// Apple's `CBPeripheralManagerDelegate` has no disconnect or connection callback at all: a
/// peripheral-manager app learns that a central went away only as
/// `peripheralManager(_:central:didUnsubscribeFrom:)`, once for each characteristic that central
/// was subscribed to (the system owns the CCCD, Vol 3 Part G 3.3.3.3, and clears it when the link
/// drops). The remote central's app gets `centralManager(_:didDisconnectPeripheral:error:)`, with
/// the error its own controller's reason maps to (REFERENCE.md's heuristic): the local reason
/// says what that was, seen from the other end.
public struct PeripheralManagerView: Sendable, Equatable {
    /// A characteristic of the local server the remote central was subscribed to when the link ended.
    public struct Subscription: Sendable, Equatable {
        /// The characteristic's UUID, nil when the local database was never discovered in the capture.
        public var characteristicUUID: String?
        /// The Client Characteristic Configuration descriptor written (Vol 3 Part G 3.3.3.3).
        public var cccdHandle: Int
        /// The write that enabled notifications or indications.
        public var packetID: Int
        public var timestamp: Int64
        /// `notifications`, `indications` or both.
        public var kind: String
        /// The handle is a CCCD only by inference: no discovery in the capture named it, but the
        /// local server then notified or indicated the attribute before it.
        public var inferred: Bool
    }

    /// Subscriptions in force at the disconnect (each ends in a `didUnsubscribeFrom`).
    public var subscriptions: [Subscription]
    /// What the remote central's app sees, as a sentence (the callback and its error).
    public var remoteCentralSees: String?

    public static let didUnsubscribe = "peripheralManager(_:central:didUnsubscribeFrom:)"
    public static let didDisconnect = "centralManager(_:didDisconnectPeripheral:error:)"

    /// The report's CoreBluetooth label for a disconnect on such a link (no CBError exists for it).
    public static let reportLabel = "CBPeripheralManager: no disconnect callback (didUnsubscribeFrom if subscribed)"

    /// Reads the view of connection `connectionID` (capture `captureID`), ended with `reason`
    /// at `frame` (nil: still open at the end of the capture).
    static func load(_ db: SQLiteDatabase, captureID: Int64, connectionID: Int64, reason: Int?, before frame: Int?) throws -> PeripheralManagerView {
        // The remote central's writes to the local server's CCCDs, in order: the last one per
        // descriptor says what was in force. A Write Request counts once the local server accepted it.
        let rows = try db.rows("""
            SELECT a.packet_id, a.ts_us, a.handle, substr(a.pdu, a.value_offset + 1, a.value_length),
                   (SELECT d.characteristic_uuid FROM gatt_descriptor d JOIN connection k ON k.id = d.connection_id
                    WHERE k.capture_id = ?1 AND d.server = 'local' AND d.uuid = '2902' AND d.handle = a.handle LIMIT 1),
                   EXISTS (SELECT 1 FROM gatt_descriptor d JOIN connection k ON k.id = d.connection_id
                           WHERE k.capture_id = ?1 AND d.server = 'local' AND d.uuid = '2902' AND d.handle = a.handle),
                   EXISTS (SELECT 1 FROM att_pdu n WHERE n.connection_id = a.connection_id AND n.direction = 'tx'
                           AND n.opcode IN (0x1B, 0x1D) AND n.handle = a.handle - 1 AND n.packet_id > a.packet_id)
            FROM att_pdu a
            WHERE a.connection_id = ?2 AND a.direction = 'rx' AND a.packet_id < ?3 AND a.value_length = 2
            AND (a.opcode = 0x52 OR (a.opcode = 0x12 AND EXISTS (SELECT 1 FROM att_transaction t
                 WHERE t.connection_id = a.connection_id AND t.request_packet_id = a.packet_id AND t.outcome = 'ok')))
            ORDER BY a.packet_id
            """, [.integer(captureID), .integer(connectionID), .integer(Int64(frame ?? Int(Int32.max)))])
        var inForce: [Int: Subscription] = [:]
        var order: [Int] = []
        for r in rows {
            guard let handle = r[2].int, let value = r[3].blob, value.count == 2 else { continue }
            let known = (r[5].int ?? 0) != 0
            // Not a CCCD the capture names, nor one the local server acted on: some other 2-byte write.
            guard known || (r[6].int ?? 0) != 0 else { continue }
            let bits = Int(value[0]) & 0x03
            guard bits != 0 else {
                inForce[handle] = nil
                continue
            }
            let kind = bits == 3 ? "notifications and indications" : bits == 1 ? "notifications" : "indications"
            if !order.contains(handle) { order.append(handle) }
            inForce[handle] = Subscription(characteristicUUID: r[4].string, cccdHandle: handle, packetID: r[0].int ?? 0,
                                           timestamp: r[1].int64 ?? 0, kind: kind, inferred: !known)
        }
        let subscriptions = order.compactMap { inForce[$0] }
        return PeripheralManagerView(subscriptions: subscriptions,
                                     remoteCentralSees: try reason.map { try remoteSees(db, captureID: captureID, connectionID: connectionID, reason: $0) })
    }

    /// The remote central's view of the same ending, from the local controller's reason.
    static func remoteSees(_ db: SQLiteDatabase, captureID: Int64, connectionID: Int64, reason: Int,
                           mapping: DisconnectMapping = .default) throws -> String {
        func sees(_ code: Int, _ why: String) -> String {
            let cb = mapping.cbErrorName(for: HCIStatusCode(UInt8(truncatingIfNeeded: code))) ?? "CBError.unknown"
            return "\(didDisconnect) with \(cb) (\(why))"
        }
        // The local host's own Disconnect, its reason reported back instead of 0x16 (Vol 4 Part E
        // 7.7.5; Bumble's controller does): the central received that reason from the local
        // peripheral, as after 0x16; its own host did not end the link.
        let echoed = reason != 0x16 && reason != 0x08
            ? try LocalDisconnectCommand.find(db, captureID: captureID, connectionID: connectionID)?.reason == reason : false
        if echoed {
            return sees(reason, "the local host's Disconnect reached it with reason \(hex(reason))")
        }
        switch reason {
        case 0x08:
            return sees(0x08, "its controller too lost the link, unless it had dropped the link itself")
        case 0x16:
            // The local host's HCI Disconnect carried the reason the central receives in LL_TERMINATE_IND
            // (Vol 4 Part E 7.1.6, Vol 6 Part B 2.4.2.2).
            let sent = try LocalDisconnectCommand.find(db, captureID: captureID, connectionID: connectionID)?.reason
            return sees(sent ?? 0x13, sent.map { "the local host's Disconnect reached it with reason \(hex($0))" }
                ?? "the local host ended the link; its Disconnect reason is not in the capture, 0x13 assumed")
        case 0x13, 0x14, 0x15:
            return "\(didDisconnect) with no error if its app cancelled (cancelPeripheralConnection); its own host ended the link"
        case 0x05:
            // A host's reason (Vol 4 Part E 7.1.6): the central's own stack gave up on security.
            return sees(reason, "its own host ended the link: a pairing or encryption it needed failed")
        case 0x3E:
            return "centralManager(_:didFailToConnect:error:) with CBError.connectionFailed (the link never came up)"
        case 0x28:
            // A peripheral that gets an update after its instant leaves the link with no
            // LL_TERMINATE_IND (Core v5.4 Vol 6 Part B 5.5): the central hears nothing more.
            return sees(0x08, "the local peripheral left the link without a word, so the central's controller reports 0x08 Connection Timeout once its supervision timeout runs out")
        default:
            return sees(reason, "its controller reports the same failure")
        }
    }

    /// One sentence: what the peripheral-manager app sees, then what the remote central's does.
    public var sentence: String {
        var s = "A CBPeripheralManager app gets no disconnect callback and no CBError"
        if subscriptions.isEmpty {
            s += "; no characteristic was subscribed when the link ended, so it sees nothing at all"
        } else {
            let each = subscriptions.map { sub in
                (sub.characteristicUUID.map { "characteristic \($0)" } ?? "the characteristic at handle \(hex(sub.cccdHandle - 1, width: 4))")
                    + " (\(sub.kind), CCCD \(hex(sub.cccdHandle, width: 4)) written at packet \(sub.packetID)\(sub.inferred ? ", a CCCD by inference" : ""))"
            }
            s += "; it sees \(Self.didUnsubscribe) for " + each.joined(separator: ", ")
        }
        if let remote = remoteCentralSees { s += ". The remote central's app (a CBCentralManager) sees \(remote)" }
        return s + "."
    }
}
