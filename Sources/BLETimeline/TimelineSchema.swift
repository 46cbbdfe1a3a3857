/// The timeline's SQL schema: base tables (ours to shape) and the documented views
/// (the user's query contract in DESIGN.md; keep them stable).
public enum TimelineSchema {
    /// `PRAGMA user_version` of files this build writes. Older files are migrated or refused.
    public static let version: Int64 = 8

    /// `PRAGMA application_id` of a blereplay timeline ("BLRT"): tells our files from other
    /// SQLite files before their `user_version` is judged (sqlite.org/fileformat.html 1.3.12).
    /// Set on new timelines; an older timeline without it gets it when opened for writing.
    public static let applicationID: Int32 = 0x424C_5254

    /// Tables. Indexes that only queries need are created after a bulk import (`indexes`).
    static let tables = """
    CREATE TABLE IF NOT EXISTS capture (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL,
        file_name TEXT NOT NULL,
        sha256 TEXT NOT NULL UNIQUE,
        size_bytes INTEGER NOT NULL,
        format TEXT NOT NULL,
        link_type INTEGER NOT NULL,
        format_description TEXT NOT NULL,
        records INTEGER NOT NULL DEFAULT 0,
        first_ts_us INTEGER,
        last_ts_us INTEGER,
        status TEXT NOT NULL DEFAULT 'complete',
        warnings TEXT NOT NULL DEFAULT '[]',
        malformed_packets INTEGER NOT NULL DEFAULT 0,
        dropped_packets INTEGER NOT NULL DEFAULT 0,
        raw_kept INTEGER NOT NULL DEFAULT 1,
        -- While status is 'recording': which process records it (RecorderLiveness).
        recorder TEXT,
        phone_manufacturer TEXT,
        phone_model TEXT,
        android_version TEXT,
        build_fingerprint TEXT
    );
    CREATE TABLE IF NOT EXISTS packet (
        rowid INTEGER PRIMARY KEY,
        ts_us INTEGER NOT NULL,
        direction TEXT NOT NULL,
        kind TEXT NOT NULL,
        length INTEGER NOT NULL,
        layer TEXT NOT NULL,
        summary TEXT NOT NULL,
        connection_id INTEGER,
        file_offset INTEGER NOT NULL,
        controller_index INTEGER NOT NULL DEFAULT 0,
        raw_type INTEGER NOT NULL DEFAULT 0,
        malformed INTEGER NOT NULL DEFAULT 0,
        raw BLOB,
        capture_id INTEGER GENERATED ALWAYS AS (rowid >> 32) VIRTUAL,
        frame INTEGER GENERATED ALWAYS AS (rowid & 4294967295) VIRTUAL
    );
    CREATE TABLE IF NOT EXISTS connection (
        id INTEGER PRIMARY KEY,
        capture_id INTEGER NOT NULL,
        ordinal INTEGER NOT NULL,
        handle INTEGER NOT NULL,
        transport TEXT NOT NULL DEFAULT 'le',
        peer_address TEXT,
        peer_address_type TEXT,
        role TEXT,
        status INTEGER,
        interval_us INTEGER,
        latency INTEGER,
        supervision_timeout_ms INTEGER,
        client_rx_mtu INTEGER,
        server_rx_mtu INTEGER,
        mtu INTEGER NOT NULL DEFAULT 23,
        connected_ts_us INTEGER,
        disconnected_ts_us INTEGER,
        disconnect_reason INTEGER,
        began_before_capture INTEGER NOT NULL DEFAULT 0,
        complete_packet_id INTEGER,
        disconnect_packet_id INTEGER,
        first_packet_id INTEGER,
        last_packet_id INTEGER,
        encrypted INTEGER NOT NULL DEFAULT 0,
        local_disconnect_requested INTEGER NOT NULL DEFAULT 0,
        -- The controller that numbered `handle` (packet.controller_index; btmon captures hold several).
        controller_index INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE IF NOT EXISTS connection_update (
        connection_id INTEGER NOT NULL,
        packet_id INTEGER NOT NULL,
        ts_us INTEGER NOT NULL,
        source TEXT NOT NULL,
        status INTEGER,
        interval_us INTEGER,
        interval_max_us INTEGER,
        latency INTEGER,
        supervision_timeout_ms INTEGER
    );
    CREATE TABLE IF NOT EXISTS adv_report (
        capture_id INTEGER NOT NULL,
        packet_id INTEGER NOT NULL,
        ts_us INTEGER NOT NULL,
        address TEXT NOT NULL,
        address_type TEXT NOT NULL,
        event_type INTEGER NOT NULL,
        extended INTEGER NOT NULL,
        scan_response INTEGER NOT NULL,
        rssi INTEGER,
        name TEXT,
        tx_power INTEGER,
        data BLOB NOT NULL
    );
    CREATE TABLE IF NOT EXISTS att_pdu (
        capture_id INTEGER NOT NULL,
        packet_id INTEGER NOT NULL,
        ts_us INTEGER NOT NULL,
        connection_id INTEGER NOT NULL,
        direction TEXT NOT NULL,
        opcode INTEGER NOT NULL,
        opcode_name TEXT NOT NULL,
        handle INTEGER,
        error_code INTEGER,
        request_opcode INTEGER,
        malformed INTEGER NOT NULL DEFAULT 0,
        pdu BLOB NOT NULL,
        -- The attribute value is stored once, inside `pdu`: the view cuts it out (NULL: none).
        value_offset INTEGER,
        value_length INTEGER,
        -- Enhanced ATT, or ATT over BR/EDR: the L2CAP channel the PDU travelled on (NULL: the LE fixed channel 0x0004).
        bearer INTEGER,
        -- 1: the capture writer cut the PDU (Android's filtered snoop log); its fields are unknown.
        cut INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE IF NOT EXISTS smp_event (
        capture_id INTEGER NOT NULL,
        packet_id INTEGER NOT NULL,
        ts_us INTEGER NOT NULL,
        connection_id INTEGER NOT NULL,
        direction TEXT NOT NULL,
        code INTEGER NOT NULL,
        name TEXT NOT NULL,
        detail TEXT
    );
    CREATE TABLE IF NOT EXISTS error (
        capture_id INTEGER NOT NULL,
        packet_id INTEGER NOT NULL,
        ts_us INTEGER NOT NULL,
        connection_id INTEGER,
        layer TEXT NOT NULL,
        context TEXT NOT NULL,
        code INTEGER NOT NULL,
        name TEXT NOT NULL,
        cb_error TEXT,
        opcode INTEGER,
        handle INTEGER,
        -- What an Android app's BluetoothGattCallback received (AndroidStatusRule; filled by the analysis).
        android_status INTEGER,
        android_name TEXT
    );
    CREATE TABLE IF NOT EXISTS link_event (
        capture_id INTEGER NOT NULL,
        packet_id INTEGER NOT NULL,
        ts_us INTEGER NOT NULL,
        connection_id INTEGER,
        name TEXT NOT NULL,
        status INTEGER,
        detail TEXT
    );
    CREATE TABLE IF NOT EXISTS command (
        capture_id INTEGER NOT NULL,
        packet_id INTEGER NOT NULL,
        ts_us INTEGER NOT NULL,
        connection_id INTEGER,
        opcode INTEGER NOT NULL,
        name TEXT NOT NULL,
        result_packet_id INTEGER,
        status INTEGER
    );
    CREATE TABLE IF NOT EXISTS decode_problem (
        capture_id INTEGER NOT NULL,
        packet_id INTEGER,
        layer TEXT NOT NULL,
        kind TEXT NOT NULL,
        file_offset INTEGER NOT NULL,
        reason TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS att_transaction (
        connection_id INTEGER NOT NULL,
        request_packet_id INTEGER NOT NULL,
        response_packet_id INTEGER,
        opcode INTEGER NOT NULL,
        handle INTEGER,
        latency_us INTEGER,
        outcome TEXT NOT NULL,
        error_code INTEGER,
        request_ts_us INTEGER NOT NULL,
        direction TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS gatt_service (
        connection_id INTEGER NOT NULL,
        uuid TEXT NOT NULL,
        start_handle INTEGER NOT NULL,
        end_handle INTEGER NOT NULL,
        is_primary INTEGER NOT NULL DEFAULT 1,
        -- Whose database (GATTServerSide): 'remote' the peer's, 'local' this device's own.
        server TEXT NOT NULL DEFAULT 'remote'
    );
    CREATE TABLE IF NOT EXISTS gatt_characteristic (
        connection_id INTEGER NOT NULL,
        service_uuid TEXT,
        uuid TEXT NOT NULL,
        declaration_handle INTEGER NOT NULL,
        value_handle INTEGER NOT NULL,
        properties INTEGER NOT NULL,
        server TEXT NOT NULL DEFAULT 'remote'
    );
    CREATE TABLE IF NOT EXISTS gatt_descriptor (
        connection_id INTEGER NOT NULL,
        characteristic_uuid TEXT,
        uuid TEXT NOT NULL,
        handle INTEGER NOT NULL,
        server TEXT NOT NULL DEFAULT 'remote'
    );
    CREATE TABLE IF NOT EXISTS finding (
        connection_id INTEGER,
        capture_id INTEGER NOT NULL,
        severity TEXT NOT NULL,
        code TEXT NOT NULL,
        title TEXT NOT NULL,
        detail TEXT NOT NULL,
        evidence_packet_ids TEXT NOT NULL,
        cb_error TEXT,
        android_status INTEGER,
        android_name TEXT
    );
    CREATE TABLE IF NOT EXISTS gatt_value (
        connection_id INTEGER NOT NULL,
        handle INTEGER NOT NULL,
        value BLOB NOT NULL,
        source TEXT NOT NULL,
        packet_id INTEGER NOT NULL,
        server TEXT NOT NULL DEFAULT 'remote',
        -- The attribute type the client read the handle by (Read By Type, Core Vol 3 Part G 4.8.2), when it did.
        read_by_type TEXT,
        PRIMARY KEY (connection_id, server, handle)
    );
    CREATE TABLE IF NOT EXISTS gatt_include (
        connection_id INTEGER NOT NULL,
        service_start_handle INTEGER NOT NULL,
        declaration_handle INTEGER NOT NULL,
        included_start_handle INTEGER NOT NULL,
        included_end_handle INTEGER NOT NULL,
        uuid TEXT,
        server TEXT NOT NULL DEFAULT 'remote'
    );
    CREATE TABLE IF NOT EXISTS device (
        address TEXT PRIMARY KEY,
        address_type TEXT,
        name TEXT,
        manufacturer TEXT,
        model TEXT,
        firmware_revision TEXT,
        hardware_revision TEXT,
        software_revision TEXT,
        serial_number TEXT,
        company_id INTEGER,
        company_name TEXT,
        appearance INTEGER,
        rssi_max INTEGER,
        adv_reports INTEGER NOT NULL DEFAULT 0,
        connections INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE IF NOT EXISTS analysis_state (
        capture_id INTEGER PRIMARY KEY,
        analysis_version INTEGER NOT NULL
    );
    -- What a replay's packet scan finds in a capture's packet rows (StoredPacketScan, issue 12),
    -- written by the import; internal (no view). clock_runs: per run first frame, last frame,
    -- time (Int64 LE); completions: per entry controller index, handle, count (u16 LE), time (Int64 LE).
    CREATE TABLE IF NOT EXISTS capture_packet_scan (
        capture_id INTEGER PRIMARY KEY,
        first_record_us INTEGER,
        last_record_us INTEGER,
        first_any_us INTEGER,
        last_any_us INTEGER,
        read_buffer_size_found INTEGER NOT NULL,
        read_buffer_size BLOB,
        largest_acl INTEGER NOT NULL,
        most_in_flight INTEGER NOT NULL,
        clock_runs BLOB,
        clock_steps_back INTEGER NOT NULL,
        clock_largest_step_frame INTEGER,
        clock_largest_step_us INTEGER,
        clock_absurd INTEGER NOT NULL,
        completions BLOB
    );
    """

