import BLECore
import BLEDecode
import BLETimeline

/// The per-connection post-mortem `diagnose` renders: facts, counts and findings.
public struct ConnectionDiagnosis: Sendable {
    public struct Update: Sendable {
        public var packetID: Int
        public var timestamp: Int64
        public var source: String
        public var intervalUs: Int?
        public var latency: Int?
        public var supervisionTimeoutMs: Int?
        public var status: Int?
    }
    public struct Evidence: Sendable {
        public var packetID: Int
        public var timestamp: Int64
        public var summary: String
    }
    public struct RenderedFinding: Sendable {
        public var finding: Finding
        public var evidence: [Evidence]
    }

    public var id: Int64
    public var captureID: Int64
    public var capturePath: String
    public var handle: Int
    /// The controller that numbered `handle`: hciN, a btmon capture's adapter index (0 in a
    /// capture of one controller).
    public var controller = 0
    /// Whether the capture's connections are on more than one controller, or on another than 0:
    /// handles are per controller, so only then does the text name it beside the handle.
    public var namesController = false
    /// How the capture names `controller`: "hciN" (a btmon adapter index), or "interface N" in a
    /// pcapng of H4 packets, whose interfaces (draft-ietf-opsawg-pcapng 4.2) are its controllers.
    public var controllerName: String {
        controllerIsInterface ? "interface \(controller)" : "hci\(controller)"
    }
    /// True when `controller` is a pcapng Interface ID (see `controllerName`).
    public var controllerIsInterface = false
    public var transport: String
    public var peerAddress: String?
    public var peerAddressType: String?
    public var name: String?
    public var role: String?
    public var status: Int
    public var beganBeforeCapture: Bool
    public var start: Int64?
    public var end: Int64?
    public var firstPacketID: Int
    public var lastPacketID: Int
    public var intervalUs: Int?
    public var latency: Int?
    public var supervisionTimeoutMs: Int?
    public var updates: [Update]
    public var mtu: Int
    /// Both Exchange MTU PDUs were seen (Core v5.4 Vol 3 Part F 3.4.2): `mtu` is the negotiated one.
    public var mtuExchanged: Bool
    /// The largest ATT PDU on the link (bytes, opcode, attribute value bytes): the MTU was at
    /// least that large, whatever was (not) seen exchanged.
    public var largestATTPDU: (length: Int, opcode: Int, valueLength: Int?)?
    /// The last successful PHY update's `tx_phy=… rx_phy=…` (LE PHY Update Complete, or LL_PHY_UPDATE_IND at its instant).
    public var phy: String?
    /// The PHY the link began on, as `phy` says it (the air's CONNECT_IND or AUX_CONNECT_REQ:
    /// `LinkLayerDecoder.connectionPHYEventName`); nil when the capture does not say (HCI).
    public var initialPHY: String? = nil
    /// Successful PHY updates (Core v5.4 Vol 4 Part E 7.7.65.12).
    public var phyUpdates = 0
    public var encrypted: Bool
    /// Whether `encrypted` is known: a link that began before the capture may have been
    /// encrypted before it (no Encryption Change in the file says so either way).
    public var encryptionKnown: Bool
    /// How the transport of a link found in progress is known (`br/edr: Mode Change`), from the
    /// timeline's "Transport" link event; nil when no clue came (or the Connection Complete said).
    public var transportClue: String?

