import BLECore
import BLEAnalysis
import BLEDecode
import BLETimeline

/// Reads `CaptureFacts` out of an analysed timeline, one per capture it holds.
///
/// Uses the documented views where they carry what is needed (`connections`, `errors`,
/// `devices`, `gatt_*`, `att_transactions`) and the base tables for the rest (capture
/// metadata, the request direction of an Error Response, HCI command names).
public enum CaptureFactsLoader {
    /// ATT requests whose handle is the start of a discovery range, not an attribute:
    /// Find Information, Find By Type Value, Read By Type, Read By Group Type.
    public static let discoveryOpcodes: Set<Int> = [0x04, 0x06, 0x08, 0x10]

    /// Device Information characteristics read per connection, and the GAP Device Name.
    static let identityUUIDs = ["2A29", "2A24", "2A26", "2A00"]

    /// One `CaptureFacts` per capture in the timeline, in capture id order.
    public static func load(_ store: TimelineStore, input: String, details: Bool = false) throws -> [CaptureFacts] {
        let db = store.database
        let devices = try loadDevices(db)
        var out: [CaptureFacts] = []
        let captures = try db.rows("""
            SELECT id, path, file_name, sha256, format_description, records, first_ts_us, last_ts_us, status,
                   malformed_packets FROM capture ORDER BY id
            """)
        let labels = CaptureLabels.labels(captures.map { row in
            CaptureLabels.Capture(id: row[0].int64 ?? 0, path: row[1].string ?? "", fileName: row[2].string)
        }, input: input)
        for (row, label) in zip(captures, labels) {
            guard let id = row[0].int64 else { continue }
            var facts = CaptureFacts(
                input: input, label: label, captureName: row[2].string ?? "", capturePath: row[1].string ?? "",
                sha256: row[3].string ?? "", formatDescription: row[4].string ?? "", records: row[5].int ?? 0,
                firstTimestamp: row[6].int64, lastTimestamp: row[7].int64, status: row[8].string ?? "",
                malformedPackets: row[9].int ?? 0, connections: [], bredrLinks: 0, events: [], latencies: [:],
                outcomes: [:], attOpcodeNames: [:], devices: [:])
            facts.phone = try PhoneIdentityColumns.read(captureID: id, from: db)
            try loadConnections(db, captureID: id, into: &facts)
            try loadTransactions(db, captureID: id, into: &facts)
            try loadEvents(db, captureID: id, into: &facts)
            try loadInferredAirEndings(db, captureID: id, into: &facts)
            let peers = Set(facts.connections.compactMap(\.knownPeer))
            facts.devices = devices.filter { peers.contains($0.key) }
            if details { facts.details = try CaptureDetails.load(db, captureID: id, opcodeNames: facts.attOpcodeNames) }
            out.append(facts)
        }
        return out
    }

    static func loadDevices(_ db: SQLiteDatabase) throws -> [String: DeviceIdentity] {
        var out: [String: DeviceIdentity] = [:]
        for row in try db.rows("SELECT address, name, manufacturer, model, firmware_revision FROM devices") {
            guard let address = row[0].string else { continue }
            out[address] = DeviceIdentity(name: clean(row[1].string), manufacturer: clean(row[2].string),
                                          model: clean(row[3].string), firmwareRevision: clean(row[4].string))
        }
        return out
    }

    /// Trims spaces and NULs; nil for an empty string.
    static func clean(_ s: String?) -> String? {
        guard let s else { return nil }
        let trimmed = s.unicodeScalars.drop { $0 == " " || $0 == "\0" }.reversed().drop { $0 == " " || $0 == "\0" }
        let text = String(String.UnicodeScalarView(trimmed.reversed()))
        return text.isEmpty ? nil : text
    }

