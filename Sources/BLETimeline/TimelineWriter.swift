import BLECore
import BLEDecode

/// Writes one capture's decoded packets into the timeline through prepared statements.
///
/// Owns the per-capture state that turns decoder facts into rows: connection ordinals to
/// row ids, MTU exchanges, pending commands awaiting their Command Complete/Status.
final class TimelineWriter {
    let db: SQLiteDatabase
    let captureID: Int64
    let keepRaw: Bool
    let keepKeys: Bool
    let mapping: DisconnectMapping

    let insertPacket: SQLiteStatement
    /// What `insertPacket` and `insertATT` hold bound from the row before (`RepeatedBindings`).
    private var packetBindings = RepeatedBindings()
    private var attBindings = RepeatedBindings()
    let insertAdv: SQLiteStatement
    private let insertATT: SQLiteStatement
    private let insertSMP: SQLiteStatement
    private let insertError: SQLiteStatement
    private let insertLinkEvent: SQLiteStatement
    private let insertCommand: SQLiteStatement
    private let insertProblem: SQLiteStatement
    private let insertConnection: SQLiteStatement
    private let insertUpdate: SQLiteStatement

    /// Per connection, by ordinal (ConnectionRef.index): its row id and the state its rows are derived from.
    private var connections = WriterConnections()
    /// Last command row per opcode still waiting for its result.
    private var pendingCommands: [UInt16: Int64] = [:]
    /// True after LE Create Connection Cancel, until the next connection completes.
    private var createConnectionCancelled = false
    /// The peer the latest LE (Extended) Create Connection named (nil: the accept list), until an
    /// LE connection completes.
    private var pendingCreateTarget: (address: BluetoothAddress, type: AddressType)?

    private(set) var records = 0
    private(set) var malformedPackets = 0
    private(set) var droppedPackets = 0
    private(set) var firstTimestamp: Int64?
    /// Connection rows written so far (a new one names its packet in `first_packet_id`).
    private(set) var connectionRowsWritten = 0
    /// Report-only mode: see `TimelineWriter+ReferencedPackets.swift`.
    var referencedPacketRowsOnly = false
    /// Whether `writePacketScan` stores the scan: not for the report, even where it keeps every
    /// packet row (an air capture, `Importer`).
    var storesPacketScan = true
    var referencedRows = ReferencedPacketRows()
    /// Report-only mode too: see `TimelineWriter+PeerAdvertising.swift`.
    var advertisingOfPeersOnly = false
    var peerAdvertising = PeerAdvertisingReports()
    var advertisingHoldLimit = PeerAdvertisingReports.holdLimit
    /// The latest record timestamp (records are not always in time order).
    private(set) var lastTimestamp: Int64?
    /// What a replay's packet scan finds in the rows written (issue 12; `writePacketScan`).
    private var packetScan = PacketScanAccumulator()

    init(database: SQLiteDatabase, captureID: Int64, keepRaw: Bool, keepKeys: Bool,
         mapping: DisconnectMapping = .default) throws(SQLiteError) {
        db = database
        self.captureID = captureID
        self.keepRaw = keepRaw
        self.keepKeys = keepKeys
        self.mapping = mapping
        insertPacket = try db.prepare("""
            INSERT INTO packet (rowid, ts_us, direction, kind, length, layer, summary, connection_id,
                                file_offset, controller_index, raw_type, malformed, raw)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
            """)
        insertAdv = try db.prepare("""
            INSERT INTO adv_report (capture_id, packet_id, ts_us, address, address_type, event_type, extended,
                                    scan_response, rssi, name, tx_power, data)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
            """)
        insertATT = try db.prepare("""
            INSERT INTO att_pdu (capture_id, packet_id, ts_us, connection_id, direction, opcode, opcode_name,
                                 handle, error_code, request_opcode, value_offset, value_length, malformed, pdu, bearer, cut)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
            """)
        insertSMP = try db.prepare("""
            INSERT INTO smp_event (capture_id, packet_id, ts_us, connection_id, direction, code, name, detail)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """)
        insertError = try db.prepare("""
            INSERT INTO error (capture_id, packet_id, ts_us, connection_id, layer, context, code, name, cb_error, opcode, handle)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
            """)
        insertLinkEvent = try db.prepare("""
            INSERT INTO link_event (capture_id, packet_id, ts_us, connection_id, name, status, detail)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
            """)
        insertCommand = try db.prepare("""
            INSERT INTO command (capture_id, packet_id, ts_us, connection_id, opcode, name)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            """)
        insertProblem = try db.prepare("""
            INSERT INTO decode_problem (capture_id, packet_id, layer, kind, file_offset, reason)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            """)
        insertConnection = try db.prepare("""
            INSERT INTO connection (capture_id, ordinal, handle, transport, peer_address, peer_address_type, role,
                                    status, interval_us, latency, supervision_timeout_ms, connected_ts_us,
                                    began_before_capture, complete_packet_id, first_packet_id, last_packet_id,
                                    disconnected_ts_us, controller_index)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
            """)
        insertUpdate = try db.prepare("""
            INSERT INTO connection_update (connection_id, packet_id, ts_us, source, status, interval_us,
                                           interval_max_us, latency, supervision_timeout_ms)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """)
    }

