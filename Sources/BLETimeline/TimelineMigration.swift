/// Brings timelines written by older versions of blereplay up to `TimelineSchema.version`.
///
/// Each step runs inside the caller's transaction and rewrites only the base tables whose shape
/// changed; the views and indexes are dropped first and created again afterwards, so the
/// documented query contract is the same before and after.
enum TimelineMigration {
    /// Migrates `db` from `version` to the current schema. Throws for a version it cannot read.
    static func migrate(_ db: SQLiteDatabase, from version: Int64) throws(SQLiteError) {
        try db.execute("BEGIN IMMEDIATE")
        do {
            for view in try db.rows("SELECT name FROM sqlite_master WHERE type = 'view'").compactMap({ $0[0].string }) {
                try db.execute("DROP VIEW \"\(view)\"")
            }
            if version < 2 { try toVersion2(db) }
            if version < 3 { try gattServerColumn(db) }
            if version < 4 { try cutATTColumn(db) }
            if version < 5 {
                try phoneIdentityColumns(db)
                try androidStatusColumns(db)
            }
            // Version 5 -> 6: `capture_packet_scan` (StoredPacketScan, issue 12), created with the
            // other tables below. Captures imported before have no row: a replay scans their
            // packet rows as it always did.
            if version < 7 { try controllerIndexes(db) }
            if version < 8 { try readByTypeColumn(db) }
            try db.execute("\(TimelineSchema.tables) \(TimelineSchema.views) \(TimelineSchema.indexes) PRAGMA user_version = \(TimelineSchema.version);")
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
        // The old tables' pages are free now: give them back (a 1M-packet timeline shrinks from
        // 379 to 197 MB). Best effort: without the room to rebuild, the file stays as it is.
        // A step that only added a table freed nothing: no rewrite of the whole file then.
        if (try? db.scalarInt("PRAGMA freelist_count")).flatMap({ $0 }) ?? 0 > 0 { try? db.execute("VACUUM") }
    }

    /// Version 1 -> 2: `packet` is keyed by `capture_id << 32 | frame` (see `PacketKey`) and drops
    /// `original_length` (always equal to `length`); `att_pdu` keeps the value once, inside `pdu`,
    /// and gains `bearer` (Enhanced ATT channels; version 1 did not decode them, so NULL);
    /// `capture` gains `recorder` (RecorderLiveness).
    private static func toVersion2(_ db: SQLiteDatabase) throws(SQLiteError) {
        let captureColumns = try db.rows("PRAGMA table_info(capture)").compactMap { $0[1].string }
        if !captureColumns.contains("recorder") {
            try db.execute("ALTER TABLE capture ADD COLUMN recorder TEXT")
        }
        try db.execute("""
            DROP INDEX IF EXISTS packet_capture_frame;
            DROP INDEX IF EXISTS packet_connection;
            DROP INDEX IF EXISTS att_pdu_connection;
            ALTER TABLE packet RENAME TO packet_v1;
            ALTER TABLE att_pdu RENAME TO att_pdu_v1;
            \(TimelineSchema.tables)
            INSERT INTO packet (rowid, ts_us, direction, kind, length, layer, summary, connection_id, file_offset,
                                controller_index, raw_type, malformed, raw)
                SELECT capture_id << 32 | frame, ts_us, direction, kind, length, layer, summary, connection_id, file_offset,
                       controller_index, raw_type, malformed, raw
                FROM packet_v1;   -- version 1 wrote rows in (capture, frame) order: no sort needed
            INSERT INTO att_pdu (capture_id, packet_id, ts_us, connection_id, direction, opcode, opcode_name, handle,
                                 error_code, request_opcode, malformed, pdu, value_offset, value_length)
                SELECT capture_id, packet_id, ts_us, connection_id, direction, opcode, opcode_name, handle,
                       error_code, request_opcode, malformed, pdu,
                       CASE WHEN value IS NULL THEN NULL
                            WHEN opcode = 210 AND malformed = 0 THEN 3      -- Signed Write: value, then signature
                            ELSE length(pdu) - length(value) END,
                       length(value)
                FROM att_pdu_v1 ORDER BY rowid;
            DROP TABLE packet_v1;
            DROP TABLE att_pdu_v1;
            """)
    }

    /// Version 2 -> 3: the GATT tables say whose database a row belongs to (`server`: 'remote'
    /// the peer's, 'local' this device's own; GATTServerSide), since a link can carry one each way.
    /// Older rows were all filed as the peer's: they become 'remote', and `gatt_value` is keyed by
    /// (connection, server, handle). Analyzer.version moved on too, so the next analysis rebuilds
    /// them with both sides told apart. Each change is skipped when the table already has it.
    private static func gattServerColumn(_ db: SQLiteDatabase) throws(SQLiteError) {
        for table in ["gatt_service", "gatt_characteristic", "gatt_descriptor", "gatt_include"] {
            let columns = try db.rows("PRAGMA table_info(\(table))").compactMap { $0[1].string }
            if !columns.isEmpty, !columns.contains("server") {
                try db.execute("ALTER TABLE \(table) ADD COLUMN server TEXT NOT NULL DEFAULT 'remote'")
            }
        }
        let valueColumns = try db.rows("PRAGMA table_info(gatt_value)").compactMap { $0[1].string }
        if !valueColumns.isEmpty, !valueColumns.contains("server") {
            try db.execute("""
                ALTER TABLE gatt_value RENAME TO gatt_value_v2;
                CREATE TABLE gatt_value (
                    connection_id INTEGER NOT NULL, handle INTEGER NOT NULL, value BLOB NOT NULL, source TEXT NOT NULL,
                    packet_id INTEGER NOT NULL, server TEXT NOT NULL DEFAULT 'remote', PRIMARY KEY (connection_id, server, handle));
                INSERT INTO gatt_value (connection_id, handle, value, source, packet_id, server)
                    SELECT connection_id, handle, value, source, packet_id, 'remote' FROM gatt_value_v2;
                DROP TABLE gatt_value_v2;
                """)
        }
    }

    /// Version 3 -> 4: `att_pdu` gains `cut` (a PDU the capture writer cut, as Android's filtered
    /// snoop log does; version 3 stored no such PDU, so 0), and the `connections` view shows every
    /// link, BR/EDR ones too (`transport` tells them apart; GATT over BR/EDR is decoded from
    /// version 4 on: re-import a capture to get it). Views are rebuilt by `migrate`.
    private static func cutATTColumn(_ db: SQLiteDatabase) throws(SQLiteError) {
        let columns = try db.rows("PRAGMA table_info(att_pdu)").compactMap { $0[1].string }
        if !columns.isEmpty, !columns.contains("cut") {
            try db.execute("ALTER TABLE att_pdu ADD COLUMN cut INTEGER NOT NULL DEFAULT 0")
        }
    }

    /// Version 4 -> 5, first step (bugreport zips): `capture` gains the phone's identity from its Android
    /// bugreport (`phone_manufacturer`, `phone_model`, `android_version`, `build_fingerprint`;
    /// PhoneIdentityColumns), NULL for captures imported before: version 4 read no zip. The
    /// `captures` view shows them (rebuilt by `migrate`). Each column is skipped when present.
    private static func phoneIdentityColumns(_ db: SQLiteDatabase) throws(SQLiteError) {
        let columns = try db.rows("PRAGMA table_info(capture)").compactMap { $0[1].string }
        for column in PhoneIdentityColumns.names where !columns.isEmpty && !columns.contains(column) {
            try db.execute("ALTER TABLE capture ADD COLUMN \(column) TEXT")
        }
    }

    /// Version 4 -> 5, second step: `error` and `finding` gain `android_status` and `android_name`, what an
    /// Android app's `BluetoothGattCallback` received (AndroidStatusRule). Older rows get NULL;
    /// Analyzer.version moved on too, so the next analysis fills them. Views are rebuilt by `migrate`.
    private static func androidStatusColumns(_ db: SQLiteDatabase) throws(SQLiteError) {
        for table in ["error", "finding"] {
            let columns = try db.rows("PRAGMA table_info(\(table))").compactMap { $0[1].string }
            guard !columns.isEmpty else { continue }
            if !columns.contains("android_status") {
                try db.execute("ALTER TABLE \(table) ADD COLUMN android_status INTEGER")
            }
            if !columns.contains("android_name") {
                try db.execute("ALTER TABLE \(table) ADD COLUMN android_name TEXT")
            }
        }
    }

    /// Version 6 -> 7: handles are per controller (`ControllerHandle`; a btmon capture records
    /// several), and two things keyed by handle alone learn the controller:
    ///
    /// - `connection` gains `controller_index`, filled from the connection's first packet row
    ///   (the record that opened it: its Connection Complete, or the traffic it was found from,
    ///   both from the controller that numbered the handle). The `connections` view shows it.
    /// - `capture_packet_scan.completions` entries carry the controller index (14 bytes, not 12):
    ///   a replay matched every Number Of Completed Packets to each link by handle alone, so a link
    ///   got the buffer returns of every controller's link on its handle. A capture whose Number
    ///   Of Completed Packets events all come from one controller (every H4, PacketLogger, pcap
    ///   and one-adapter btmon capture, whose notes carry index 0xFFFF) has a right blob,
    ///   rewritten as is under that controller, so its replay reads the same returns as before,
    ///   without a scan. A capture whose events come from several has a wrong one: its row is
    ///   deleted, not recomputed (that needs the scan the import runs, over every packet row,
    ///   inside the migration of a possibly large file; the replay runs that scan itself, per
    ///   controller, when a capture has no row). Re-importing stores it again.
    /// - A capture whose Number Of Completed Packets come from several controllers loses its
    ///   `analysis_state` row too, with or without a stored scan: its supervision-timeout
    ///   findings counted another controller's acknowledgements (`AcknowledgedPackets`), so it is
    ///   analysed again the next time a command asks for findings. Others keep their analysis.
    ///
    /// Each part is skipped when done (the column present; a blob already of whole 14-byte
    /// entries cannot be told from a version 6 one, so the blobs are rewritten only from 6).
    /// Version 7 -> 8: `gatt_value.read_by_type`, the attribute type a value was read by (Read
    /// By Type). NULL in older rows; Analyzer.version moved on too, so the next analysis fills it.
    private static func readByTypeColumn(_ db: SQLiteDatabase) throws(SQLiteError) {
        let columns = try db.rows("PRAGMA table_info(gatt_value)").compactMap { $0[1].string }
        if !columns.isEmpty, !columns.contains("read_by_type") {
            try db.execute("ALTER TABLE gatt_value ADD COLUMN read_by_type TEXT")
        }
    }

    private static func controllerIndexes(_ db: SQLiteDatabase) throws(SQLiteError) {
        let columns = try db.rows("PRAGMA table_info(connection)").compactMap { $0[1].string }
        if !columns.isEmpty, !columns.contains("controller_index") {
            let first = "(SELECT p.controller_index FROM packet p WHERE p.rowid = "
                + "\(PacketKey.sql(capture: "connection.capture_id", frame: "connection.first_packet_id")))"
            try db.execute("""
                ALTER TABLE connection ADD COLUMN controller_index INTEGER NOT NULL DEFAULT 0;
                UPDATE connection SET controller_index = \(first) WHERE \(first) > 0;
                """)
        }
        let scans = try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'capture_packet_scan'") ?? 0
        let analysed = try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'analysis_state'") ?? 0
        for row in try db.rows("SELECT id FROM capture ORDER BY id") {
            guard let capture = row[0].int64 else { continue }
            let span = try db.rows("""
                SELECT min(controller_index), max(controller_index) FROM packet
                WHERE \(PacketKey.inCapture("?1")) AND kind = 'evt' AND \(CompletedPacketsEvent.storedRow)
                """, [.integer(capture)])
            let lowest = span.first?[0].int ?? 0, highest = span.first?[1].int ?? 0
            guard lowest == highest, let controller = UInt16(exactly: lowest) else {
                if scans > 0 { try db.run("DELETE FROM capture_packet_scan WHERE capture_id = ?1", [.integer(capture)]) }
                if analysed > 0 { try db.run("DELETE FROM analysis_state WHERE capture_id = ?1", [.integer(capture)]) }
                continue
            }
            guard scans > 0,
                  let old = try db.rows("SELECT completions FROM capture_packet_scan WHERE capture_id = ?1", [.integer(capture)]).first?[0].blob,
                  !old.isEmpty else { continue }
            let blob = StoredPacketScan.completionsBlob(StoredPacketScan.version6Completions(old, controller: controller))
            try db.run("UPDATE capture_packet_scan SET completions = ?1 WHERE capture_id = ?2", [.blob(blob), .integer(capture)])
        }
    }

    /// Timelines written before `TimelineSchema.applicationID` existed carry 0 there: mark them
    /// as ours. Needs no schema version: the id lives in the file header. Best effort (a
    /// read-only file stays unmarked and is recognised by its tables, as before).
    static func stampApplicationID(_ db: SQLiteDatabase) {
        try? db.execute("PRAGMA application_id = \(TimelineSchema.applicationID)")
    }
}