    static func loadConnections(_ db: SQLiteDatabase, captureID: Int64, into facts: inout CaptureFacts) throws {
        let capture: [SQLiteValue] = [.integer(captureID)]
        facts.bredrLinks = Int(try db.scalarInt("SELECT count(*) FROM connection WHERE capture_id = ?1 AND transport <> 'le'", capture) ?? 0)
        var cbErrors: [Int64: String] = [:]
        for row in try db.rows("SELECT connection_id, cb_error FROM errors WHERE capture_id = ?1 AND context = 'disconnect' AND cb_error IS NOT NULL", capture) {
            if let id = row[0].int64, let cb = row[1].string { cbErrors[id] = cb }
        }
        var identities: [Int64: DeviceIdentity] = [:]
        let names = identityUUIDs.map { "'\($0)'" }.joined(separator: ",")
        for row in try db.rows("""
            SELECT v.connection_id, coalesce(ch.uuid, v.read_by_type), v.value FROM gatt_value v
            LEFT JOIN gatt_characteristics ch ON ch.connection_id = v.connection_id AND ch.value_handle = v.handle AND ch.server = v.server
            JOIN connections c ON c.id = v.connection_id
            WHERE c.capture_id = ?1 AND coalesce(ch.uuid, v.read_by_type) IN (\(names)) AND length(v.value) > 0
            AND v.server = 'remote' -- the peer's own GATT server, never this device's that it read (GATTServerSide)
            ORDER BY v.packet_id
            """, capture) {
            // The one rule for GATT strings: NUL padding stripped, text only when it is text.
            guard let id = row[0].int64, let uuid = row[1].string, let value = row[2].blob.flatMap(GATTStringValue.text) else { continue }
            var identity = identities[id] ?? DeviceIdentity()
            switch uuid {
            case "2A29": identity.manufacturer = value
            case "2A24": identity.model = value
            case "2A26": identity.firmwareRevision = value
            default: identity.name = value
            }
            identities[id] = identity
        }
        // Read in place (`forEachRow`): a capture of tens of thousands of links would otherwise
        // hold every row as values beside the facts made of them (issue 17: under 100 MB).
        try db.forEachRow("""
            SELECT c.id, c.handle, c.peer_address, c.status, c.connected_ts_us, c.disconnected_ts_us, c.disconnect_reason,
                   c.began_before_capture, (SELECT p.ts_us FROM packet p WHERE p.rowid = \(PacketKey.sql(capture: "c.capture_id", frame: "k.complete_packet_id"))),
                   (SELECT p.ts_us FROM packet p WHERE p.rowid = \(PacketKey.sql(capture: "c.capture_id", frame: "k.first_packet_id"))),
                   (SELECT p.ts_us FROM packet p WHERE p.rowid = \(PacketKey.sql(capture: "c.capture_id", frame: "k.last_packet_id"))),
                   c.role
            FROM connections c JOIN connection k ON k.id = c.id WHERE c.capture_id = ?1 AND c.transport = 'le' ORDER BY c.id
            """, capture) { row in
            guard let id = row.optionalInt64(0) else { return }
            let status = row.optionalInt(3) ?? 0
            let began = row.optionalInt(7) == 1
            let disconnected = row.optionalInt64(5)
            let reason = row.optionalInt(6)
            let established = status == 0 && reason != 0x3E
            facts.connections.append(ConnectionFact(
                id: id, handle: row.optionalInt(1) ?? 0, peerAddress: row.text(2), status: status, completedAt: row.optionalInt64(8),
                // A connection that began before the capture counts from its first packet, one still
                // open at the end to its last: the capture's own first and last records can be far
                // away (PacketLogger notes stamped days earlier).
                start: established ? (row.optionalInt64(4) ?? (began ? row.optionalInt64(9) : nil)) : nil,
                end: established ? (disconnected ?? row.optionalInt64(10) ?? facts.lastTimestamp) : nil,
                beganBeforeCapture: began, openAtEnd: established && disconnected == nil,
                disconnectReason: reason, disconnectCBError: cbErrors[id],
                identity: identities[id] ?? DeviceIdentity(), localRole: row.text(11)))
        }
    }

    static func loadTransactions(_ db: SQLiteDatabase, captureID: Int64, into facts: inout CaptureFacts) throws {
        let s = try db.prepare("""
            SELECT t.opcode, t.direction, t.outcome, t.latency_us FROM att_transaction t
            JOIN connections c ON c.id = t.connection_id WHERE c.capture_id = ?1
            """)
        try s.bind([.integer(captureID)])
        while try s.step() {
            let key = LatencyKey(opcode: s.int(0), requester: s.text(1) == "rx" ? "peer" : "local")
            let outcome = s.text(2) ?? "?"
            facts.outcomes[key, default: [:]][outcome, default: 0] += 1
            if (outcome == "ok" || outcome == "error"), !s.isNull(3) {
                facts.latencies[key, default: []].append(s.int64(3))
            }
        }
        for row in try db.rows("SELECT DISTINCT opcode, opcode_name FROM att_pdu WHERE capture_id = ?1", [.integer(captureID)]) {
            if let op = row[0].int, let name = row[1].string { facts.attOpcodeNames[op] = name }
        }
    }