    // MARK: - Packets

    func write(_ record: CaptureRecord, _ packet: DecodedPacket) throws(SQLiteError) {
        records += 1
        if firstTimestamp == nil { firstTimestamp = record.timestamp }
        lastTimestamp = max(lastTimestamp ?? record.timestamp, record.timestamp)
        let frame = record.frameNumber
        let ts = record.timestamp

        // Events first: a connection row may be created by this very packet.
        let connectionsBefore = connectionRowsWritten
        for event in packet.events {
            try handle(event, frame: frame, ts: ts, record: record)
        }
        let connectionID = id(packet.connection)
        if let ref = packet.connection { connections[ref.index]?.lastPacketID = frame }

        if referencedPacketRowsOnly {
            try holdPacketRow(record, packet, connectionID: connectionID,
                          namedByNewConnection: connectionRowsWritten != connectionsBefore)
        } else {
            let s = insertPacket
            bindPacketColumns(record, packet, connectionID: connectionID)
            if keepRaw && !keepKeys && !packet.secretRanges.isEmpty {
                var payload = record.payload
                Redaction.zero(&payload, frame: frame, packet.secretRanges)
                try s.run(borrowing: packet.summary, at: 7, payload, at: 13)
                packetScan.add(key: PacketKey.make(capture: captureID, frame: frame), ts: ts, kind: record.kind,
                               direction: packet.direction ?? record.direction, controller: record.controllerIndex, raw: payload)
                try redactEarlierRecords(packet.secretRanges, frame: frame)
            } else {
                try s.run(borrowing: packet.summary, at: 7, keepRaw ? record.payload : nil, at: 13)
                packetScan.add(key: PacketKey.make(capture: captureID, frame: frame), ts: ts, kind: record.kind,
                               direction: packet.direction ?? record.direction, controller: record.controllerIndex,
                               raw: keepRaw ? record.payload : nil)
            }
        }

        if !packet.problems.isEmpty {
            // A problem about an earlier record (an L2CAP PDU it began, discarded incomplete:
            // `DecodeError.frame`) is recorded there; this record is not malformed for it.
            if packet.problems.contains(where: { $0.frame == nil }) { malformedPackets += 1 }
            for p in packet.problems {
                try problem(p, frame: p.frame ?? frame)
            }
        }
    }

    /// Binds every column of `insertPacket` but the summary (7) and the raw bytes (13).
    @inline(__always)
    func bindPacketColumns(_ record: CaptureRecord, _ packet: DecodedPacket, connectionID: Int64?) {
        bindPacketColumns(PacketRowColumns(record, packet), connectionID: connectionID)
    }