    /// Query indexes, built once after bulk inserts.
    ///
    /// `packet_connection` holds only the packets of a connection (issue 12): every query of it
    /// names a connection (`connection_id = ...`, which implies `IS NOT NULL`, so SQLite uses a
    /// partial index for it), and the records outside any connection (advertising, commands,
    /// notes) are NULL keys that SQLite's sorter compares by the slow generic path. Building it
    /// fell from about 4.0k to 2.75k instructions per packet on 200k-record captures.
    /// `error_packet` finds the error a finding's evidence packet carries (its Android status,
    /// `Analyzer.AndroidStatusByPacket`) without holding every error in memory.
    static let indexes = """
    CREATE INDEX IF NOT EXISTS packet_connection ON packet(connection_id) WHERE connection_id IS NOT NULL;
    CREATE INDEX IF NOT EXISTS att_pdu_connection ON att_pdu(connection_id, packet_id);
    CREATE INDEX IF NOT EXISTS adv_report_address ON adv_report(address);
    CREATE INDEX IF NOT EXISTS connection_capture ON connection(capture_id);
    CREATE INDEX IF NOT EXISTS connection_peer ON connection(peer_address);
    CREATE INDEX IF NOT EXISTS error_connection ON error(connection_id);
    CREATE INDEX IF NOT EXISTS error_packet ON error(capture_id, packet_id);
    CREATE INDEX IF NOT EXISTS smp_event_connection ON smp_event(connection_id, packet_id);
    CREATE INDEX IF NOT EXISTS link_event_connection ON link_event(connection_id, packet_id);
    CREATE INDEX IF NOT EXISTS command_capture ON command(capture_id, opcode, packet_id);
    CREATE INDEX IF NOT EXISTS connection_update_connection ON connection_update(connection_id, packet_id);
    CREATE INDEX IF NOT EXISTS att_transaction_connection ON att_transaction(connection_id, request_packet_id);
    CREATE INDEX IF NOT EXISTS gatt_characteristic_connection ON gatt_characteristic(connection_id, value_handle);
    CREATE INDEX IF NOT EXISTS gatt_service_connection ON gatt_service(connection_id);
    CREATE INDEX IF NOT EXISTS gatt_descriptor_connection ON gatt_descriptor(connection_id);
    CREATE INDEX IF NOT EXISTS decode_problem_capture ON decode_problem(capture_id, packet_id);
    """