    /// What the MTU is known to be: the negotiated one, 23 when the link was seen from its start
    /// and never exchanged (Vol 3 Part F 3.2.8), else nil (unknown; `largestATTPDU` bounds it):
    /// a link that began before the capture, or whose payloads became ciphertext (`ciphertextFrom`)
    /// before any exchange was seen.
    public var knownMTU: Int? { mtuExchanged || (!beganBeforeCapture && ciphertextFrom == nil) ? mtu : nil }
    public var packets: Int
    public var attPDUs: Int
    public var transactions: Int
    public var transactionErrors: Int
    public var transactionTimeouts: Int
    public var notifications: Int
    public var disconnectReason: Int?
    public var disconnectPacketID: Int?
    public var disconnectCBError: String?
    /// The local host sent HCI Disconnect on this link (Core v5.4 Vol 4 Part E 7.1.6): an iOS
    /// app that cancelled the connection gets no error, whatever the controller then reports.
    public var localDisconnectRequested = false
    /// What an Android app's `onConnectionStateChange` got for that disconnect (`errors.android_status`).
    public var disconnectAndroid: AndroidGattStatus?
    /// On an LE link where the local device was the peripheral: what the CBPeripheralManager app
    /// and the remote central's app see of its end (nil on other links, and while still open).
    public var peripheralManager: PeripheralManagerView?
    public var findings: [RenderedFinding]
    /// On a sniffer's capture that went on without the link, its end not in it (`AirObservation`):
    /// when its last packet came, and how much longer the capture went on. Such a link was not
    /// "still open when the capture ended".
    public var lostFromView: (lastSeen: Int64, captureWentOn: Int64)?
    /// On a sniffer's capture: the first packet of the link whose payload was ciphertext the
    /// sniffer did not decrypt (the "LL payloads encrypted" link event, Core v5.4 Vol 6 Part E 1).
    /// From it on the link's ATT, SMP and LL Control are not known: the ATT counts are those of
    /// the plaintext, and an MTU never seen exchanged may have been exchanged after it.
    public var ciphertextFrom: Int?
    /// The packet whose HCI Reset completion ended the link (`LinkEventName.controllerReset`,
    /// Core v5.4 Vol 4 Part E 7.3.2): no Disconnection Complete, so no reason.
    public var controllerResetPacketID: Int?
    /// The Connection Complete that gave the link's handle to a new link while the capture still
    /// showed it open (`LinkEventName.handleReused`): it ended by then, its Disconnection Complete
    /// not in the capture, so no reason.
    public var handleReusedPacketID: Int?

    public var worstSeverity: Finding.Severity? { findings.map(\.finding.severity).max() }
}

/// Capture-level facts and findings.
public struct CaptureDiagnosis: Sendable {
    public var capture: CaptureSummary
    /// Which host stack wrote it, what told it, and so which app views the diagnosis shows.
    public var platform: CapturePlatform.Inference
    public var findings: [ConnectionDiagnosis.RenderedFinding]
    public var connections: [ConnectionDiagnosis]
    public var advertisers: Int
    public var advertisingReports: Int
    public var bredrPackets: Int
}

public enum DiagnosisLoader {
    /// Loads the diagnosis of every capture in the timeline, analysing first when needed. Holds
    /// every connection at once: `diagnose` reads them one at a time with `DiagnosisReader`.
    public static func load(_ store: TimelineStore) throws -> [CaptureDiagnosis] {
        try Analyzer.analyze(store)
        let reader = try DiagnosisReader(store.database)
        var out: [CaptureDiagnosis] = []
        for capture in try store.captures() {
            var d = try reader.head(capture)
            try reader.forEachConnection(of: capture) { d.connections.append($0) }
            out.append(d)
        }
        return out
    }
}

/// Reads a timeline's diagnosis capture by capture and, within a capture, one connection at a
/// time, so that what is held does not grow with the number of links (issue 17): the capture's
/// own facts and findings first (`head`), then each connection with its findings in id order.
/// The timeline must be analysed (`Analyzer.analyze`).
public final class DiagnosisReader {
    let db: SQLiteDatabase
    private let packet: SQLiteStatement
    private let values: CharacteristicValueLookup

    public init(_ db: SQLiteDatabase) throws {
        self.db = db
        packet = try db.prepare("SELECT ts_us, summary FROM packet WHERE rowid = \(PacketKey.sql(capture: "?1", frame: "?2"))")
        values = try CharacteristicValueLookup(database: db)
    }

    /// The findings' order within a capture or a connection: errors, warnings, then the rest, each as stored.
    static let findingOrder = "CASE severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END, rowid"
    static let findingColumns = "connection_id, severity, code, title, detail, evidence_packet_ids, cb_error, android_status, android_name"

