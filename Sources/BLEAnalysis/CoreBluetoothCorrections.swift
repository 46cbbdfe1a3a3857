import BLECore
import BLETimeline

/// CoreBluetooth names the importer cannot give when it writes an error row, because they
/// depend on what else happened on the connection. Applied to the `error` table after the
/// transactions are matched; `FindingsEngine` follows the same rules.
extension Analyzer {
    /// What an iOS app sees when a bonded reconnect fails: the peer answered the encryption
    /// request (Core v5.4 Vol 6 Part B 5.1.3.1) with LL_REJECT_EXT_IND 0x06 PIN or Key Missing,
    /// i.e. it lost the bond, and CoreBluetooth ends the link with
    /// `CBError.peerRemovedPairingInformation` (14). The disconnect that follows such an
    /// Encryption Change is not the app's own cancel.
    static let peerRemovedPairingInformation = "CBError.peerRemovedPairingInformation"

    static func disconnectsAfterEncryptionFailure(_ captureID: Int64, db: SQLiteDatabase) throws {
        try db.run("""
            UPDATE error SET cb_error = '\(peerRemovedPairingInformation)'
            WHERE capture_id = ?1 AND context = 'disconnect' AND connection_id IN (
                SELECT e.connection_id FROM error e JOIN connection c ON c.id = e.connection_id
                WHERE e.capture_id = ?1 AND e.context = 'encryption' AND e.code = 0x06
                AND coalesce(c.role, 'central') <> 'peripheral' AND e.ts_us <= coalesce(c.disconnected_ts_us, e.ts_us))
            """, [.integer(captureID)])
    }

    /// When the local device was the peripheral (LE Connection Complete role 0x01, Vol 4 Part E
    /// 7.7.65.1) the app on it is a GATT server (`CBPeripheralManager`): no CBCentralManager
    /// callback carries a CBError for the link or its encryption. ATT error codes keep their
    /// CBATTError names: a peripheral-manager app answers requests with them.
    static func noCentralErrorsForLocalPeripheral(_ captureID: Int64, db: SQLiteDatabase) throws {
        try db.run("""
            UPDATE error SET cb_error = NULL
            WHERE capture_id = ?1 AND layer = 'hci' AND cb_error IS NOT NULL AND connection_id IN (
                SELECT id FROM connection WHERE capture_id = ?1 AND role = 'peripheral')
            """, [.integer(captureID)])
    }
}
