import BLECore
import BLEDecode
import BLETimeline

/// Runs the analysis over a timeline and stores it: ATT transactions, GATT databases,
/// device identities and findings. Idempotent per capture (`analysis_state`).
public enum Analyzer {
    /// Bump when the analysis changes, so older timelines are re-analysed on `diagnose`.
    public static let version: Int64 = 9

    /// Analyses every capture that lacks a current analysis; returns how many were analysed.
    /// A capture still being recorded is left alone: its recorder analyses it when it ends.
    /// - Parameter findings: false only for a scratch timeline whose findings nobody reads (the
    ///   fleet report's, `ImportOptions.referencedPacketRowsOnly`): everything else is analysed
    ///   as always, the `finding` table stays empty.
    @discardableResult
    public static func analyze(_ store: TimelineStore, force: Bool = false, findings: Bool = true) throws -> Int {
        // An import's own file: the connections' findings are made on every core (`ParallelFindings`).
        try analyze(store, force: force, findings: findings, readers: findings ? ParallelFindings.forStore(store) : nil)
    }

    static func analyze(_ store: TimelineStore, force: Bool, findings: Bool, readers: ParallelFindings?) throws -> Int {
        let db = store.database
        try endAbandonedRecordings(db)
        let pending = try db.rows("""
            SELECT c.id FROM capture c LEFT JOIN analysis_state a ON a.capture_id = c.id
            WHERE c.status <> 'recording' AND (?1 OR a.analysis_version IS NULL OR a.analysis_version <> ?2) ORDER BY c.id
            """, [.integer(force ? 1 : 0), .integer(version)]).compactMap { $0[0].int64 }
        guard !pending.isEmpty else { return 0 }
        try db.transaction {
            for captureID in pending { try analyzeCapture(captureID, db: db, findings: findings, readers: readers) }
            try DeviceIdentity.rebuild(db)
        }
        return pending.count
    }

    /// A capture whose recorder is no longer running (killed, machine restarted) will never be
    /// finished by it: it keeps what was committed, becomes `truncated` with a warning saying why,
    /// and is analysed like any other.
    static func endAbandonedRecordings(_ db: SQLiteDatabase) throws {
        let recording = try db.rows("SELECT id, recorder, path FROM capture WHERE status = 'recording'")
        for row in recording {
            guard let id = row[0].int64 else { continue }
            if let token = row[1].string, RecorderLiveness.isRunning(token) { continue }
            let warning = "\(row[2].string ?? "recording"): \(FindingsEngine.abandonedRecordingWarning) (killed?); the timeline keeps what it had committed"
            try db.run("""
                UPDATE capture SET status = 'truncated', recorder = NULL,
                       warnings = json_insert(coalesce(warnings, '[]'), '$[#]', ?2)
                WHERE id = ?1 AND status = 'recording'
                """, [.integer(id), .text(warning)])
        }
    }

