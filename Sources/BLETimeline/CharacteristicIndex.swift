import BLECore
import BLEDecode

/// Which characteristic an attribute handle holds, from the timeline's GATT tables, for
/// decoding the values read and notified on it.
///
/// The one place that answers "what is handle H on connection C": a connection that did not
/// discover (a reconnection that used its cache) borrows the database another connection to the
/// same peer address discovered.
public struct CharacteristicIndex: Sendable {
    struct Key: Hashable { var connection: Int64; var server: GATTServerSide; var handle: Int }
    private var byConnection: [Key: BluetoothUUID] = [:]
    /// Connection -> the connection whose discovery stands in for it.
    private var stand_in: [Int64: Int64] = [:]

    /// Loads the characteristic value handles of every connection.
    public init(database db: SQLiteDatabase) throws {
        var discovered: [Int64: Bool] = [:]
        for r in try db.rows("SELECT connection_id, server, value_handle, uuid FROM gatt_characteristic") {
            guard let c = r[0].int64, let server = r[1].string.flatMap(GATTServerSide.init(rawValue:)), let h = r[2].int,
                  let text = r[3].string, let uuid = BluetoothUUID(text) else { continue }
            let key = Key(connection: c, server: server, handle: h)
            if byConnection[key] == nil { byConnection[key] = uuid }
            if server == .remote { discovered[c] = true }
        }
        var firstByPeer: [String: Int64] = [:]
        let connections = try db.rows("SELECT id, peer_address FROM connection WHERE peer_address IS NOT NULL ORDER BY id")
        for r in connections {
            guard let c = r[0].int64, let peer = r[1].string, discovered[c] == true, firstByPeer[peer] == nil else { continue }
            firstByPeer[peer] = c
        }
        for r in connections {
            guard let c = r[0].int64, let peer = r[1].string, discovered[c] != true, let other = firstByPeer[peer] else { continue }
            stand_in[c] = other
        }
    }

    /// The characteristic whose value handle is `handle` on `connectionID`, in the database of
    /// the server the value's PDU concerns: `direction` ('tx'/'rx') and `opcode` decide it
    /// (`GATTServerSide`), since a link can carry two databases with overlapping handles. Only
    /// the peer's database is borrowed from another connection to the same peer.
    public func characteristic(connectionID: Int64, handle: Int, direction: String, opcode: UInt8) -> BluetoothUUID? {
        let server = GATTServerSide(direction: Direction(rawValue: direction) ?? .unknown, opcode: ATTOpcode(opcode))
        if let u = byConnection[Key(connection: connectionID, server: server, handle: handle)] { return u }
        if server == .remote, let other = stand_in[connectionID] {
            return byConnection[Key(connection: other, server: .remote, handle: handle)]
        }
        return nil
    }
}