    func bindPacketColumns(_ c: PacketRowColumns, connectionID: Int64?) {
        let s = insertPacket
        var b = packetBindings
        defer { packetBindings = b }
        s.bindInt(PacketKey.make(capture: captureID, frame: c.frame), at: 1)
        s.bindInt(c.timestamp, at: 2)
        b.bindStatic(c.direction.sqlName, at: 3, of: s)
        b.bindStatic(c.kind.sqlName, at: 4, of: s)
        b.bindInt(c.originalLength, at: 5, of: s)
        b.bindStatic(c.layer.sqlName, at: 6, of: s)
        b.bindInt(connectionID, at: 8, of: s)
        s.bindInt(c.fileOffset, at: 9)
        b.bindInt(Int(c.controllerIndex), at: 10, of: s)
        b.bindInt(Int(c.rawType), at: 11, of: s)
        b.bindInt(c.malformed ? 1 : 0, at: 12, of: s)
    }

    func problem(_ p: DecodeError, frame: Int?) throws(SQLiteError) {
        let s = insertProblem
        s.bindInt(captureID, at: 1)
        s.bindInt(frame, at: 2)
        s.bindText(p.layer.rawValue, at: 3)
        s.bindText(p.kind.rawValue, at: 4)
        s.bindInt(p.offset, at: 5)
        s.bindText(p.reason, at: 6)
        try s.run()
    }

    // MARK: - Events

    private func id(_ ref: ConnectionRef?) -> Int64? { ref.flatMap { connections.rowID($0.index) } }

