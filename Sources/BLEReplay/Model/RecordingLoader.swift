import BLEAnalysis
import BLECapture
import BLECore
import BLEDecode
import BLETimeline

/// Reads what a replay needs out of a timeline: per capture, its connections with their ATT
/// PDUs, parameters and endings, the advertising seen, and the GATT databases.
///
/// Times become offsets from the capture's start and each connection's origin: the timestamps
/// are the file's, so every difference saturates instead of trapping (STYLE lesson 15).
public enum RecordingLoader {
    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
        public init(message: String) { self.message = message }
    }

    /// Every capture of the timeline, in id order (analysing it first when needed).
    ///
    /// With `pduSource`, each ATT PDU longer than `PDUBytes.inlineLimit` is held as a reference to
    /// its row, read back from `store` on demand (issue 17): the caller then keeps the store
    /// open through `pduSource` (`PDUSource.keep`). Without, every PDU is held inline.
    /// - Parameter jobs: the threads that read the connections' details (`loadDetails`); the
    ///   sessions are the same whatever the number.
    /// Every capture of the timeline, a session each (a sniffer's too: `AirEnding`).
    public static func load(_ store: TimelineStore, pduSource: PDUSource? = nil,
                            jobs: Int = WorkerPool.processorCount) throws -> [RecordedSession] {
        let devices = try DeviceGATT.load(store, undiscovered: false)
        // Each peer's own database (GATTServerSide.remote): what a simulated peer serves. The local
        // device's server is never a peer's: the peers' requests to it are their client behaviour.
        var gatt: [String: GATTDatabase] = [:]
        for d in devices where !d.isLocalServer {
            if let a = d.address { gatt[a] = d.database }
            for id in d.connectionIDs where d.address == nil { gatt["connection \(id)"] = d.database }
        }
        let db = store.database
        // One read transaction for every capture's queries: outside one, SQLite takes and drops
        // its file lock, looks for a hot journal and rereads the header around each statement,
        // some twenty system calls per connection (issue 17). The load then reads one state of
        // the file, and ending a transaction that only read cannot lose anything.
        try db.execute("BEGIN")
        defer { try? db.execute("COMMIT") }
        var sessions: [RecordedSession] = []
        for row in try db.rows("SELECT id, path, file_name, format_description FROM capture ORDER BY id") {
            guard let captureID = row[0].int64 else { continue }
            sessions.append(try session(captureID, path: row[1].string ?? "", fileName: row[2].string ?? "",
                                        format: row[3].string ?? "", gatt: gatt, db: db, pduSource: pduSource, jobs: jobs))
        }
        return sessions
    }

    static func session(_ captureID: Int64, path: String, fileName: String, format: String,
                        gatt: [String: GATTDatabase], db: SQLiteDatabase, pduSource: PDUSource? = nil,
                        jobs: Int) throws -> RecordedSession {
        let cid = SQLiteValue.integer(captureID)
        let scan = try CapturePacketScan.load(captureID, db: db)
        let start = scan.start
        let last = scan.last
        var buffer = scan.readBufferSize  // from LE Read Buffer Size, then widened by what was seen
        let observed = (largestPacket: scan.largestPacket, mostInFlight: scan.mostInFlight)
        if let b = buffer {
            buffer = (max(b.size, observed.largestPacket), max(b.count, observed.mostInFlight))
        } else if observed.largestPacket > 0 {
            buffer = (max(27, observed.largestPacket), max(8, observed.mostInFlight))
        }
        let statements = Statements(db)
        statements.pduSource = pduSource
        let localDisconnects = try localDisconnects(captureID, db: db)
        let closings = try controllerClosings(captureID, db: db)
        // A sniffer's capture: the ends the air shows of links with no disconnection (`AirEnding`,
        // from the analysis's findings); none on an HCI capture.
        let airEndings = try AirEnding.load(db, captureID: captureID)
        // Links whose handle a later Connection Complete gave to a new link, their own end not in
        // the capture (`AirEnding.Kind.handleReused`): compared up to their last packet.
        let reuses = try AirEnding.handleReuses(db, captureID: captureID)
        let clock = scan.clock
        var creates = CreateConnectionClaims(times: try db.rows("""
            SELECT ts_us, packet_id FROM command WHERE capture_id = ?1 AND opcode IN (\(0x200D), \(0x2043)) ORDER BY packet_id
            """, [cid]).compactMap { r in r[0].int64.map { clock.time(frame: r[1].int, raw: $0) } })
        // Create Connection (Core v5.4 Vol 4 Part E 7.1.5): the BR/EDR links the local host paged.
        var classicCreates = CreateConnectionClaims(times: try db.rows("""
            SELECT ts_us, packet_id FROM command WHERE capture_id = ?1 AND opcode = \(0x0405) ORDER BY packet_id
            """, [cid]).compactMap { r in r[0].int64.map { clock.time(frame: r[1].int, raw: $0) } })
        var connections: [RecordedConnection] = []
        var classic = 0
        // Read a row at a time: the whole result at once was 37 MB for 61,424 links, more than
        // any later moment of the replay held (issue 17).
        let rows = try db.prepare("""
            SELECT id, handle, transport, peer_address, peer_address_type, role, status, interval_us, latency,
                   supervision_timeout_ms, client_rx_mtu, server_rx_mtu, connected_ts_us, disconnected_ts_us,
                   disconnect_reason, began_before_capture, complete_packet_id, disconnect_packet_id, first_packet_id,
                   encrypted, (SELECT ts_us FROM packet p WHERE p.rowid = \(PacketKey.sql(capture: "c.capture_id", frame: "c.first_packet_id"))),
                   (SELECT ts_us FROM packet p WHERE p.rowid = \(PacketKey.sql(capture: "c.capture_id", frame: "c.complete_packet_id"))),
                   (SELECT count(*) FROM smp_event s WHERE s.connection_id = c.id), controller_index
            FROM connection c WHERE capture_id = ?1 ORDER BY id
            """)
        try rows.bind([cid])
        // Held through the whole replay: no room to spare past the last one (a doubling's worth
        // was up to 300 bytes a link, issue 17).
        connections.reserveCapacity(Int(try db.scalarInt("SELECT count(*) FROM connection WHERE capture_id = ?1", [cid]) ?? 0))
        while try rows.step() {
            let r = rows.row()
            guard let id = r[0].int64 else { continue }
            let transport: LinkTransport
            switch r[2].string {
            case "le": transport = .le
            case "br/edr": transport = .bredr
            default: classic += 1; continue
            }
            let status = UInt8(truncatingIfNeeded: r[6].int ?? 0)
            let began = (r[15].int ?? 0) != 0
            let origin = r[12].int64.map { clock.time(frame: r[16].int, raw: $0) } ?? r[21].int64.map { clock.time(frame: r[16].int, raw: $0) }
                ?? r[20].int64.map { clock.time(frame: r[18].int, raw: $0) } ?? start
            var params: ConnectionParameters?
            if let i = r[7].int64, i > 0, let t = r[9].int64, t > 0 {
                params = ConnectionParameters(interval: i, latency: r[8].int ?? 0, supervisionTimeout: t.saturatingMultiplied(by: 1000))
            }
            let peer = PeerAddress(text: r[3].string, typeName: r[4].string)
            let zeroAddress = r[3].string == "00:00:00:00:00:00"
            var c = RecordedConnection(
                id: id, handle: UInt16(truncatingIfNeeded: r[1].int ?? 0), peer: zeroAddress ? nil : peer,
                peerLabel: (zeroAddress ? nil : r[3].string) ?? RecordedConnection.unnamedLabel(handle: r[1].int ?? 0),
                role: r[5].string, status: status, origin: origin, offset: origin.saturatingSubtracting(start), beganBeforeCapture: began,
                createOffset: nil, completePacketID: r[16].int, parameters: params, parameterUpdates: [], pdus: [],
                disconnect: nil, localDisconnect: nil, end: last.saturatingSubtracting(origin), clientRxMTU: r[10].int, serverRxMTU: r[11].int,
                encrypted: (r[19].int ?? 0) != 0, smpPackets: r[22].int ?? 0)
            if !began, transport == .le, let t = creates.claim(atOrBefore: origin) {
                c.createOffset = t.saturatingSubtracting(start)
            } else if !began, transport == .bredr, c.role != "peripheral", let t = classicCreates.claim(atOrBefore: origin) {
                c.createOffset = t.saturatingSubtracting(start)
            }
            if let raw = r[13].int64, let reason = r[14].int, let p = r[17].int {
                let t = clock.time(frame: p, raw: raw)
                c.disconnect = (t.saturatingSubtracting(origin), HCIStatusCode(UInt8(truncatingIfNeeded: reason)), p)
                c.end = t.saturatingSubtracting(origin)
            } else if let raw = r[13].int64, let p = r[17].int, let note = closings[id] {
                // Ended with its controller: no Disconnection Complete, no reason (`ControllerClosing`).
                let t = clock.time(frame: p, raw: raw).saturatingSubtracting(origin)
                c.controllerClosing = ControllerClosing(note: note, time: t, packetID: p)
                c.end = t
            } else if let air = airEndings[id] ?? reuses[id] {
                // The recording covers the link up to its last packet: there `diagnose` places the
                // inferred disconnect (`connection-timeout-on-air`, as `report` counts it), or
                // the capture stops showing it.
                let t = clock.time(frame: air.lastPacketID, raw: air.lastSeen).saturatingSubtracting(origin)
                c.airEnding = air
                c.end = t
                if case .inferredDisconnect(let reason) = air.kind { c.disconnect = (t, reason, air.lastPacketID) }
            }
            c.localDisconnect = localDisconnects[id].map { (t, raw, packet, rawType) in
                (clock.time(frame: packet, raw: t).saturatingSubtracting(c.origin), disconnectReason(raw, rawType: rawType), packet)
            }
            c.transport = transport
            c.controller = UInt16(truncatingIfNeeded: r[23].int ?? 0)
            connections.append(c)
        }
        try loadDetails(&connections, statements, clock: clock, jobs: jobs)
        // GATT over BR/EDR is replayed (its ATT on PSM 0x001F); a BR/EDR link without ATT carries
        // profiles (RFCOMM, AVDTP, SDP...) that replay does not simulate.
        let listed = connections.count
        connections.removeAll { $0.transport == .bredr && $0.pdus.isEmpty }
        classic += listed - connections.count
        for i in connections.indices where connections[i].transport == .bredr {
            try BREDRLinkParameters.load(&connections[i], statements, clock: clock)
        }
        var completionTimes: [Int64] = []
        RecordedCompletions.assign(scan.completions, to: &connections, times: &completionTimes)
        // LE Create CIS, LE Accept CIS Request, LE Create BIG, LE BIG Create Sync (Core v5.4 Vol 4
        // Part E 7.8.99, 7.8.101, 7.8.103, 7.8.106): isochronous channels, which replay does not simulate.
        let isochronous = try db.scalarInt("""
            SELECT EXISTS (SELECT 1 FROM command WHERE capture_id = ?1 AND opcode IN (\(0x2064), \(0x2066), \(0x2068), \(0x206B)))
            """, [cid]) == 1
        var session = RecordedSession(captureID: captureID, path: path, fileName: fileName, start: start, end: last.saturatingSubtracting(start),
                               connections: connections, advertising: try advertising(captureID, gatt: gatt, db: db, clock: clock),
                               gatt: gatt, aclBufferSize: buffer?.size, aclBufferCount: buffer?.count,
                               classicConnections: classic, formatDescription: format, clock: clock, pduSource: pduSource,
                               completionTimes: completionTimes)
        session.isochronous = isochronous
        return session
    }

    /// Prepared statements reused for every connection of a capture: preparing them once per
    /// connection was most of the loading time of a capture of tens of thousands of links (issue 17).
    final class Statements {
        let db: SQLiteDatabase
        private var cache: [String: SQLiteStatement] = [:]

        /// Where long PDUs are spilled to (`PDUBytes`), if anywhere.
        var pduSource: PDUSource?
        /// The short PDUs read through these statements, each held once.
        var shortPDUs = ShortPDUInterner()

        init(_ db: SQLiteDatabase) { self.db = db }

        func rows(_ sql: String, _ bindings: [SQLiteValue]) throws -> [[SQLiteValue]] {
            let s = try statement(sql)
            try s.bind(bindings)
            var out: [[SQLiteValue]] = []
            while try s.step() { out.append(s.row()) }
            s.reset()
            return out
        }

        func statement(_ sql: String) throws -> SQLiteStatement {
            if let s = cache[sql] { return s }
            let s = try db.prepare(sql)
            cache[sql] = s
            return s
        }
    }

    /// The links that ended with their controller, by connection: the note of their
    /// `LinkEventName.controllerClosed` link event (`Close Index`, `Delete Index`, `HCI Reset`).
    static func controllerClosings(_ captureID: Int64, db: SQLiteDatabase) throws -> [Int64: String] {
        let stem = String(LinkEventName.controllerClosed("").dropLast())
        var out: [Int64: String] = [:]
        for r in try db.rows("""
            SELECT connection_id, name FROM link_event WHERE capture_id = ?1 AND connection_id IS NOT NULL
            AND substr(name, 1, ?2) = ?3 ORDER BY packet_id
            """, [.integer(captureID), .integer(Int64(stem.count)), .text(stem)]) {
            guard let id = r[0].int64, let name = r[1].string, name.hasSuffix(")") else { continue }
            out[id] = String(name.dropFirst(stem.count).dropLast())
        }
        return out
    }

    /// The local host's HCI Disconnect (Core v5.4 Vol 4 Part E 7.1.6) that ended each connection, as
    /// the analysis reads it (`LocalDisconnectCommand`): the first the controller accepted, else
    /// the last sent; none for a link whose every Disconnect failed (refused in its Command Status,
    /// 7.7.15, or reported failed by a Disconnection Complete, 7.7.5: the link stayed up, and the
    /// writer cleared `local_disconnect_requested`). (timestamp, raw command, packet id, raw type).
    /// One indexed query per capture, where a query per connection scanned every command of the
    /// capture each time.
    static func localDisconnects(_ captureID: Int64, db: SQLiteDatabase) throws -> [Int64: (Int64, [UInt8], Int, Int64)] {
        var out: [Int64: (Int64, [UInt8], Int, Int64)] = [:]
        for r in try db.rows("""
            SELECT m.connection_id, m.packet_id, m.ts_us, p.raw, p.raw_type FROM command m
            JOIN connection c ON c.id = m.connection_id AND c.local_disconnect_requested = 1
            JOIN packet p ON p.rowid = \(PacketKey.sql(capture: "m.capture_id", frame: "m.packet_id"))
            WHERE m.capture_id = ?1 AND m.opcode = \(0x0406) AND m.connection_id IS NOT NULL
            ORDER BY m.connection_id, \(LocalDisconnectCommand.order("m"))
            """, [.integer(captureID)]) {
            guard let connection = r[0].int64, out[connection] == nil, let packet = r[1].int, let t = r[2].int64 else { continue }
            out[connection] = (t, r[3].blob ?? [], packet, r[4].int64 ?? 0)
        }
        return out
    }

    /// The reason of a recorded Disconnect: the HCI command's (Core v5.4 Vol 4 Part E 7.1.6:
    /// opcode, length, handle, reason), or on a sniffer's capture, where the decoder takes the
    /// central's LL_TERMINATE_IND for its host's Disconnect, the LL_TERMINATE_IND's error code
    /// (Vol 6 Part B 2.4.2.1: opcode 0x02, error code; `raw_type` is the capture's link type).
    /// 0x13 when it cannot be read.
    static func disconnectReason(_ raw: [UInt8], rawType: Int64) -> UInt8 {
        if let linkType = UInt16(exactly: rawType), PcapLinkType(rawValue: UInt32(linkType)).isAirCapture {
            guard let packet = try? LinkLayerPacket(frame: raw[...], linkType: linkType), !packet.isAdvertising,
                  packet.payload.count >= 2, packet.payload.first == 0x02 else { return 0x13 }
            return packet.payload[packet.payload.startIndex + 1]
        }
        return raw.count >= 6 ? raw[5] : 0x13
    }

    static func loadDetails(_ c: inout RecordedConnection, _ q: Statements, clock: RecordingClock) throws {
        let id = SQLiteValue.integer(c.id)
        // The direction compared in SQL: a String per row was a tenth of loading the PDUs (issue 12).
        // The PDU's own bytes are in `att_pdu.pdu` (also in timelines imported with --no-raw, which
        // lack `packet.raw`): a long one is read back from its row (`PDUBytes`), named by its
        // connection, packet and place among that packet's rows (selecting each rowid cost more).
        let s = try q.statement("SELECT packet_id, ts_us, direction = 'tx', pdu, bearer FROM att_pdu WHERE connection_id = ?1 ORDER BY packet_id, rowid")
        try s.bind([id])
        var lastPacket: Int?, ordinal = 0
        while try s.step() {
            let packet = s.int(0)
            ordinal = packet == lastPacket ? ordinal + 1 : 0
            lastPacket = packet
            let bytes = s.blob(3) ?? []
            guard !bytes.isEmpty else { continue }
            let data = bytes.count > PDUBytes.inlineLimit
                ? q.pduSource?.spill(bytes, row: PDURow(connection: c.id, packet: packet, ordinal: ordinal)) ?? PDUBytes(bytes)
                : PDUBytes(q.shortPDUs.intern(bytes))
            c.pdus.append(RecordedPDU(packetID: packet, time: clock.time(frame: packet, raw: s.int64(1)).saturatingSubtracting(c.origin),
                                      fromCentral: s.int(2) != 0, data: data, bearer: s.optionalInt(4).map { UInt16(truncatingIfNeeded: $0) }))
        }
        s.reset()
        try loadSecurity(&c, q, clock: clock)
        for r in try q.rows("""
            SELECT packet_id, ts_us, coalesce(status, 0), detail, name FROM link_event WHERE connection_id = ?1
            AND name IN ('LE PHY Update Complete', 'LE Data Length Change') ORDER BY packet_id
            """, [id]) {
            guard let p = r[0].int, let t = r[1].int64 else { continue }
            let offset = clock.time(frame: p, raw: t).saturatingSubtracting(c.origin), detail = r[3].string ?? ""
            if r[4].string == "LE Data Length Change" {
                if let change = DataLengthChange(offset: offset, detail: detail, packetID: p) { c.linkEvents.append(.dataLengthChange(change)) }
            } else if let phys = PHYUpdate.phys(fromDetail: detail) {
                c.linkEvents.append(.phyUpdate(PHYUpdate(offset: offset, status: HCIStatusCode(UInt8(truncatingIfNeeded: r[2].int ?? 0)),
                                                         tx: phys.tx, rx: phys.rx, packetID: p)))
            }
        }
        for r in try q.rows("""
            SELECT packet_id, ts_us, interval_us, latency, supervision_timeout_ms, coalesce(status, 0) FROM connection_update
            WHERE connection_id = ?1 AND source = 'hci' ORDER BY packet_id
            """, [id]) {
            if let status = r[5].int, status != 0 {
                // Refused: the link keeps its parameters, the event is replayed as recorded.
                guard let packet = r[0].int, let t = r[1].int64 else { continue }
                c.linkEvents.append(.refusedConnectionUpdate(RefusedConnectionUpdate(
                    offset: clock.time(frame: packet, raw: t).saturatingSubtracting(c.origin), status: HCIStatusCode(UInt8(truncatingIfNeeded: status)),
                    interval: UInt16(clamping: (r[2].int64 ?? 0) / 1250), latency: UInt16(clamping: r[3].int64 ?? 0),
                    supervisionTimeout: UInt16(clamping: (r[4].int64 ?? 0) / 10), packetID: packet)))
                continue
            }
            guard let packet = r[0].int, let t = r[1].int64, let i = r[2].int64, i > 0, let to = r[4].int64, to > 0 else { continue }
            let p = ConnectionParameters(interval: i, latency: r[3].int ?? 0, supervisionTimeout: to.saturatingMultiplied(by: 1000))
            if c.parameters == nil { c.parameters = p }
            c.parameterUpdates.append((clock.time(frame: packet, raw: t).saturatingSubtracting(c.origin), p, packet))
        }
        // One list in the order they happened (each kind was read in its own).
        c.linkEvents.sort { ($0.offset, $0.packetID) < ($1.offset, $1.packetID) }
    }

    /// Pairing and encryption of a connection (RecordedSecurityEvent): SMP Pairing Request (0x01)
    /// and Security Request (0x0B), Pairing Failed with its reason (the `error` row of layer
    /// 'smp'), Encryption Change and Key Refresh Complete with their status.
    static func loadSecurity(_ c: inout RecordedConnection, _ q: Statements, clock: RecordingClock) throws {
        let id = SQLiteValue.integer(c.id)
        var events: [RecordedSecurityEvent] = []
        for r in try q.rows("SELECT packet_id, ts_us FROM smp_event WHERE connection_id = ?1 AND code IN (1, 11) ORDER BY packet_id", [id]) {
            guard let p = r[0].int, let t = r[1].int64 else { continue }
            events.append(RecordedSecurityEvent(kind: .pairingStarted, time: clock.time(frame: p, raw: t).saturatingSubtracting(c.origin), packetID: p))
        }
        for r in try q.rows("SELECT packet_id, ts_us, code FROM error WHERE connection_id = ?1 AND layer = 'smp' ORDER BY packet_id", [id]) {
            guard let p = r[0].int, let t = r[1].int64, let code = r[2].int else { continue }
            events.append(RecordedSecurityEvent(kind: .pairingFailed(reason: UInt8(truncatingIfNeeded: code)), time: clock.time(frame: p, raw: t).saturatingSubtracting(c.origin), packetID: p))
        }
        for r in try q.rows("""
            SELECT packet_id, ts_us, coalesce(status, 0), detail FROM link_event WHERE connection_id = ?1
            AND name IN ('Encryption Change', 'Encryption Key Refresh Complete') ORDER BY packet_id
            """, [id]) {
            guard let p = r[0].int, let t = r[1].int64 else { continue }
            let status = UInt8(truncatingIfNeeded: r[2].int ?? 0)
            events.append(RecordedSecurityEvent(kind: .encryptionChange(status: status, enabled: status == 0 && r[3].string != "disabled"),
                                                time: clock.time(frame: p, raw: t).saturatingSubtracting(c.origin), packetID: p))
        }
        c.security = events.sorted { ($0.time, $0.packetID) < ($1.time, $1.packetID) }
    }

    /// Every advertiser of the capture (Docs/replay.md "The peripheral model"): the data of its last
    /// advertising report (of the last connectable one when it sent any: what a connecting central
    /// answered), its last scan response, its interval and median RSSI, whether it was connectable
    /// (any report with the connectable property) and scannable, and its address type.
    static func advertising(_ captureID: Int64, gatt: [String: GATTDatabase], db: SQLiteDatabase,
                            clock: RecordingClock) throws -> [String: AdvertisingModel] {
        typealias Report = (t: Int64, connectable: Bool, scannable: Bool, scanResponse: Bool, rssi: Int?, data: [UInt8], addressType: String?)
        var reports: [String: [Report]] = [:]
        for r in try db.rows("""
            SELECT address, ts_us, event_type, scan_response, rssi, data, extended, address_type, packet_id FROM adv_report WHERE capture_id = ?1 ORDER BY packet_id
            """, [.integer(captureID)]) {
            guard let a = r[0].string, let raw = r[1].int64 else { continue }
            let t = clock.time(frame: r[8].int, raw: raw)
            let p = AdvertisingModel.properties(eventType: r[2].int ?? 0, extended: (r[6].int ?? 0) != 0)
            reports[a, default: []].append((t, p.connectable, p.scannable, (r[3].int ?? 0) != 0, r[4].int, r[5].blob ?? [],
                                            r[7].string))
        }
        var out: [String: AdvertisingModel] = [:]
        for (address, list) in reports {
            let adv = list.filter { !$0.scanResponse }
            let rsp = list.filter { $0.scanResponse }
            let connectable = adv.contains { $0.connectable }
            let kept = connectable ? adv.filter(\.connectable) : adv
            guard let data = kept.last(where: { !$0.data.isEmpty })?.data ?? kept.last?.data else { continue }
            let rssis = list.compactMap(\.rssi).filter { $0 != 127 }.sorted()
            let rssi = rssis.isEmpty ? -60 : rssis[rssis.count / 2]
            var model = AdvertisingModel(advertisingData: data, scanResponse: rsp.last?.data,
                                            interval: AdvertisingModel.estimateInterval(reportTimes: adv.map(\.t)),
                                            rssi: Int8(clamping: rssi), connectable: connectable,
                                            scannable: !rsp.isEmpty || kept.contains { $0.scannable },
                                            addressType: adv.last?.addressType, synthesized: false, reportCount: list.count)
            model.lastReportTime = list.map(\.t).max()
            out[address] = model
        }
        return out
    }
}
