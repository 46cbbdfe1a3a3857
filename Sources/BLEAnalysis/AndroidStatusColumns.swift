import BLECore
import BLETimeline

/// Fills the `android_status` and `android_name` columns of a capture's `error` and `finding`
/// rows by `AndroidStatusRule`, at analysis time: errors are few, and the rule needs what only the
/// analysis knows (an ATT transaction that timed out, the connect that preceded a failure).
extension Analyzer {
    @discardableResult
    static func applyAndroidRule(_ captureID: Int64, db: SQLiteDatabase) throws -> AndroidStatusByPacket {
        let androidVersion = try CapturePlatform.androidVersion(captureID: captureID, db: db)
        let retries = try clientRetryVerdicts(captureID, db: db)
        let isAirCapture = try AirObservation(captureID: captureID, db: db).isAirCapture
        let cancels = try db.rows("SELECT packet_id FROM command WHERE capture_id = ?1 AND opcode = 0x200E ORDER BY packet_id",
                                  [.integer(captureID)]).compactMap { $0[0].int64 }
        try db.run("UPDATE error SET android_status = NULL, android_name = NULL WHERE capture_id = ?1", [.integer(captureID)])
        let update = try db.prepare("UPDATE error SET android_status = ?1, android_name = ?2 WHERE rowid = ?3")
        // Read a row at a time (loaded whole, 190,000 ATT errors took 74 MB); each row's columns are
        // set as it is read: an UPDATE of the current row's android columns, which the query
        // neither filters nor orders by, is safe while the SELECT steps (sqlite.org/isolation.html).
        try db.forEachRow("""
            SELECT e.rowid, e.layer, e.context, e.code, e.opcode, c.transport, c.role, c.local_disconnect_requested,
                   -- Each lookup only for the rows whose rule needs it (CASE evaluates one branch).
                   CASE WHEN e.context = 'disconnect' THEN
                       EXISTS (SELECT 1 FROM att_transaction t WHERE t.connection_id = e.connection_id AND t.outcome = 'timeout'
                               AND t.request_ts_us + 30000000 <= e.ts_us) END,
                   CASE WHEN e.context = 'connection' AND e.code = 2 THEN
                       (SELECT m.ts_us FROM command m WHERE m.capture_id = e.capture_id AND m.opcode IN (0x200D, 0x2043, 0x2085)
                               AND m.packet_id < e.packet_id ORDER BY m.packet_id DESC LIMIT 1) END,
                   CASE WHEN e.context = 'connection' AND e.code = 2 THEN
                       (SELECT m.packet_id FROM command m WHERE m.capture_id = e.capture_id AND m.opcode IN (0x200D, 0x2043, 0x2085)
                               AND m.packet_id < e.packet_id ORDER BY m.packet_id DESC LIMIT 1) END,
                   CASE WHEN e.layer = 'att' THEN
                       (SELECT a.direction FROM att_pdu a WHERE a.connection_id = e.connection_id AND a.packet_id = e.packet_id
                               AND a.opcode = 1 LIMIT 1) END,
                   e.packet_id, e.ts_us, e.connection_id
            FROM error e LEFT JOIN connection c ON c.id = e.connection_id
            WHERE e.capture_id = ?1 AND ((e.layer = 'hci' AND e.context IN ('disconnect', 'connection', 'encryption'))
                                          OR (e.layer = 'att' AND e.context = 'error-response')
                                          OR (e.layer = 'smp' AND e.context = 'pairing-failed'))
            """, [.integer(captureID)]) { s in
            let r = s.row()
            guard let rowID = r[0].int64, r[5].string != nil || r[1].string == "att" else { return }
            let code = r[3].int ?? 0
            let isLE = (r[5].string ?? "le") == "le"
            let role = r[6].string
            let status: AndroidGattStatus?
            switch (r[1].string, r[2].string) {
            case ("hci", "disconnect"):
                // The reason of the host's Disconnect that ended the link, as the findings read it
                // (its link event's reason, else the command's raw bytes).
                let localDisconnect = (r[7].int ?? 0) != 0
                var sent = localDisconnect
                    ? try LocalDisconnectCommand.find(db, captureID: captureID, connectionID: r[14].int64 ?? -1, before: r[12].int ?? 0)?.reason : nil
                // On air the central's Disconnect is its LL_TERMINATE_IND, and the reason reported is the one it sent.
                if localDisconnect, sent == nil, isAirCapture { sent = code }
                status = AndroidStatusRule.disconnect(
                    reason: HCIStatusCode(UInt8(truncatingIfNeeded: code)), isLE: isLE, localRole: role,
                    localDisconnectRequested: localDisconnect, attTimeoutBefore: (r[8].int ?? 0) != 0,
                    disconnectReasonSent: sent.map { UInt8(truncatingIfNeeded: $0) })
            case ("hci", "connection"):
                let frame = r[12].int64 ?? 0
                let createFrame = r[10].int64
                let cancelled = code == 0x02 && cancels.contains { $0 < frame && $0 > (createFrame ?? 0) }
                status = AndroidStatusRule.connectionFailure(
                    status: HCIStatusCode(UInt8(truncatingIfNeeded: code)), cancelled: cancelled,
                    waitedUs: r[9].int64.map { (r[13].int64 ?? 0).saturatingSubtracting($0) }, isLE: isLE,
                    localRole: role, androidVersion: androidVersion)
            case ("att", _):
                let delivered = !retries.notDelivered.contains(r[12].int64 ?? 0)
                status = delivered ? AndroidStatusRule.attError(ATTErrorCode(UInt8(truncatingIfNeeded: code)), requestOpcode: r[4].int,
                                                                receivedByPhone: r[11].string == "rx") : nil
            default:
                // A pairing or encryption failure reaches a callback only as the end of a retried read or write.
                status = retries.authFail.contains(r[12].int64 ?? 0) && AndroidStatusRule.clientHears(isLE: isLE, localRole: role)
                    ? .authFail : nil
            }
            guard let status else { return }
            update.bindInt(status.status, at: 1)
            update.bindText(status.name, at: 2)
            update.bindInt(rowID, at: 3)
            try update.run()
        }
        return try AndroidStatusByPacket(captureID: captureID, db: db)
    }