    static func analyzeCapture(_ captureID: Int64, db: SQLiteDatabase, findings withFindings: Bool = true,
                               readers: ParallelFindings? = nil) throws {
        let connections = CaptureConnections(captureID: captureID, db: db)
        // The capture's links by a subquery, not a list of their ids: with tens of thousands of
        // links (issue 17) that statement's text and parse tree alone took megabytes.
        for table in ["att_transaction", "gatt_service", "gatt_characteristic", "gatt_descriptor", "gatt_value", "gatt_include"] {
            try db.run("DELETE FROM \(table) WHERE connection_id IN (SELECT id FROM connection WHERE capture_id = ?1)",
                       [.integer(captureID)])
        }
        try db.run("DELETE FROM finding WHERE capture_id = ?1", [.integer(captureID)])
        // The capture row keeps the latest timestamp; a recording still being written may be ahead of it.
        let captureEnd = try db.scalarInt("""
            SELECT max(coalesce((SELECT last_ts_us FROM capture WHERE id = ?1), 0),
                       coalesce((SELECT ts_us FROM packet WHERE \(PacketKey.inCapture("?1")) ORDER BY rowid DESC LIMIT 1), 0))
            """, [.integer(captureID)]) ?? 0

        let insertTransaction = try db.prepare("""
            INSERT INTO att_transaction (connection_id, request_packet_id, response_packet_id, opcode, handle, latency_us,
                                         outcome, error_code, request_ts_us, direction)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            """)
        let air = try AirObservation(captureID: captureID, db: db)
        // Requests sent while another was outstanding (Vol 3 Part F 3.3.2), for the findings:
        // only the links that had any, each a count and a few packets.
        var overlaps: [Int64: ATTRequestOverlaps] = [:]
        // An import's own timeline: the PDUs are read back on another thread (`StoredPDUPipeline`).
        let pipeline = try StoredPDUPipeline.start(captureID: captureID, readers: readers, db: db)
        // A pass that failed: nothing it wrote is kept (a pass that ended has finished already).
        defer { try? pipeline?.finish(keeping: false) }
        // Every link: ATT runs on BR/EDR links too (GATT over BR/EDR, Core v5.4 Vol 3 Part G 2.1).
        try connections.forEach { c in
            var matcher = TransactionMatcher()
            var gatt = GATTReconstructor()
            func store(_ list: [ATTTransaction]) throws {
                for t in list {
                let s = insertTransaction
                s.bindInt(c.id, at: 1)
                s.bindInt(t.requestPacketID, at: 2)
                s.bindInt(t.responsePacketID, at: 3)
                s.bindInt(Int(t.opcode.rawValue), at: 4)
                s.bindInt(t.handle.map { Int($0) }, at: 5)
                s.bindInt(t.latency, at: 6)
                s.bindText(t.outcome.rawValue, at: 7)
                s.bindInt(t.errorCode.map { Int($0.rawValue) }, at: 8)
                s.bindInt(t.requestTimestamp, at: 9)
                s.bindText(t.direction.rawValue, at: 10)
                try s.run()
                }
            }
            func add(_ p: StoredATTPDU) throws {
                matcher.add(p)
                gatt.add(p)
                if matcher.transactions.count >= 4096 { try store(matcher.drain()) }
            }
            if let pipeline {
                try pipeline.forEach(connection: c.id, add)
            } else {
                try StoredATTPDU.forEach(connection: c.id, in: db, add)
            }
            // A sniffer's view of a link ends with its last packet (`AirObservation`).
            matcher.finish(disconnectedAt: c.disconnectedAt, captureEnd: try air.lastSeen(c).map { min($0, captureEnd) } ?? captureEnd)
            try store(matcher.drain())
            if matcher.overlaps.count > 0 { overlaps[c.id] = matcher.overlaps }
            for side in GATTServerSide.allCases {
                try GATTStore.write(gatt.database(side), of: side, connection: c.id, db: db)
            }
        }
        // The reader lets go of the file before anything here commits.
        try pipeline?.finish()
        try applyCoreBluetoothRule(captureID, db: db)
        let androidByPacket = try applyAndroidRule(captureID, db: db)
        if withFindings {
            try storeFindings(captureID, connections: connections, captureEnd: captureEnd, android: androidByPacket,
                              attOverlaps: overlaps, readers: readers, db: db)
        } else if air.isAirCapture {
            // Without findings (the fleet report) an air capture still gets the endings diagnose
            // infers (`connection-timeout-on-air`): the report counts them as diagnose says them.
            try storeFindings(captureID, connections: connections, captureEnd: captureEnd, android: androidByPacket,
                              airEndingsOnly: true, db: db)
        }
        try db.run("INSERT OR REPLACE INTO analysis_state (capture_id, analysis_version) VALUES (?1, ?2)",
                   [.integer(captureID), .integer(version)])
    }

