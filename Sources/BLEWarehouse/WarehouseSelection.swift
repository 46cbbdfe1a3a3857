/// The captures a report covers, and the per-connection and per-error keys every figure groups
/// by, as temporary tables of the report's transaction (dropped at its end):
///
/// - `sel(id, label, rank, p_manufacturer, p_model, p_build)`: the captures whose first timestamp
///   is in the window, labelled apart (a label several captures share gets ` #k`), ranked by
///   label (byte order, as `FleetStatistics.build` sorts them), with
///   the keys of their phone (`FleetStatistics.groupKey(.phone, …)`);
/// - `ck`: their connections, with the identity each is counted under, resolved as
///   `FleetStatistics.resolveIdentities` does: what was read on the connection, then what its
///   capture knows of the address, then what the whole selection agrees on (the first name in
///   byte order; a manufacturer, model or firmware revision seen with two values stays unknown);
/// - `ek`: their errors, with their connection's keys.
enum WarehouseSelection {
    static func create(_ db: PostgresConnection, since: Int64?, until: Int64?) throws(WarehouseError) {
        try db.execute("""
            CREATE TEMP TABLE sel (id bigint PRIMARY KEY, label text NOT NULL, rank integer NOT NULL,
                                   p_manufacturer text NOT NULL, p_model text NOT NULL, p_build text NOT NULL) ON COMMIT DROP
            """)
        // Captures ingested under one label (a log at the same path, rotated between two ingests)
        // are told apart by ` #k`, k in order of first timestamp, then digest.
        try db.execute("""
            INSERT INTO sel SELECT id, label, row_number() OVER (ORDER BY label COLLATE "C", id), m, p, b FROM (
                SELECT id, label || CASE WHEN count(*) OVER (PARTITION BY label) > 1
                                         THEN ' #' || row_number() OVER (PARTITION BY label ORDER BY first_ts_us, sha256) ELSE '' END AS label,
                       coalesce(phone_manufacturer, '?') AS m, coalesce(phone_model, '?') AS p,
                       coalesce(build_fingerprint, 'Android ' || android_version, '?') AS b FROM blereplay.capture
                WHERE ($1::bigint IS NULL OR first_ts_us >= $1::bigint) AND ($2::bigint IS NULL OR first_ts_us <= $2::bigint)) x
            """, [since.map(String.init), until.map(String.init)])
        try db.execute("""
            CREATE TEMP TABLE ck ON COMMIT DROP AS
            WITH c AS (
                SELECT c.*, s.rank, s.label, s.p_manufacturer, s.p_model, s.p_build,
                       CASE WHEN c.peer_address IS NOT NULL AND c.peer_address <> '00:00:00:00:00:00' THEN c.peer_address END AS peer,
                       coalesce(c.name, d.name) AS l_name, coalesce(c.manufacturer, d.manufacturer) AS l_manufacturer,
                       coalesce(c.model, d.model) AS l_model, coalesce(c.firmware_revision, d.firmware_revision) AS l_firmware
                FROM blereplay.connection c JOIN sel s ON s.id = c.capture_id
                LEFT JOIN blereplay.device d ON d.capture_id = c.capture_id AND d.address = c.peer_address
            ), f AS (
                SELECT peer, min(l_name COLLATE "C") AS name,
                       CASE WHEN count(DISTINCT l_manufacturer) = 1 THEN min(l_manufacturer) END AS manufacturer,
                       CASE WHEN count(DISTINCT l_model) = 1 THEN min(l_model) END AS model,
                       CASE WHEN count(DISTINCT l_firmware) = 1 THEN min(l_firmware) END AS firmware
                FROM c WHERE peer IS NOT NULL GROUP BY peer
            )
            SELECT c.capture_id, c.id, c.rank, c.label, c.handle, c.peer_address, c.peer, c.status, c.completed_ts_us,
                   c.start_ts_us, c.end_ts_us, c.began_before_capture, c.open_at_end, c.established, c.duration_us,
                   c.disconnect_reason, c.disconnect_cb_error, c.name AS own_name, c.manufacturer AS own_manufacturer,
                   c.model AS own_model, c.firmware_revision AS own_firmware, c.local_role,
                   c.p_manufacturer, c.p_model, c.p_build,
                   CASE WHEN c.peer IS NOT NULL THEN coalesce(c.l_name, f.name) END AS r_name,
                   CASE WHEN c.peer IS NOT NULL THEN coalesce(c.l_manufacturer, f.manufacturer) END AS r_manufacturer,
                   CASE WHEN c.peer IS NOT NULL THEN coalesce(c.l_model, f.model) END AS r_model,
                   CASE WHEN c.peer IS NOT NULL THEN coalesce(c.l_firmware, f.firmware) END AS r_firmware
            FROM c LEFT JOIN f ON f.peer = c.peer
            """)
        try db.execute("CREATE INDEX ON ck (capture_id, id)")
        try db.execute("ANALYZE ck")
        try db.execute("""
            CREATE TEMP TABLE ek ON COMMIT DROP AS
            SELECT e.*, s.rank, s.label, s.p_manufacturer, s.p_model, s.p_build, k.id IS NOT NULL AS has_conn, k.peer, k.r_name, k.r_manufacturer, k.r_model, k.r_firmware
            FROM blereplay.error e JOIN sel s ON s.id = e.capture_id
            LEFT JOIN ck k ON k.capture_id = e.capture_id AND k.id = e.connection_id
            """)
        try db.execute("ANALYZE ek")
    }
}