    private func handle(_ event: DecodedEvent, frame: Int, ts: Int64, record: CaptureRecord) throws(SQLiteError) {
        switch event {
        case .advertisingReport(let r):
            try advertisingReport(r, frame: frame, ts: ts)

        case .connectionComplete(let c):
            let connected = c.status.rawValue == 0
            // A failed or cancelled attempt reports an all-zero peer (7.7.65.1): the peer is the
            // one the LE Create Connection named, when it named one (not the accept list).
            let target = !connected && c.peerAddress.array.allSatisfy { $0 == 0 } ? pendingCreateTarget : nil
            let rowID = try insertConnectionRow(
                ref: c.connection, transport: c.transport, peer: (target?.address ?? c.peerAddress).description,
                peerType: c.transport == .le ? (target?.type ?? c.peerAddressType).name : nil,
                role: c.role.map { $0 == 0 ? "central" : "peripheral" }, status: Int(c.status.rawValue),
                interval: c.transport == .le ? c.interval : nil, latency: c.transport == .le ? c.peripheralLatency : nil,
                timeout: c.transport == .le ? c.supervisionTimeout : nil,
                connectedAt: connected ? ts : nil, beganBefore: false, frame: frame, controller: record.controllerIndex)
            if !connected {
                let cancelled = c.status == .unknownConnectionIdentifier && createConnectionCancelled
                let cb = CoreBluetoothErrorRule.connectionFailure(
                    status: c.status, cancelled: cancelled, isLE: c.transport == .le,
                    localRole: c.role == 1 ? "peripheral" : "central", mapping: mapping)
                try error(frame: frame, ts: ts, connection: rowID, layer: "hci", context: "connection",
                          code: Int(c.status.rawValue), name: c.status.name, cbError: cb)
            }
            createConnectionCancelled = false
            if c.transport == .le { pendingCreateTarget = nil }

        case .connectionFoundInProgress(let ref, let transport):
            _ = try insertConnectionRow(ref: ref, transport: transport, peer: nil, peerType: nil, role: nil,
                                        status: 0, interval: nil, latency: nil, timeout: nil, connectedAt: nil,
                                        beganBefore: true, frame: frame, controller: record.controllerIndex)

        case .transportLearned(let ref, let transport, let clue):
            // The clue is kept as a link event ("Transport", "br/edr: Mode Change"): the diagnosis
            // says how it knows a link found in progress is LE or BR/EDR, or that it does not.
            guard let rowID = id(ref) else { return }
            try db.run("UPDATE connection SET transport = ?1 WHERE id = ?2", [.text(transport.rawValue), .integer(rowID)])
            connections[ref.index]?.isLE = transport == .le
            try linkEvent(frame: frame, ts: ts, connection: rowID, name: "Transport", status: nil,
                          detail: transport.rawValue + ": " + clue)

        case .disconnectionComplete(let d):
            let rowID = id(d.connection)
            if d.status.rawValue == 0, let rowID {
                try db.run("""
                    UPDATE connection SET disconnected_ts_us = ?1, disconnect_reason = ?2, disconnect_packet_id = ?3
                    WHERE id = ?4
                    """, [.integer(ts), .integer(Int64(d.reason.rawValue)), .integer(Int64(frame)), .integer(rowID)])
            }
            if d.status.rawValue == 0 {
                let state = d.connection.flatMap { connections[$0.index] }
                // A handle never seen connecting or found in progress: the transport is unknown, so no
                // CoreBluetooth name. An ATT timeout is not known here (transactions are matched by the analysis).
                let cb = state.flatMap { st in
                    CoreBluetoothErrorRule.disconnect(
                        reason: d.reason, isLE: st.isLE, localRole: st.localRole,
                        localDisconnectRequested: st.localDisconnectRequested, keyMissingBefore: st.keyMissing,
                        attTimeoutBefore: false, mapping: mapping)
                }
                try error(frame: frame, ts: ts, connection: rowID, layer: "hci", context: "disconnect",
                          code: Int(d.reason.rawValue), name: d.reason.name, cbError: rowID == nil ? nil : cb)
            } else {
                try error(frame: frame, ts: ts, connection: rowID, layer: "hci", context: "disconnect-failed",
                          code: Int(d.status.rawValue), name: d.status.name, cbError: nil)
                // "Disconnection failed to complete" (Core v5.4 Vol 4 Part E 7.7.5): the link stays
                // up, and the host's Disconnect ended nothing.
                if let rowID, let ref = d.connection { try localDisconnectFailed(ref, rowID: rowID) }
            }

        case .connectionUpdate(let u):
            guard let rowID = id(u.connection) else { return }
            try update(rowID, frame: frame, ts: ts, source: "hci", status: Int(u.status.rawValue),
                       interval: u.interval, intervalMax: nil, latency: u.peripheralLatency, timeout: u.supervisionTimeout)
            if u.status.rawValue != 0 {
                try error(frame: frame, ts: ts, connection: rowID, layer: "hci", context: "connection-update",
                          code: Int(u.status.rawValue), name: u.status.name, cbError: nil)
            } else if let ref = u.connection, connections[ref.index]?.intervalKnown == false {
                // A connection found in progress learns its parameters from the first update.
                try db.run("""
                    UPDATE connection SET interval_us = ?1, latency = ?2, supervision_timeout_ms = ?3 WHERE id = ?4
                    """, [.integer(Int64(u.interval) * 1250), .integer(Int64(u.peripheralLatency)),
                               .integer(Int64(u.supervisionTimeout) * 10), .integer(rowID)])
                connections[ref.index]?.intervalKnown = true
            }

        case .command(let c):
            let rowID = id(c.connection)
            let s = insertCommand
            s.bindInt(captureID, at: 1)
            s.bindInt(frame, at: 2)
            s.bindInt(ts, at: 3)
            s.bindInt(rowID, at: 4)
            s.bindInt(Int(c.opcode), at: 5)
            s.bindText(c.name, at: 6)
            try s.run()
            pendingCommands[c.opcode] = db.lastInsertRowID
            if c.opcode == 0x0406, let rowID, let ref = c.connection {   // HCI_Disconnect
                // A second one while the first is under way leaves it as it stands.
                if connections[ref.index]?.localDisconnect == WriterConnections.LocalDisconnect.none {
                    connections[ref.index]?.localDisconnect = .sent
                }
                try db.run("UPDATE connection SET local_disconnect_requested = 1 WHERE id = ?1", [.integer(rowID)])
            }
            if c.opcode == 0x200E { createConnectionCancelled = true }   // LE Create Connection Cancel
            if c.opcode == 0x200D || c.opcode == 0x2043 || c.opcode == 0x2085 {   // LE (Extended) Create Connection
                pendingCreateTarget = c.usesFilterAcceptList ? nil : c.peerAddress.map { ($0, c.peerAddressType ?? .public) }
            }

        case .commandResult(let r):
            if let pending = pendingCommands.removeValue(forKey: r.opcode) {
                try db.run("UPDATE command SET result_packet_id = ?1, status = ?2 WHERE rowid = ?3", [.integer(Int64(frame)), r.status.map { .integer(Int64($0.rawValue)) } ?? .null, .integer(pending)])
            }
            if r.opcode == 0x0406, let status = r.status, let ref = r.connection, let rowID = id(ref) {   // HCI_Disconnect
                // Refused (Command Status, 7.7.15) with none accepted before it: no request to end the link.
                if status.rawValue == 0 {
                    connections[ref.index]?.localDisconnect = .accepted
                } else if connections[ref.index]?.localDisconnect == .sent {
                    try localDisconnectFailed(ref, rowID: rowID)
                }
            }
            if let status = r.status, status.rawValue != 0 {
                try error(frame: frame, ts: ts, connection: id(r.connection), layer: "hci", context: "command",
                          code: Int(status.rawValue), name: status.name, cbError: nil, opcode: Int(r.opcode))
            }
            // A vendor command's first return byte is the vendor's (Core v5.4 Vol 4 Part E 5.4.1):
            // a row of its own layer, never an HCI code (the command row's status stays NULL);
            // context 'status' where the command's definer documents a status, else 'return'.
            if let v = r.vendorReturn, v.firstByte != 0 {
                try error(frame: frame, ts: ts, connection: id(r.connection), layer: "vendor", context: v.isStatus ? "status" : "return",
                          code: Int(v.firstByte), name: v.name, cbError: nil, opcode: Int(r.opcode))
            }

        case .encryptionChange(let e):
            let rowID = id(e.connection)
            let name = e.isKeyRefresh ? "Encryption Key Refresh Complete" : "Encryption Change"
            let detail = e.enabled.map { $0 ? "enabled" : "disabled" }
            try linkEvent(frame: frame, ts: ts, connection: rowID, name: name, status: Int(e.status.rawValue), detail: detail)
            if e.status.rawValue != 0 {
                let state = e.connection.flatMap { connections[$0.index] }
                if e.status.rawValue == 0x06, let ref = e.connection { connections[ref.index]?.keyMissing = true }
                try error(frame: frame, ts: ts, connection: rowID, layer: "hci", context: "encryption",
                          code: Int(e.status.rawValue), name: e.status.name,
                          cbError: CoreBluetoothErrorRule.encryptionFailure(
                            status: e.status, isLE: state?.isLE ?? true, localRole: state?.localRole))
            } else if e.enabled == true, let rowID, let ref = e.connection {
                connections[ref.index]?.encrypted = true
                try db.run("UPDATE connection SET encrypted = 1 WHERE id = ?1", [.integer(rowID)])
            }

        case .linkEvent(let l):
            let rowID = id(l.connection)
            try linkEvent(frame: frame, ts: ts, connection: rowID, name: l.name,
                          status: l.status.map { Int($0.rawValue) }, detail: LinkEventDetail.text(l.fields))
            if l.recordsError, let status = l.status, status.rawValue != 0 {
                try error(frame: frame, ts: ts, connection: rowID, layer: "hci", context: "link",
                          code: Int(status.rawValue), name: status.name, cbError: nil)
            }

        case .hardwareError(let code):
            try linkEvent(frame: frame, ts: ts, connection: nil, name: "Hardware Error", status: Int(code), detail: nil)
            try error(frame: frame, ts: ts, connection: nil, layer: "hci", context: "hardware-error",
                      code: Int(code), name: "Hardware Error \(hex(code))", cbError: nil)

        case .att(let a):
            try writeATT(a, frame: frame, ts: ts)

        case .smp(let e):
            guard let rowID = id(e.connection) else { return }
            let s = insertSMP
            s.bindInt(captureID, at: 1)
            s.bindInt(frame, at: 2)
            s.bindInt(ts, at: 3)
            s.bindInt(rowID, at: 4)
            s.bindText(e.direction.rawValue, at: 5)
            s.bindInt(Int(e.code.rawValue), at: 6)
            s.bindText(e.code.name, at: 7)
            s.bindText(e.pdu?.summary(keepKeys: keepKeys) ?? e.problem.map { "malformed: \($0.reason)" }, at: 8)
            try s.run()
            if let reason = e.pdu?.failureReason {
                try error(frame: frame, ts: ts, connection: rowID, layer: "smp", context: "pairing-failed",
                          code: Int(reason.rawValue), name: reason.name, cbError: nil)
            }

        case .signaling(let sig):
            guard let rowID = id(sig.connection) else { return }
            if sig.code == 0x01, let reason = sig.result {   // Command Reject
                let names = [0: "Command not understood", 1: "Signaling MTU exceeded", 2: "Invalid CID in request"]
                try error(frame: frame, ts: ts, connection: rowID, layer: "l2cap", context: "command-reject",
                          code: Int(reason), name: names[Int(reason)] ?? "Unknown reason \(hex(reason, width: 4))", cbError: nil)
            } else if sig.code == 0x12, let p = sig.parameters {   // Connection Parameter Update Request
                try update(rowID, frame: frame, ts: ts, source: "l2cap-request", status: nil, interval: p.intervalMin,
                           intervalMax: p.intervalMax, latency: p.latency, timeout: p.timeout)
            } else if sig.code == 0x13, let result = sig.result, result != 0 {
                try error(frame: frame, ts: ts, connection: rowID, layer: "l2cap", context: "parameter-update-rejected",
                          code: Int(result), name: "Connection Parameters Rejected", cbError: nil)
            } else if sig.code == 0x15 || sig.code == 0x18, let result = sig.result, L2CAPSignaling.refusesCreditConnection(result) {
                // (LE) Credit Based Connection Response refusing (Vol 3 Part A 4.23, 4.26): EATT bearers, LE CoC.
                try error(frame: frame, ts: ts, connection: rowID, layer: "l2cap", context: "credit-connection-refused",
                          code: Int(result), name: L2CAPSignaling.creditResult(result), cbError: nil)
            }

        case .controllerClosed(let ref, let note):
            // The link's end with no reason: the record that closed its controller.
            guard let rowID = id(ref) else { return }
            try db.run("UPDATE connection SET disconnected_ts_us = ?1, disconnect_packet_id = ?2 WHERE id = ?3",
                       [.integer(ts), .integer(Int64(frame)), .integer(rowID)])
            try linkEvent(frame: frame, ts: ts, connection: rowID, name: LinkEventName.controllerClosed(note), status: nil,
                          detail: "controller=hci\(record.controllerIndex) disconnection_complete=none")

        case .linkReplaced(let ref, _):
            // Ended at the latest here, with no reason: the new link's Connection Complete.
            guard let rowID = id(ref) else { return }
            try db.run("UPDATE connection SET disconnected_ts_us = ?1, disconnect_packet_id = ?2 WHERE id = ?3",
                       [.integer(ts), .integer(Int64(frame)), .integer(rowID)])
            try linkEvent(frame: frame, ts: ts, connection: rowID, name: LinkEventName.handleReused, status: nil,
                          detail: "handle=\(hex(ref.handle, width: 4)) disconnection_complete=none")

        case .dropped(let count):
            droppedPackets += count
            try problem(DecodeError(layer: .capture, offset: record.fileOffset, kind: .truncated,
                                    reason: WriterDropsProblem.reason(count: count)), frame: frame)
        }
    }