    /// The phone's read and write requests and the security failures, per link in capture order,
    /// walked by `AndroidClientRetries` a row at a time: a link's requests are never held at once
    /// (loaded whole, 190,000 reads on one link took 70 MB).
    static func clientRetryVerdicts(_ captureID: Int64, db: SQLiteDatabase) throws -> AndroidClientRetries.Verdicts {
        var out = AndroidClientRetries.Verdicts()
        var link: Int64?
        var walker = AndroidClientRetries.Walker()
        func linkEnded() {
            out.notDelivered.formUnion(walker.verdicts.notDelivered)
            out.authFail.formUnion(walker.verdicts.authFail)
            walker = AndroidClientRetries.Walker()
        }
        try db.forEachRow("""
            SELECT t.connection_id, t.request_packet_id, 0, t.opcode, t.handle, t.outcome, t.error_code, t.response_packet_id
            FROM att_transaction t JOIN connection c ON c.id = t.connection_id
            WHERE c.capture_id = ?1 AND t.direction = 'tx' AND t.opcode IN (10, 12, 18, 22)
            UNION ALL
            SELECT e.connection_id, e.packet_id, 1, NULL, NULL, NULL, NULL, NULL FROM error e
            WHERE e.capture_id = ?1 AND e.connection_id IS NOT NULL
              AND ((e.layer = 'smp' AND e.context = 'pairing-failed') OR (e.layer = 'hci' AND e.context = 'encryption'))
            ORDER BY 1, 2, 3
            """, [.integer(captureID)]) { s in
            let id = s.int64(0)
            if link != id {
                if link != nil { linkEnded() }
                link = id
            }
            if s.int(2) == 1 {
                walker.add(.securityFailure(packet: s.int64(1)))
            } else {
                walker.add(.request(opcode: s.int(3), handle: s.optionalInt(4), outcome: s.text(5) ?? "",
                                    errorCode: s.optionalInt(6), responsePacket: s.optionalInt64(7)))
            }
        }
        if link != nil { linkEnded() }
        return out
    }

    /// The Android status of the error rows `applyAndroidRule` filled, by packet: what a finding
    /// without its own takes. Looked up in the rows (index `error_packet`), not held: a capture of
    /// 500,000 refused reads held 61 MB of them (1M records: 116 MB peak; 200k errors: 24 MB of a
    /// 50 MB peak), for the few findings that ask.
    struct AndroidStatusByPacket {
        private let lookup: SQLiteStatement

        init(captureID: Int64, db: SQLiteDatabase) throws(SQLiteError) {
            lookup = try db.prepare("""
                SELECT android_status, android_name FROM error
                WHERE capture_id = ?1 AND packet_id = ?2 AND android_status IS NOT NULL AND (?3 IS NULL OR connection_id = ?3)
                ORDER BY rowid DESC LIMIT 1
                """)
            lookup.bindInt(captureID, at: 1)
        }

        /// The status of the last error among `f`'s evidence packets (on its connection, for a
        /// connection's finding): the callback the app got for what the finding is about.
        func status(for f: Finding) throws(SQLiteError) -> AndroidGattStatus? {
            for frame in f.evidence.reversed() {
                lookup.bindInt(frame, at: 2)
                lookup.bindInt(f.connectionID, at: 3)
                defer { lookup.reset() }
                if try lookup.step(), let status = lookup.optionalInt(0) {
                    return AndroidGattStatus(status, lookup.text(1))
                }
            }
            return nil
        }
    }
}