    /// The GATT attribute at a handle of one server's database (GATTServerSide: a link can carry
    /// the peer's and the local device's, with the same handles): characteristic UUID and, for a
    /// descriptor, its UUID.
    struct AttributeMap {
        struct Key: Hashable { var connection: Int64; var server: String }
        var byConnection: [Key: [Int: (characteristic: String, descriptor: String?)]] = [:]
        var peerOf: [Int64: String] = [:]
        var connectionsOfPeer: [String: [Int64]] = [:]

        /// `server` of an Error Response or a timed-out request: the side that answered, or was asked.
        func lookup(connection: Int64?, server: GATTServerSide, handle: Int?) -> (characteristic: String, descriptor: String?)? {
            guard let connection, let handle else { return nil }
            if let hit = byConnection[Key(connection: connection, server: server.rawValue)]?[handle] { return hit }
            guard let peer = peerOf[connection] else { return nil }
            for other in connectionsOfPeer[peer] ?? [] where other != connection {
                if let hit = byConnection[Key(connection: other, server: server.rawValue)]?[handle] { return hit }
            }
            return nil
        }
    }

    static func attributeMap(_ db: SQLiteDatabase, facts: CaptureFacts, captureID: Int64) throws -> AttributeMap {
        var map = AttributeMap()
        for c in facts.connections {
            if let peer = c.knownPeer {
                map.peerOf[c.id] = peer
                map.connectionsOfPeer[peer, default: []].append(c.id)
            }
        }
        let capture: [SQLiteValue] = [.integer(captureID)]
        for row in try db.rows("""
            SELECT ch.connection_id, ch.value_handle, ch.declaration_handle, ch.uuid, ch.server FROM gatt_characteristics ch
            JOIN connections c ON c.id = ch.connection_id WHERE c.capture_id = ?1
            """, capture) {
            guard let id = row[0].int64, let value = row[1].int, let declaration = row[2].int, let uuid = row[3].string else { continue }
            let key = AttributeMap.Key(connection: id, server: row[4].string ?? GATTServerSide.remote.rawValue)
            map.byConnection[key, default: [:]][value] = (uuid, nil)
            map.byConnection[key, default: [:]][declaration] = (uuid, nil)
        }
        for row in try db.rows("""
            SELECT d.connection_id, d.handle, d.uuid, d.characteristic_uuid, d.server FROM gatt_descriptors d
            JOIN connections c ON c.id = d.connection_id WHERE c.capture_id = ?1
            """, capture) {
            guard let id = row[0].int64, let handle = row[1].int, let uuid = row[2].string else { continue }
            let key = AttributeMap.Key(connection: id, server: row[4].string ?? GATTServerSide.remote.rawValue)
            map.byConnection[key, default: [:]][handle] = (row[3].string ?? "?", uuid)
        }
        return map
    }

