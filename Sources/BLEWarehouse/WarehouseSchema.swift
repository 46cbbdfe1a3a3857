/// The warehouse's tables (README "Warehouse schema", table by table), in the PostgreSQL schema
/// `blereplay`, with a version in `blereplay.schema_info`.
///
/// Every fact table (all but `capture` and `input`) is keyed by `(capture_id, …)`: a capture's rows stay together,
/// which is what distributing by capture id on Citus needs (Docs/warehouse.md).
public enum WarehouseSchema {
    /// Bumped with every change; `migrations[i]` takes a warehouse from version i + 1 to i + 2.
    public static let version = 4

    /// Serialises schema changes of concurrent workers (`pg_advisory_xact_lock`).
    static let lockKey = "7426587301"

    /// Version 1 with `capture`'s phone columns; `prepare` runs the migrations after it (each step
    /// is idempotent), so a new warehouse is created at `version`.
    static let create = """
        CREATE TABLE blereplay.capture (
            id bigserial PRIMARY KEY,
            sha256 text NOT NULL UNIQUE,
            label text NOT NULL,
            input text NOT NULL,
            input_kind text NOT NULL,
            input_status text NOT NULL,
            input_reason text,
            input_warnings jsonb NOT NULL DEFAULT '[]',
            input_format text,
            capture_name text NOT NULL,
            capture_path text NOT NULL,
            format_description text NOT NULL,
            records integer NOT NULL,
            first_ts_us bigint,
            last_ts_us bigint,
            status text NOT NULL,
            malformed_packets integer NOT NULL,
            bredr_links integer NOT NULL,
            ingested_at timestamptz NOT NULL DEFAULT now(),
            phone_manufacturer text,
            phone_model text,
            android_version text,
            build_fingerprint text
        );
        CREATE INDEX capture_first_ts ON blereplay.capture (first_ts_us);
        CREATE TABLE blereplay.connection (
            capture_id bigint NOT NULL REFERENCES blereplay.capture (id) ON DELETE CASCADE,
            id bigint NOT NULL,
            handle integer NOT NULL,
            peer_address text,
            status integer NOT NULL,
            completed_ts_us bigint,
            start_ts_us bigint,
            end_ts_us bigint,
            began_before_capture boolean NOT NULL,
            open_at_end boolean NOT NULL,
            established boolean NOT NULL,
            duration_us bigint NOT NULL,
            disconnect_reason integer,
            disconnect_cb_error text,
            name text,
            manufacturer text,
            model text,
            firmware_revision text,
            local_role text,
            PRIMARY KEY (capture_id, id)
        );
        CREATE TABLE blereplay.device (
            capture_id bigint NOT NULL REFERENCES blereplay.capture (id) ON DELETE CASCADE,
            address text NOT NULL,
            name text,
            manufacturer text,
            model text,
            firmware_revision text,
            PRIMARY KEY (capture_id, address)
        );
        CREATE TABLE blereplay.error (
            capture_id bigint NOT NULL REFERENCES blereplay.capture (id) ON DELETE CASCADE,
            ordinal integer NOT NULL,
            kind text NOT NULL,
            ts_us bigint NOT NULL,
            packet_id integer NOT NULL,
            connection_id bigint,
            code integer NOT NULL,
            name text NOT NULL,
            cb_error text,
            opcode integer,
            opcode_name text,
            handle integer,
            characteristic text,
            descriptor text,
            detail text,
            PRIMARY KEY (capture_id, ordinal)
        );
        CREATE TABLE blereplay.att_transaction (
            capture_id bigint NOT NULL REFERENCES blereplay.capture (id) ON DELETE CASCADE,
            ordinal integer NOT NULL,
            connection_id bigint NOT NULL,
            request_packet_id integer NOT NULL,
            response_packet_id integer,
            request_ts_us bigint NOT NULL,
            opcode integer NOT NULL,
            opcode_name text,
            requester text NOT NULL,
            handle integer,
            latency_us bigint,
            outcome text NOT NULL,
            error_code integer,
            PRIMARY KEY (capture_id, ordinal)
        );
        CREATE TABLE blereplay.finding (
            capture_id bigint NOT NULL REFERENCES blereplay.capture (id) ON DELETE CASCADE,
            ordinal integer NOT NULL,
            connection_id bigint,
            severity text NOT NULL,
            code text NOT NULL,
            title text NOT NULL,
            detail text NOT NULL,
            evidence_packet_ids text NOT NULL,
            cb_error text,
            PRIMARY KEY (capture_id, ordinal)
        );
        CREATE VIEW blereplay.disconnect_reasons AS
            SELECT capture_id, connection_id, ts_us, packet_id, code AS reason, name, cb_error FROM blereplay.error WHERE kind = 'disconnect';
        CREATE VIEW blereplay.smp_failures AS
            SELECT capture_id, connection_id, ts_us, packet_id, code AS reason, name, cb_error, detail AS sent_by FROM blereplay.error WHERE kind = 'smp';
        """

    /// Steps from each older version: `migrations[0]` takes version 1 to 2.
    static let migrations: [String] = [toVersion2, toVersion3, toVersion4]