    /// The capture's facts and capture-level findings; `connections` is empty.
    public func head(_ capture: CaptureSummary) throws -> CaptureDiagnosis {
        let s = try db.prepare("""
            SELECT \(Self.findingColumns) FROM finding WHERE capture_id = ?1 AND connection_id IS NULL ORDER BY \(Self.findingOrder)
            """)
        try s.bind([.integer(capture.id)])
        var findings: [ConnectionDiagnosis.RenderedFinding] = []
        while try s.step() { findings.append(try finding(s, captureID: capture.id)) }
        let counts = try db.rows("""
            SELECT (SELECT count(DISTINCT address) FROM adv_report WHERE capture_id = ?1),
                   (SELECT count(*) FROM adv_report WHERE capture_id = ?1),
                   (SELECT count(*) FROM packet WHERE \(PacketKey.inCapture("?1")) AND layer = 'bredr')
            """, [.integer(capture.id)]).first ?? []
        let platform = try CapturePlatform.infer(captureID: capture.id, from: db)
        return CaptureDiagnosis(capture: capture, platform: platform, findings: findings, connections: [], advertisers: counts.first?.int ?? 0,
                                advertisingReports: counts.count > 1 ? counts[1].int ?? 0 : 0,
                                bredrPackets: counts.count > 2 ? counts[2].int ?? 0 : 0)
    }

    /// How many connections `forEachConnection` gives, LE (a transport not stored is LE) and the rest.
    public func connectionCounts(of capture: CaptureSummary) throws -> (le: Int, other: Int) {
        let r = try db.rows("""
            SELECT count(*) FILTER (WHERE coalesce(transport, 'le') = 'le'), count(*) FROM connection WHERE capture_id = ?1
            """, [.integer(capture.id)]).first ?? []
        let le = r.first?.int ?? 0
        return (le, (r.count > 1 ? r[1].int ?? 0 : 0) - le)
    }