    /// The documented views (DESIGN.md "The timeline"). Column lists are a contract.
    static let views = """
    CREATE VIEW IF NOT EXISTS captures AS
        SELECT id, path, file_name, sha256, format, format_description, records, first_ts_us, last_ts_us,
               status, warnings, malformed_packets, dropped_packets,
               phone_manufacturer, phone_model, android_version, build_fingerprint FROM capture;
    CREATE VIEW IF NOT EXISTS packets AS
        SELECT frame AS id, ts_us, direction, kind, length, summary, capture_id, connection_id, layer, raw FROM packet;
    CREATE VIEW IF NOT EXISTS adv_reports AS
        SELECT packet_id, ts_us, address, address_type, event_type, rssi, name, tx_power, data, capture_id,
               scan_response FROM adv_report;
    CREATE VIEW IF NOT EXISTS connections AS
        SELECT id, handle, peer_address, peer_address_type, role, status, interval_us, latency,
               supervision_timeout_ms,
               -- BR/EDR has no Exchange MTU (Core v5.4 Vol 3 Part G 4.3.1): its ATT_MTU is the L2CAP
               -- channel's, not shown here, so unknown rather than 23.
               CASE WHEN transport = 'le' THEN mtu END AS mtu,
               connected_ts_us, disconnected_ts_us, disconnect_reason,
               capture_id, transport, began_before_capture, controller_index FROM connection;
    CREATE VIEW IF NOT EXISTS att_pdus AS
        SELECT packet_id, ts_us, connection_id, direction, opcode, opcode_name, handle, error_code,
               substr(pdu, value_offset + 1, value_length) AS value, capture_id, bearer, cut
        FROM att_pdu;
    CREATE VIEW IF NOT EXISTS att_transactions AS
        SELECT connection_id, request_packet_id, response_packet_id, opcode, handle, latency_us, outcome, error_code
        FROM att_transaction;
    CREATE VIEW IF NOT EXISTS gatt_services AS
        SELECT connection_id, uuid, start_handle, end_handle, server FROM gatt_service;
    CREATE VIEW IF NOT EXISTS gatt_characteristics AS
        SELECT connection_id, service_uuid, uuid, declaration_handle, value_handle, properties, server FROM gatt_characteristic;
    CREATE VIEW IF NOT EXISTS gatt_descriptors AS
        SELECT connection_id, characteristic_uuid, uuid, handle, server FROM gatt_descriptor;
    CREATE VIEW IF NOT EXISTS errors AS
        SELECT packet_id, ts_us, connection_id, layer, code, name, cb_error, capture_id, context, android_status, android_name
        FROM error;
    CREATE VIEW IF NOT EXISTS smp_events AS
        SELECT packet_id, ts_us, connection_id, direction, code, name, detail FROM smp_event;
    CREATE VIEW IF NOT EXISTS devices AS
        SELECT address, address_type, name, manufacturer, model, firmware_revision, hardware_revision,
               software_revision, serial_number, company_id, company_name, appearance, rssi_max, adv_reports,
               connections FROM device;
    CREATE VIEW IF NOT EXISTS findings AS
        SELECT connection_id, severity, code, title, detail, evidence_packet_ids, cb_error, capture_id, android_status, android_name
        FROM finding;
    """
}