    /// Version 1 -> 2. Bugreport zips: a capture keeps the identity of the phone that wrote it
    /// (`CaptureFacts.phone`), NULL for captures ingested before, which came from no zip. And
    /// `error` and `finding` gain `android_status` and `android_name`, what an Android app's
    /// BluetoothGattCallback received (the timeline's columns of the same names); rows ingested
    /// before stay NULL until their capture is ingested again.
    static let toVersion2 = """
        ALTER TABLE blereplay.capture ADD COLUMN IF NOT EXISTS phone_manufacturer text,
            ADD COLUMN IF NOT EXISTS phone_model text, ADD COLUMN IF NOT EXISTS android_version text,
            ADD COLUMN IF NOT EXISTS build_fingerprint text;
        ALTER TABLE blereplay.error ADD COLUMN IF NOT EXISTS android_status integer;
        ALTER TABLE blereplay.error ADD COLUMN IF NOT EXISTS android_name text;
        ALTER TABLE blereplay.finding ADD COLUMN IF NOT EXISTS android_status integer;
        ALTER TABLE blereplay.finding ADD COLUMN IF NOT EXISTS android_name text;
        CREATE OR REPLACE VIEW blereplay.disconnect_reasons AS
            SELECT capture_id, connection_id, ts_us, packet_id, code AS reason, name, cb_error, android_status, android_name
            FROM blereplay.error WHERE kind = 'disconnect';
        """

    /// Version 2 -> 3. A log that grew (Android's `btsnoop_hci.log`, `btmon -w`) and is ingested
    /// again replaces the shorter copy stored before (`GrownCaptures`): each capture keeps its size
    /// and the SHA-256 of its first `CaptureBytes.headLength` bytes, by which the copies of one
    /// log are found, and of its first 64·2^i bytes (`CaptureBytes.checkpoints`), by which an
    /// older copy ingested after a longer one is told apart from a capture that only begins alike.
    /// NULL for captures stored before, and for timelines whose capture file is gone.
    static let toVersion3 = """
        ALTER TABLE blereplay.capture ADD COLUMN IF NOT EXISTS size_bytes bigint,
            ADD COLUMN IF NOT EXISTS head_sha256 text, ADD COLUMN IF NOT EXISTS prefix_sha256 text[];
        CREATE INDEX IF NOT EXISTS capture_head_sha256 ON blereplay.capture (head_sha256);
        """

    /// Version 3 -> 4. Every input `ingest` was given, whatever became of it (`WarehouseInputs`):
    /// the report's Inputs table lists those that stored nothing too, as `report` over the files
    /// does: unreadable ones with the reason, and duplicates (the same capture, or a shorter copy
    /// of a log, counted from another input). Per capture read from it, in order: its label, its
    /// SHA-256, and the SHA-256 of the stored capture it is counted in (`counted_in`: its own, or
    /// the longer copy's; kept pointing at the longer copy when a shorter one is replaced), and the
    /// phone it came with (`phones`: null, or [build fingerprint, manufacturer, model, Android
    /// version], for the notes of identities merged, as `report` makes them). Empty
    /// for warehouses filled before: their Inputs table lists what the capture rows say, as before.
    static let toVersion4 = """
        CREATE TABLE IF NOT EXISTS blereplay.input (
            path text PRIMARY KEY,
            kind text,
            status text NOT NULL,
            reason text,
            warnings jsonb NOT NULL DEFAULT '[]',
            format text,
            labels text[] NOT NULL DEFAULT '{}',
            sha256s text[] NOT NULL DEFAULT '{}',
            counted_in text[] NOT NULL DEFAULT '{}',
            phones jsonb NOT NULL DEFAULT '[]',
            ingested_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX IF NOT EXISTS input_counted_in ON blereplay.input USING gin (counted_in);
        """

    /// Creates the schema, or migrates an older one, in one transaction under an advisory lock
    /// (two workers starting at once do it once). Refuses a warehouse of a newer version.
    public static func prepare(_ db: PostgresConnection) throws(WarehouseError) {
        try db.execute("BEGIN")
        do throws(WarehouseError) {
            try db.execute("SELECT pg_advisory_xact_lock(\(lockKey))")
            try db.execute("CREATE SCHEMA IF NOT EXISTS blereplay")
            try db.execute("CREATE TABLE IF NOT EXISTS blereplay.schema_info (version integer NOT NULL)")
            let found = try db.execute("SELECT max(version) FROM blereplay.schema_info").first?.int(0)
            switch found {
            case nil:
                try db.executeScript(create)
                for step in migrations { try db.executeScript(step) }
                try db.execute("INSERT INTO blereplay.schema_info (version) VALUES ($1)", [String(version)])
            case let v? where v > version:
                throw WarehouseError(.newerSchema, "the warehouse has schema version \(v), written by a newer blereplay; this one knows versions up to \(version) and changes nothing")
            case let v? where v < version:
                guard v >= 1, migrations.count == version - 1 else {
                    throw WarehouseError(.newerSchema, "the warehouse has schema version \(v), which no blereplay wrote")
                }
                for step in migrations[(v - 1)..<(version - 1)] { try db.executeScript(step) }
                try db.execute("UPDATE blereplay.schema_info SET version = $1", [String(version)])
            default:
                break
            }
            try db.execute("COMMIT")
        } catch {
            _ = try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// The version found, without changing anything (nil: no warehouse schema yet).
    public static func installedVersion(_ db: PostgresConnection) throws(WarehouseError) -> Int? {
        let exists = try db.execute("SELECT to_regclass('blereplay.schema_info') IS NOT NULL").first?.first ?? nil
        guard exists == "t" else { return nil }
        return try db.execute("SELECT max(version) FROM blereplay.schema_info").first?.int(0)
    }
}