    static func loadEvents(_ db: SQLiteDatabase, captureID: Int64, into facts: inout CaptureFacts) throws {
        let le = Set(facts.connections.map(\.id))
        let localPeripheral = Set(facts.connections.filter { $0.localRole == "peripheral" }.map(\.id))
        let attributes = try attributeMap(db, facts: facts, captureID: captureID)
        let s = try db.prepare("""
            SELECT e.packet_id, e.ts_us, e.connection_id, e.layer, e.context, e.code, e.name, e.cb_error, e.opcode, e.handle,
                   (SELECT \(GATTServerSide.sqlInferredDirection(direction: "a.direction", opcode: "a.opcode")) FROM att_pdu a
                    WHERE a.connection_id = e.connection_id AND a.packet_id = e.packet_id AND a.opcode = 1 LIMIT 1),
                   (SELECT p.direction FROM smp_event p WHERE p.connection_id = e.connection_id AND p.packet_id = e.packet_id AND p.code = 5 LIMIT 1),
                   (SELECT m.name FROM command m WHERE m.capture_id = e.capture_id AND m.opcode = e.opcode LIMIT 1),
                   e.android_status, e.android_name
            FROM error e WHERE e.capture_id = ?1 ORDER BY e.packet_id, e.rowid
            """)
        try s.bind([.integer(captureID)])
        var events: [ErrorEvent] = []
        while try s.step() {
            let connection = s.isNull(2) ? nil : s.int64(2)
            // BR/EDR links are not part of the LE statistics.
            if let connection, !le.contains(connection) { continue }
            let layer = s.text(3) ?? "", context = s.text(4) ?? ""
            var event = ErrorEvent(kind: .other, timestamp: s.int64(1), packetID: s.int(0), connectionID: connection,
                                   code: s.int(5), name: s.text(6) ?? "", cbError: s.text(7), opcode: s.optionalInt(8),
                                   opcodeName: nil, handle: s.optionalInt(9), characteristic: nil, descriptor: nil,
                                   detail: nil)
            event.android = s.optionalInt(13).map { AndroidGattStatus($0, s.text(14)) }
            switch (layer, context) {
            case ("hci", "disconnect"):
                event.kind = .disconnect
                if let connection, localPeripheral.contains(connection) { event.detail = ErrorEvent.localPeripheral }
            case ("hci", "connection"):
                event.kind = event.code == 0x02 && event.cbError == nil ? .connectionCancelled : .connectionFailed
            case ("hci", "command"):
                event.kind = .hciCommand
                event.opcodeName = s.text(12)
            case ("vendor", "status"), ("vendor", "return"):
                event.kind = .vendorCommand
                event.opcodeName = s.text(12)
                event.detail = context == "status" ? ErrorEvent.vendorStatus : ErrorEvent.vendorDefined
            case ("att", "error-response"):
                event.kind = .att
                event.detail = s.text(10).map { $0 == "rx" ? "peer" : "local" }
                if let op = event.opcode {
                    event.opcodeName = facts.attOpcodeNames[op]
                    // An Error Response comes from the server: received, the peer's; sent, the local one.
                    let server: GATTServerSide = s.text(10) == "tx" ? .local : .remote
                    if !discoveryOpcodes.contains(op), let a = attributes.lookup(connection: connection, server: server, handle: event.handle) {
                        event.characteristic = a.characteristic
                        event.descriptor = a.descriptor
                    }
                }
            case ("smp", "pairing-failed"):
                event.kind = .smp
                // SMP carries no opcode only one side sends: without a recorded direction, unknown.
                event.detail = s.text(11).map { $0 == "rx" ? "peer" : $0 == "tx" ? "local" : "unknown" }
            default:
                event.kind = .other
                event.detail = "\(layer) \(context)"
            }
            events.append(event)
        }
        let timeouts = try db.prepare("""
            SELECT t.request_packet_id, t.request_ts_us, t.connection_id, t.opcode, t.handle, t.direction
            FROM att_transaction t JOIN connections c ON c.id = t.connection_id
            WHERE c.capture_id = ?1 AND t.outcome = 'timeout' ORDER BY t.request_packet_id
            """)
        try timeouts.bind([.integer(captureID)])
        while try timeouts.step() {
            let op = timeouts.int(3)
            let connection = timeouts.int64(2)
            let opName = facts.attOpcodeNames[op] ?? "ATT opcode \(hex(op))"
            var event = ErrorEvent(kind: .attTimeout, timestamp: timeouts.int64(1), packetID: timeouts.int(0),
                                   connectionID: connection, code: op, name: "\(opName) timed out",
                                   cbError: nil, opcode: op, opcodeName: opName, handle: timeouts.optionalInt(4),
                                   characteristic: nil, descriptor: nil,
                                   detail: timeouts.text(5) == "rx" ? "peer" : "local")
            // A request goes to the server: received, the local one; sent, the peer's.
            let server: GATTServerSide = timeouts.text(5) == "rx" ? .local : .remote
            if !discoveryOpcodes.contains(op), let a = attributes.lookup(connection: connection, server: server, handle: event.handle) {
                event.characteristic = a.characteristic
                event.descriptor = a.descriptor
            }
            events.append(event)
        }
        facts.events = events.sorted { ($0.packetID, $0.kind) < ($1.packetID, $1.kind) }
    }
}
