import BLECore
import BLEReport

/// `blereplay report --warehouse`: the fleet report's figures (`FleetStatistics`, the data model
/// every renderer takes) computed by the server with SQL aggregates over the captures whose first
/// timestamp is in the window, in one repeatable-read transaction (a consistent snapshot while
/// workers keep ingesting).
///
/// What comes back is one row per group of every figure; the only per-item rows are what the
/// report lists item by item: the captures and their connections (the `connections` table), and
/// the errors of the few captures drawn as lanes in the HTML report.
public enum WarehouseReport {
    public static func statistics(_ db: PostgresConnection, since: Int64? = nil, until: Int64? = nil) throws(WarehouseError) -> FleetStatistics {
        try db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        do throws(WarehouseError) {
            let s = try build(db, since: since, until: until)
            try db.execute("COMMIT")
            return s
        } catch {
            _ = try? db.execute("ROLLBACK")
            throw error
        }
    }

    static func build(_ db: PostgresConnection, since: Int64?, until: Int64?) throws(WarehouseError) -> FleetStatistics {
        try WarehouseSelection.create(db, since: since, until: until)
        let (read, ids, identities) = try capturesAndConnections(db)
        var captures = read
        let period = try WarehouseGroups.period(db)
        try WarehouseGroups.createPeriodFunction(db, period: period)
        let groups = try WarehouseCounts.groups(db)
        let lanes = try laneOrder(db, captures: captures, ids: ids)
        try loadEvents(db, of: Array(lanes.prefix(ReportLanes.captureLimit)), ids: ids, into: &captures)
        return FleetStatistics.make(
            inputs: try WarehouseInputs.rows(db, windowed: since != nil || until != nil), captures: captures, counts: try WarehouseCounts.counts(db, groups: groups),
            latency: try WarehouseFigures.latency(db), durations: try WarehouseFigures.durations(db),
            groups: try WarehouseGroups.rows(db, period: period), period: period, identities: identities,
            attTimeouts: WarehouseCounts.attTimeouts(groups), laneOrder: lanes)
    }

    /// The selected captures in label order with their connections (events are left empty but
    /// for the lanes' captures), their warehouse ids, and each connection's resolved identity.
    static func capturesAndConnections(_ db: PostgresConnection) throws(WarehouseError)
        -> ([CaptureFacts], [Int64], [[Int64: DeviceIdentity]]) {
        var captures: [CaptureFacts] = []
        var ids: [Int64] = []
        var index: [Int64: Int] = [:]
        for r in try db.execute("""
            SELECT c.id, c.input, s.label, c.capture_name, c.capture_path, c.sha256, c.format_description, c.records,
                   c.first_ts_us, c.last_ts_us, c.status, c.malformed_packets, c.bredr_links,
                   c.phone_manufacturer, c.phone_model, c.android_version, c.build_fingerprint
            FROM blereplay.capture c JOIN sel s ON s.id = c.id ORDER BY s.rank
            """) {
            guard let id = r.int64(0) else { continue }
            index[id] = captures.count
            ids.append(id)
            captures.append(CaptureFacts.make(
                input: r.text(1) ?? "", label: r.text(2) ?? "", captureName: r.text(3) ?? "", capturePath: r.text(4) ?? "",
                sha256: r.text(5) ?? "", formatDescription: r.text(6) ?? "", records: r.int(7) ?? 0, firstTimestamp: r.int64(8),
                lastTimestamp: r.int64(9), status: r.text(10) ?? "", malformedPackets: r.int(11) ?? 0, connections: [],
                bredrLinks: r.int(12) ?? 0, events: [], latencies: [:], outcomes: [:], attOpcodeNames: [:], devices: [:]))
            let phone = PhoneIdentity(buildFingerprint: r.text(16), manufacturer: r.text(13), model: r.text(14),
                                      androidVersion: r.text(15))
            captures[captures.count - 1].phone = phone.isEmpty ? nil : phone
        }
        var identities = Array(repeating: [Int64: DeviceIdentity](), count: captures.count)
        for r in try db.execute("""
            SELECT capture_id, id, handle, peer_address, status, completed_ts_us, start_ts_us, end_ts_us, began_before_capture,
                   open_at_end, disconnect_reason, disconnect_cb_error, own_name, own_manufacturer, own_model, own_firmware,
                   peer, r_name, r_manufacturer, r_model, r_firmware, local_role
            FROM ck ORDER BY rank, id
            """) {
            guard let captureID = r.int64(0), let i = index[captureID], let id = r.int64(1) else { continue }
            captures[i].connections.append(ConnectionFact.make(
                id: id, handle: r.int(2) ?? 0, peerAddress: r.text(3), status: r.int(4) ?? 0, completedAt: r.int64(5),
                start: r.int64(6), end: r.int64(7), beganBeforeCapture: r.bool(8), openAtEnd: r.bool(9),
                disconnectReason: r.int(10), disconnectCBError: r.text(11),
                identity: DeviceIdentity(name: r.text(12), manufacturer: r.text(13), model: r.text(14), firmwareRevision: r.text(15)),
                localRole: r.text(21)))
            if r.text(16) != nil {
                identities[i][id] = DeviceIdentity(name: r.text(17), manufacturer: r.text(18), model: r.text(19), firmwareRevision: r.text(20))
            }
        }
        return (captures, ids, identities)
    }

