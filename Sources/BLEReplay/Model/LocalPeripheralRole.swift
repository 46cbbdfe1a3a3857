import BLECore

/// Devices the capture saw only as remote centrals: every recorded LE connection to them had the
/// local controller as peripheral (LE Connection Complete role 0x01, Core v5.4 Vol 4 Part E
/// 7.7.65.1), i.e. the phone was the GATT server and the device read and wrote it.
///
/// A central (a `--central` script, or code on CoreBluetoothReplay) can only meet such a device
/// as a simulated advertising peripheral with no GATT database of its own (the database in the
/// capture is the phone's): discovery finds 0 services. The note says so, and what can be
/// replayed instead (Docs/replay.md "Known limits").
public enum LocalPeripheralRole {
    /// Peer keys (`RecordedSession.peerKey`) of the devices every established connection to
    /// which had the local device as peripheral, and whose own GATT server (GATTServerSide.remote)
    /// the local device never read: one it did read is served like any peer's.
    public static func remoteCentrals(_ session: RecordedSession) -> Set<String> {
        var roles: [String: Set<String>] = [:]
        for c in session.connections where c.isEstablished {
            roles[RecordedSession.peerKey(c), default: []].insert(c.role ?? "central")
        }
        return Set(roles.filter { $0.value == ["peripheral"] && session.gatt[$0.key]?.isEmpty ?? true }.keys)
    }

    /// The note for a central aimed at `key`, or nil when some recorded connection to it had the
    /// local device as central.
    public static func note(_ session: RecordedSession, key: String) -> String? {
        remoteCentrals(session).contains(key) ? text(session, keys: [key]) : nil
    }

    /// The note for a central script: aimed at the device its scan found (`found`), else the one
    /// it names (`peripheral`, an address or a name), else at any device in the capture; nil unless
    /// every recorded connection to that target had the local device as peripheral.
    public static func scriptNote(_ session: RecordedSession, found: String?, peripheral: String?,
                                  names: [String: String]) -> String? {
        let centrals = remoteCentrals(session)
        guard !centrals.isEmpty else { return nil }
        if let found { return note(session, key: found) }
        if let only = peripheral {
            let key = names.first { $0.key.uppercased() == only.uppercased() || $0.value == only }?.key ?? only
            return note(session, key: key)
        }
        let recorded = Set(session.connections.filter(\.isEstablished).map(RecordedSession.peerKey))
        return recorded == centrals ? text(session, keys: recorded.sorted()) : nil
    }

    static func text(_ session: RecordedSession, keys: [String]) -> String {
        let n = session.connections.filter { $0.isEstablished && keys.contains(RecordedSession.peerKey($0)) }.count
        return "the capture's local device was the peripheral (LE Connection Complete role 0x01) on every recorded connection to "
            + keys.joined(separator: ", ") + " (\(n) connection(s)): that device was a remote central reading and writing the local GATT server, "
            + "so a central cannot be replayed against it (it is simulated as an advertising peripheral with no GATT database: discovery finds 0 services). "
            + "What can be replayed: the faithful replay (blereplay replay \(session.fileName) without --central) replays the remote central's requests "
            + "against the local server's recorded answers, a central script with \"server\": \"local\" plays the remote central against the local GATT server "
            + "(the default when every recorded connection had the local device as peripheral), "
            + "and a CBPeripheralManager in CoreBluetoothReplay faces the recorded central or such a script with your own GATT server (Docs/peripheral.md)"
    }
}