    private func writeATT(_ a: ATTEvent, frame: Int, ts: Int64) throws(SQLiteError) {
        guard let rowID = id(a.connection) else { return }
        let pdu = a.pdu
        let op = a.opcode.rawValue
        var requestOpcode: Int?
        if op == 0x01, a.bytes.count >= 2 { requestOpcode = Int(a.bytes[1]) }
        let s = insertATT
        var b = attBindings
        defer { attBindings = b }
        b.bindInt(captureID, at: 1, of: s)
        s.bindInt(frame, at: 2)
        s.bindInt(ts, at: 3)
        b.bindInt(rowID, at: 4, of: s)
        b.bindStatic(a.direction.sqlName, at: 5, of: s)
        b.bindInt(Int(op), at: 6, of: s)
        b.bindInt(pdu?.attributeHandle.map { Int($0) }, at: 8, of: s)
        b.bindInt(pdu?.errorCode.map { Int($0.rawValue) }, at: 9, of: s)
        b.bindInt(requestOpcode, at: 10, of: s)
        // The value is a slice of the PDU (a malformed PDU keeps all its bytes as the value).
        if a.isCut {
            // A cut PDU's value is unknown: none, not the bytes that were left.
            b.bindInt(nil as Int?, at: 11, of: s)
            b.bindInt(nil as Int?, at: 12, of: s)
        } else if pdu == nil {
            b.bindInt(0, at: 11, of: s)
            b.bindInt(a.bytes.count, at: 12, of: s)
        } else if let value = pdu?.value {
            // Signed Write Command: the value sits between the handle and the 12-byte signature
            // (Core v5.4 Vol 3 Part F 3.4.5.4); every other value runs to the end of the PDU.
            b.bindInt(op == 0xD2 ? 3 : a.bytes.count - value.count, at: 11, of: s)
            b.bindInt(value.count, at: 12, of: s)
        } else {
            b.bindInt(nil as Int?, at: 11, of: s)
            b.bindInt(nil as Int?, at: 12, of: s)
        }
        b.bindInt(pdu == nil && !a.isCut ? 1 : 0, at: 13, of: s)
        b.bindInt(a.bearer.map { Int($0) }, at: 15, of: s)
        b.bindInt(a.isCut ? 1 : 0, at: 16, of: s)
        try s.run(borrowing: a.opcode.name, at: 7, a.bytes, at: 14)

        if let code = pdu?.errorCode {
            try error(frame: frame, ts: ts, connection: rowID, layer: "att", context: "error-response",
                      code: Int(code.rawValue), name: code.name, cbError: CoreBluetoothNames.attErrorName(code),
                      opcode: requestOpcode, handle: pdu?.attributeHandle.map { Int($0) })
        }
        // Exchange MTU (Core v5.4 Vol 3 Part F 3.4.2): ATT_MTU = min(Client Rx MTU, Server Rx MTU).
        if (op == 0x02 || op == 0x03), pdu != nil, a.bytes.count >= 3 {
            let value = UInt16(a.bytes[1]) | UInt16(a.bytes[2]) << 8
            connections[a.connection.index]?.exchanged(clientRx: op == 0x02 ? value : nil, serverRx: op == 0x03 ? value : nil)
        }
    }

