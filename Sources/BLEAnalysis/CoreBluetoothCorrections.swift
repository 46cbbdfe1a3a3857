import BLECore
import BLETimeline

/// The CoreBluetooth names of a capture's HCI error rows, decided again by the importer's own
/// rule (`CoreBluetoothErrorRule`) with what only the analysis knows.
///
/// The importer names each row at its packet. Two things make the analysis apply the rule again:
/// an ATT transaction that timed out (Core v5.4 Vol 3 Part F 3.3.3) is only known once
/// transactions are matched, and timelines written by older versions named disconnects without
/// the local role or an earlier Encryption Change 0x06 (the analysis version re-runs this on them).
extension Analyzer {
    static func applyCoreBluetoothRule(_ captureID: Int64, db: SQLiteDatabase) throws {
        let rows = try db.rows("""
            SELECT e.rowid, e.context, e.code, e.cb_error, c.transport, c.role, c.local_disconnect_requested,
                   EXISTS (SELECT 1 FROM error k WHERE k.connection_id = e.connection_id AND k.context = 'encryption'
                           AND k.code = 0x06 AND k.packet_id < e.packet_id),
                   EXISTS (SELECT 1 FROM att_transaction t WHERE t.connection_id = e.connection_id AND t.outcome = 'timeout'
                           AND t.request_ts_us + 30000000 <= e.ts_us)
            FROM error e JOIN connection c ON c.id = e.connection_id
            WHERE e.capture_id = ?1 AND e.layer = 'hci' AND e.context IN ('disconnect', 'encryption', 'connection')
            """, [.integer(captureID)])
        let update = try db.prepare("UPDATE error SET cb_error = ?1 WHERE rowid = ?2")
        for r in rows {
            let code = HCIStatusCode(UInt8(truncatingIfNeeded: r[2].int ?? 0))
            let isLE = (r[4].string ?? "le") == "le"
            let role = r[5].string
            let stored = r[3].string
            let cb: String?
            switch r[1].string {
            case "disconnect":
                cb = CoreBluetoothErrorRule.disconnect(
                    reason: code, isLE: isLE, localRole: role, localDisconnectRequested: (r[6].int ?? 0) != 0,
                    keyMissingBefore: (r[7].int ?? 0) != 0, attTimeoutBefore: (r[8].int ?? 0) != 0)
            case "encryption":
                cb = CoreBluetoothErrorRule.encryptionFailure(status: code, isLE: isLE, localRole: role)
            default:
                // Whether the attempt was the app's own cancel was decided at import; only the role can change it.
                cb = CoreBluetoothErrorRule.centralHears(isLE: isLE, localRole: role) ? stored : nil
            }
            guard cb != stored, let rowID = r[0].int64 else { continue }
            update.bindText(cb, at: 1)
            update.bindInt(rowID, at: 2)
            try update.run()
        }
    }
}
