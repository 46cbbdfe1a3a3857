import BLECore

/// Which characteristic an attribute handle holds, from the timeline's GATT tables, for
/// decoding the values read and notified on it.
///
/// The one place that answers "what is handle H on connection C": a connection that did not
/// discover (a reconnection that used its cache) borrows the database another connection to the
/// same peer address discovered.
public struct CharacteristicIndex: Sendable {
    struct Key: Hashable { var connection: Int64; var handle: Int }
    private var byConnection: [Key: BluetoothUUID] = [:]
    /// Connection -> the connection whose discovery stands in for it.
    private var stand_in: [Int64: Int64] = [:]

    /// Loads the characteristic value handles of every connection.
    public init(database db: SQLiteDatabase) throws {
        var discovered: [Int64: Bool] = [:]
        for r in try db.rows("SELECT connection_id, value_handle, uuid FROM gatt_characteristic") {
            guard let c = r[0].int64, let h = r[1].int, let text = r[2].string, let uuid = BluetoothUUID(text) else { continue }
            if byConnection[Key(connection: c, handle: h)] == nil { byConnection[Key(connection: c, handle: h)] = uuid }
            discovered[c] = true
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

    /// The characteristic whose value handle is `handle` on `connectionID`. `direction` is the
    /// direction of the PDU that carries the value ('rx': the peer is the server), which says
    /// whose database the handle belongs to on a link that carries two.
    public func characteristic(connectionID: Int64, handle: Int, direction: String) -> BluetoothUUID? {
        if let u = byConnection[Key(connection: connectionID, handle: handle)] { return u }
        if let other = stand_in[connectionID] { return byConnection[Key(connection: other, handle: handle)] }
        return nil
    }
}