    // MARK: - Row helpers

    private func insertConnectionRow(ref: ConnectionRef, transport: Transport, peer: String?, peerType: String?,
                                     role: String?, status: Int, interval: UInt16?, latency: UInt16?, timeout: UInt16?,
                                     connectedAt: Int64?, beganBefore: Bool, frame: Int,
                                     controller: UInt16) throws(SQLiteError) -> Int64 {
        let s = insertConnection
        s.bindInt(captureID, at: 1)
        s.bindInt(ref.index, at: 2)
        s.bindInt(Int(ref.handle), at: 3)
        s.bindText(transport.rawValue, at: 4)
        s.bindText(peer, at: 5)
        s.bindText(peerType, at: 6)
        s.bindText(role, at: 7)
        s.bindInt(status, at: 8)
        s.bindInt(interval.map { Int($0) * 1250 }, at: 9)
        s.bindInt(latency.map { Int($0) }, at: 10)
        s.bindInt(timeout.map { Int($0) * 10 }, at: 11)
        s.bindInt(connectedAt, at: 12)
        s.bindInt(beganBefore ? 1 : 0, at: 13)
        s.bindInt(beganBefore ? nil : frame, at: 14)
        s.bindInt(frame, at: 15)
        s.bindInt(frame, at: 16)
        s.bindInt(nil as Int?, at: 17)
        s.bindInt(Int(controller), at: 18)
        try s.run()
        let rowID = db.lastInsertRowID
        connectionRowsWritten += 1
        var st = WriterConnections.State(rowID: rowID)
        // Only a link found in progress learns its parameters from its first update: a Connection
        // Complete the capture cut before its parameters left them unknown, not the update's.
        st.intervalKnown = interval != nil || !beganBefore
        st.isLE = transport == .le
        st.isLocalCentral = role.map { $0 == "central" }
        connections.add(ordinal: ref.index, st)
        return rowID
    }