    /// Runs the findings engine over one capture and stores what it finds; a finding without its
    /// own Android status takes its evidence's (`android`, from `applyAndroidRule`), unless it is
    /// about the capture itself (`Finding.takesAndroidStatusFromEvidence`).
    static func storeFindings(_ captureID: Int64, connections: CaptureConnections, captureEnd: Int64,
                              android androidByPacket: AndroidStatusByPacket, attOverlaps: [Int64: ATTRequestOverlaps] = [:],
                              readers: ParallelFindings? = nil, airEndingsOnly: Bool = false, db: SQLiteDatabase) throws {
        var engine = try FindingsEngine(db: db, captureID: captureID, captureEnd: captureEnd)
        engine.attOverlaps = attOverlaps
        let insertFinding = try db.prepare("""
            INSERT INTO finding (connection_id, capture_id, severity, code, title, detail, evidence_packet_ids, cb_error,
                                 android_status, android_name)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            """)
        let emit: ([Finding]) throws -> Void = { findings in
            for f in findings {
                let s = insertFinding
                s.bindInt(f.connectionID, at: 1)
                s.bindInt(f.captureID, at: 2)
                s.bindText(f.severity.rawValue, at: 3)
                s.bindText(f.code, at: 4)
                s.bindText(f.title, at: 5)
                s.bindText(f.detail, at: 6)
                s.bindText("[" + f.evidence.map(String.init).joined(separator: ",") + "]", at: 7)
                s.bindText(f.cbError, at: 8)
                let android = try f.android ?? (f.takesAndroidStatusFromEvidence ? androidByPacket.status(for: f) : nil)
                s.bindInt(android?.status, at: 9)
                s.bindText(android?.name, at: 10)
                try s.run()
            }
        }
        if airEndingsOnly {
            try connections.forEach { c in try emit(try engine.lostFromViewFindings(c)) }
        } else if let readers {
            // The readers see what is committed: what the analysis wrote so far is, and each chunk
            // of findings is written in a transaction of its own; the caller's goes on after.
            try db.execute("COMMIT")
            try engine.findings(for: connections, readers: readers, emit)
            try db.execute("BEGIN IMMEDIATE")
        } else {
            try engine.findings(for: connections, emit)
        }
    }
}

/// Writes a reconstructed GATT database into the `gatt_*` tables, as `side`'s (column `server`).
enum GATTStore {
    static func write(_ g: GATTDatabase, of side: GATTServerSide, connection id: Int64, db: SQLiteDatabase) throws {
        let server = SQLiteValue.text(side.rawValue)
        for s in g.services {
            try db.run("""
                INSERT INTO gatt_service (connection_id, uuid, start_handle, end_handle, is_primary, server) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                """, [.integer(id), .text(s.uuid.uuidString), .integer(Int64(s.startHandle)), .integer(Int64(s.endHandle)),
                      .integer(s.isPrimary ? 1 : 0), server])
        }
        for c in g.characteristics {
            try db.run("""
                INSERT INTO gatt_characteristic (connection_id, service_uuid, uuid, declaration_handle, value_handle, properties, server)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                """, [.integer(id), g.service(containing: c.declarationHandle).map { .text($0.uuid.uuidString) } ?? .null,
                      .text(c.uuid.uuidString), .integer(Int64(c.declarationHandle)), .integer(Int64(c.valueHandle)),
                      .integer(Int64(c.properties)), server])
        }
        for d in g.descriptors {
            try db.run("INSERT INTO gatt_descriptor (connection_id, characteristic_uuid, uuid, handle, server) VALUES (?1, ?2, ?3, ?4, ?5)",
                       [.integer(id), g.characteristicUUID(owning: d.handle).map { .text($0.uuidString) } ?? .null,
                        .text(d.uuid.uuidString), .integer(Int64(d.handle)), server])
        }
        for i in g.includes {
            try db.run("""
                INSERT INTO gatt_include (connection_id, service_start_handle, declaration_handle, included_start_handle, included_end_handle, uuid, server)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                """, [.integer(id), .integer(Int64(g.service(containing: i.declarationHandle)?.startHandle ?? 0)),
                      .integer(Int64(i.declarationHandle)), .integer(Int64(i.startHandle)), .integer(Int64(i.endHandle)),
                      i.uuid.map { .text($0.uuidString) } ?? .null, server])
        }
        for (handle, v) in g.values.sorted(by: { $0.key < $1.key }) {
            try db.run("""
                INSERT OR REPLACE INTO gatt_value (connection_id, handle, value, source, packet_id, server, read_by_type)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                """, [.integer(id), .integer(Int64(handle)), .blob(v.bytes), .text(v.source), .integer(Int64(v.packetID)), server,
                      v.readByType.map { .text($0.uuidString) } ?? .null])
        }
    }
}