    /// Hands `body` each connection of the capture in id order, with its findings.
    public func forEachConnection(of capture: CaptureSummary, _ body: (ConnectionDiagnosis) throws -> Void) throws {
        let s = try db.prepare("""
            SELECT c.id, c.handle, c.transport, c.peer_address, c.peer_address_type, c.role, c.status, c.began_before_capture,
                   coalesce(c.connected_ts_us, (SELECT ts_us FROM packet WHERE rowid = \(PacketKey.sql(capture: "c.capture_id", frame: "c.first_packet_id")))),
                   coalesce(c.disconnected_ts_us, (SELECT ts_us FROM packet WHERE rowid = \(PacketKey.sql(capture: "c.capture_id", frame: "c.last_packet_id")))),
                   c.first_packet_id, max(c.last_packet_id, coalesce(c.disconnect_packet_id, 0)), c.interval_us, c.latency,
                   c.supervision_timeout_ms, c.mtu, c.encrypted,
                   (SELECT count(*) FROM packet p WHERE p.connection_id = c.id),
                   (SELECT count(*) FROM att_pdu a WHERE a.connection_id = c.id),
                   (SELECT count(*) FROM att_transaction t WHERE t.connection_id = c.id),
                   (SELECT count(*) FROM att_transaction t WHERE t.connection_id = c.id AND t.outcome = 'error'),
                   (SELECT count(*) FROM att_transaction t WHERE t.connection_id = c.id AND t.outcome = 'timeout'),
                   (SELECT count(*) FROM att_pdu a WHERE a.connection_id = c.id AND a.opcode IN (0x1B, 0x1D, 0x23)),
                   c.disconnect_reason, c.disconnect_packet_id,
                   (SELECT cb_error FROM error e WHERE e.connection_id = c.id AND e.context = 'disconnect' LIMIT 1),
                   (SELECT name FROM device d WHERE d.address = c.peer_address),
                   (SELECT detail FROM link_event l WHERE l.connection_id = c.id AND l.name LIKE '%PHY Update%' AND coalesce(l.status, 0) = 0 ORDER BY packet_id DESC LIMIT 1),
                   c.client_rx_mtu IS NOT NULL AND c.server_rx_mtu IS NOT NULL,
                   (SELECT detail FROM link_event l WHERE l.connection_id = c.id AND l.name = 'Transport' ORDER BY packet_id DESC LIMIT 1),
                   (SELECT count(*) FROM link_event l WHERE l.connection_id = c.id AND l.name IN ('Encryption Change', 'Encryption Key Refresh Complete')),
                   (SELECT android_status FROM error e WHERE e.connection_id = c.id AND e.context = 'disconnect' LIMIT 1),
                   (SELECT android_name FROM error e WHERE e.connection_id = c.id AND e.context = 'disconnect' LIMIT 1),
                   c.controller_index, c.local_disconnect_requested,
                   (SELECT min(packet_id) FROM link_event l WHERE l.connection_id = c.id AND l.name = '\(LinkLayerDecoder.ciphertextEventName)'),
                   (SELECT detail FROM link_event l WHERE l.connection_id = c.id AND l.name = '\(LinkLayerDecoder.connectionPHYEventName)' ORDER BY packet_id LIMIT 1),
                   (SELECT count(*) FROM link_event l WHERE l.connection_id = c.id AND l.name LIKE '%PHY Update%' AND coalesce(l.status, 0) = 0),
                   (SELECT min(packet_id) FROM link_event l WHERE l.connection_id = c.id AND l.name = '\(LinkEventName.controllerReset)'),
                   (SELECT min(packet_id) FROM link_event l WHERE l.connection_id = c.id AND l.name = '\(LinkEventName.handleReused)')
            FROM connection c WHERE c.capture_id = ?1 ORDER BY c.id
            """)
        try s.bind([.integer(capture.id)])
        // The connections' findings in step with the connections: one pass in connection order,
        // where a lookup per connection would scan the table each time (finding has no index on
        // connection_id) and grouping them first would hold them all.
        let f = try db.prepare("""
            SELECT \(Self.findingColumns) FROM finding WHERE capture_id = ?1 AND connection_id IS NOT NULL
            ORDER BY connection_id, \(Self.findingOrder)
            """)
        try f.bind([.integer(capture.id)])
        var findingPending = try f.step()
        let largest = try db.prepare("""
            SELECT length(pdu), opcode, value_length FROM att_pdu WHERE connection_id = ?1 ORDER BY length(pdu) DESC, packet_id LIMIT 1
            """)
        let controllers = try db.rows("""
            SELECT count(DISTINCT controller_index), max(controller_index) FROM connection WHERE capture_id = ?1
            """, [.integer(capture.id)]).first ?? []
        let namesController = (controllers.first?.int ?? 0) > 1 || (controllers.count > 1 ? controllers[1].int ?? 0 : 0) != 0
        // PcapReader gives pcapng interfaces as controllers for LINKTYPE 187 and 201 (not 254).
        let interfaces = try db.rows("SELECT format = 'pcapng' AND link_type IN (187, 201) FROM capture WHERE id = ?1",
                                     [.integer(capture.id)]).first?.first?.int == 1
        let air = try AirObservation(captureID: capture.id, db: db)
        while try s.step() {
            let id = s.int64(0)
            var c = ConnectionDiagnosis(
                id: id, captureID: capture.id, capturePath: capture.path, handle: s.int(1), transport: s.text(2) ?? "le",
                peerAddress: s.text(3), peerAddressType: s.text(4), name: s.text(26), role: s.text(5), status: s.int(6),
                beganBeforeCapture: s.int(7) != 0, start: s.isNull(8) ? nil : s.int64(8), end: s.isNull(9) ? nil : s.int64(9),
                firstPacketID: s.int(10), lastPacketID: s.int(11), intervalUs: s.optionalInt(12), latency: s.optionalInt(13),
                supervisionTimeoutMs: s.optionalInt(14), updates: [], mtu: s.int(15), mtuExchanged: s.int(28) != 0,
                largestATTPDU: nil, phy: s.text(27), encrypted: s.int(16) != 0,
                encryptionKnown: s.int(7) == 0 || s.int(16) != 0 || s.int(30) > 0, transportClue: s.text(29),
                packets: s.int(17), attPDUs: s.int(18), transactions: s.int(19), transactionErrors: s.int(20),
                transactionTimeouts: s.int(21), notifications: s.int(22), disconnectReason: s.optionalInt(23),
                disconnectPacketID: s.optionalInt(24), disconnectCBError: s.text(25),
                disconnectAndroid: s.optionalInt(31).map { AndroidGattStatus($0, s.text(32)) }, peripheralManager: nil, findings: [])
            c.controller = s.int(33)
            c.localDisconnectRequested = s.int(34) != 0
            c.ciphertextFrom = s.optionalInt(35)
            c.initialPHY = s.text(36)
            c.phyUpdates = s.int(37)
            c.controllerResetPacketID = s.optionalInt(38)
            c.handleReusedPacketID = s.optionalInt(39)
            c.namesController = namesController
            c.controllerIsInterface = interfaces
            // `end` is the last packet's time when no disconnection was seen.
            if air.isAirCapture, c.disconnectReason == nil, c.disconnectPacketID == nil, let seen = c.end,
               let end = capture.lastTimestamp, end > seen {
                c.lostFromView = (seen, end - seen)
            }
            c.updates = try Self.loadUpdates(db, connection: id)
            try largest.bind([.integer(id)])
            if try largest.step() {
                c.largestATTPDU = (largest.int(0), largest.int(1), largest.optionalInt(2))
            }
            largest.reset()
            // Findings of connections not in the capture's list (none should be) are passed over.
            while findingPending, f.int64(0) < id { findingPending = try f.step() }
            while findingPending, f.int64(0) == id {
                c.findings.append(try finding(f, captureID: capture.id))
                findingPending = try f.step()
            }
            if c.transport == "le", c.role == "peripheral", let frame = c.disconnectPacketID {
                c.peripheralManager = try PeripheralManagerView.load(db, captureID: capture.id, connectionID: id,
                                                                     reason: c.disconnectReason, before: frame)
            }
            try body(c)
        }
    }