    private func update(_ rowID: Int64, frame: Int, ts: Int64, source: String, status: Int?, interval: UInt16,
                        intervalMax: UInt16?, latency: UInt16, timeout: UInt16) throws(SQLiteError) {
        let s = insertUpdate
        s.bindInt(rowID, at: 1)
        s.bindInt(frame, at: 2)
        s.bindInt(ts, at: 3)
        s.bindText(source, at: 4)
        s.bindInt(status, at: 5)
        s.bindInt(Int(interval) * 1250, at: 6)
        s.bindInt(intervalMax.map { Int($0) * 1250 }, at: 7)
        s.bindInt(Int(latency), at: 8)
        s.bindInt(Int(timeout) * 10, at: 9)
        try s.run()
    }

    /// The host's Disconnect on `ref` failed (refused, or failed to complete): the link is as if
    /// none had been sent, until the next one.
    private func localDisconnectFailed(_ ref: ConnectionRef, rowID: Int64) throws(SQLiteError) {
        guard connections[ref.index]?.localDisconnectRequested == true else { return }
        connections[ref.index]?.localDisconnect = .none
        try db.run("UPDATE connection SET local_disconnect_requested = 0 WHERE id = ?1", [.integer(rowID)])
    }

    private func linkEvent(frame: Int, ts: Int64, connection: Int64?, name: String, status: Int?, detail: String?) throws(SQLiteError) {
        let s = insertLinkEvent
        s.bindInt(captureID, at: 1)
        s.bindInt(frame, at: 2)
        s.bindInt(ts, at: 3)
        s.bindInt(connection, at: 4)
        s.bindText(name, at: 5)
        s.bindInt(status, at: 6)
        s.bindText(detail, at: 7)
        try s.run()
    }