    /// `FleetStatistics.laneOrder`: the trouble of each capture counted by the server.
    static func laneOrder(_ db: PostgresConnection, captures: [CaptureFacts], ids: [Int64]) throws(WarehouseError) -> [Int] {
        var trouble: [Int64: Int] = [:]
        for r in try db.execute("""
            SELECT capture_id, count(*) FROM ek
            WHERE (kind = 'disconnect' AND code NOT IN (19, 22)) OR kind IN ('connection-failed', 'att-timeout', 'smp')
            GROUP BY 1
            """) {
            if let id = r.int64(0) { trouble[id] = r.int(1) ?? 0 }
        }
        let scores = ids.map { trouble[$0] ?? 0 }
        return captures.indices.filter { !captures[$0].connections.isEmpty }.sorted { a, b in
            (-scores[a], captures[a].label) < (-scores[b], captures[b].label)
        }
    }

    /// The errors of the captures at `indices`, in packet order.
    static func loadEvents(_ db: PostgresConnection, of indices: [Int], ids: [Int64], into captures: inout [CaptureFacts]) throws(WarehouseError) {
        guard !indices.isEmpty else { return }
        var at: [Int64: Int] = [:]
        for i in indices { at[ids[i]] = i }
        let list = "{" + indices.map { String(ids[$0]) }.joined(separator: ",") + "}"
        for r in try db.execute("""
            SELECT capture_id, kind, ts_us, packet_id, connection_id, code, name, cb_error, opcode, opcode_name, handle,
                   characteristic, descriptor, detail, android_status, android_name
            FROM blereplay.error WHERE capture_id = ANY($1::bigint[]) ORDER BY capture_id, ordinal
            """, [list]) {
            guard let id = r.int64(0), let i = at[id], let kind = r.text(1).flatMap(ErrorEvent.Kind.init(rawValue:)) else { continue }
            captures[i].events.append(ErrorEvent.make(
                kind: kind, timestamp: r.int64(2) ?? 0, packetID: r.int(3) ?? 0, connectionID: r.int64(4), code: r.int(5) ?? 0,
                name: r.text(6) ?? "", cbError: r.text(7), opcode: r.int(8), opcodeName: r.text(9), handle: r.int(10),
                characteristic: r.text(11), descriptor: r.text(12), detail: r.text(13),
                android: r.int(14).map { AndroidGattStatus($0, r.text(15)) }))
        }
    }
}