    static func loadUpdates(_ db: SQLiteDatabase, connection: Int64) throws -> [ConnectionDiagnosis.Update] {
        try db.rows("""
            SELECT packet_id, ts_us, source, interval_us, latency, supervision_timeout_ms, status
            FROM connection_update WHERE connection_id = ?1 ORDER BY packet_id
            """, [.integer(connection)]).map {
            ConnectionDiagnosis.Update(packetID: $0[0].int ?? 0, timestamp: $0[1].int64 ?? 0, source: $0[2].string ?? "",
                                       intervalUs: $0[3].int, latency: $0[4].int, supervisionTimeoutMs: $0[5].int, status: $0[6].int)
        }
    }

    /// The finding on the current row of `r` (`findingColumns`), with its evidence packets.
    func finding(_ r: SQLiteStatement, captureID: Int64) throws -> ConnectionDiagnosis.RenderedFinding {
        let evidenceIDs = (r.text(5) ?? "[]").trimmingCharacters(in: "[]").split(separator: ",").compactMap { Int($0) }
        var evidence: [ConnectionDiagnosis.Evidence] = []
        for id in evidenceIDs {
            try packet.bind([.integer(captureID), .integer(Int64(id))])
            if try packet.step() {
                // A standard characteristic's value, decoded (GATT Specification Supplement).
                let value = try values.value(captureID: captureID, frame: id).map { " — \($0.value.name): \($0.value.summary)" } ?? ""
                evidence.append(.init(packetID: id, timestamp: packet.int64(0), summary: (packet.text(1) ?? "") + value))
            }
            packet.reset()
        }
        let f = Finding(connectionID: r.isNull(0) ? nil : r.int64(0), captureID: captureID,
                        severity: Finding.Severity(rawValue: r.text(1) ?? "info") ?? .info, code: r.text(2) ?? "",
                        title: r.text(3) ?? "", detail: r.text(4) ?? "", evidence: evidenceIDs, cbError: r.text(6),
                        android: r.isNull(7) ? nil : AndroidGattStatus(r.int(7), r.text(8)))
        return ConnectionDiagnosis.RenderedFinding(finding: f, evidence: evidence)
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