    private func error(frame: Int, ts: Int64, connection: Int64?, layer: String, context: String, code: Int,
                       name: String, cbError: String?, opcode: Int? = nil, handle: Int? = nil) throws(SQLiteError) {
        let s = insertError
        s.bindInt(captureID, at: 1)
        s.bindInt(frame, at: 2)
        s.bindInt(ts, at: 3)
        s.bindInt(connection, at: 4)
        s.bindText(layer, at: 5)
        s.bindText(context, at: 6)
        s.bindInt(code, at: 7)
        s.bindText(name, at: 8)
        s.bindText(cbError, at: 9)
        s.bindInt(opcode, at: 10)
        s.bindInt(handle, at: 11)
        try s.run()
    }

    // MARK: - End of capture

    /// Writes what is only known at the end: MTUs, last packets per connection.
    func finish() throws(SQLiteError) {
        if referencedPacketRowsOnly { try writeReferencedPacketRows() }
        if advertisingOfPeersOnly { try writePeerAdvertisingReports() }
        let s = try db.prepare("""
            UPDATE connection SET mtu = ?1, client_rx_mtu = ?2, server_rx_mtu = ?3, last_packet_id = max(last_packet_id, ?4)
            WHERE id = ?5
            """)
        try connections.forEach { st throws(SQLiteError) in
            s.bindInt(Int(st.mtu), at: 1)
            s.bindInt(st.clientRxMTU.map { Int($0) }, at: 2)
            s.bindInt(st.serverRxMTU.map { Int($0) }, at: 3)
            s.bindInt(st.lastPacketID, at: 4)
            s.bindInt(st.rowID, at: 5)
            try s.run()
        }
    }

    /// Stores what a replay's packet scan finds (`capture_packet_scan`, issue 12), once the
    /// capture's last record is written: not in report-only mode, whose packet rows are a part.
    func writePacketScan() throws(SQLiteError) {
        guard !referencedPacketRowsOnly, storesPacketScan else { return }
        try packetScan.result().write(captureID, db: db)
    }
}
