import BLECore
import BLEDecode
import BLETimeline

/// Derives the findings of one capture from its timeline rows.
///
/// Each `…Findings` method covers one family of codes (the diagnosis issue lists them);
/// every finding names the packets that prove it.
struct FindingsEngine {
    let db: SQLiteDatabase
    let captureID: Int64
    let captureEnd: Int64
    let mapping = DisconnectMapping.default
    /// How far a sniffer's capture shows each link (HCI captures show them to the end).
    let air: AirObservation
    /// The capture's Number Of Completed Packets, read once for all its lost links.
    let completions: CompletionEvents

    init(db: SQLiteDatabase, captureID: Int64, captureEnd: Int64) throws {
        self.db = db
        self.captureID = captureID
        self.captureEnd = captureEnd
        air = try AirObservation(captureID: captureID, db: db)
        completions = CompletionEvents(db: db, captureID: captureID)
    }
    /// Per connection, the requests `TransactionMatcher` saw sent while another was outstanding
    /// (only connections that had any): `att-request-while-outstanding`.
    var attOverlaps: [Int64: ATTRequestOverlaps] = [:]

    /// Hands `emit` the capture's findings, then each connection's in turn: with tens of
    /// thousands of links they are stored as they come, not held all at once. Only the findings
    /// `FindingGroups` may merge wait for the end, where the repeated ones become one.
    ///
    /// - Parameter readers: when given, the connections' findings are made on its threads, each
    ///   reading through a connection of its own (`ParallelFindings`); the caller's writes then
    ///   go through `readers.writing`. Nil: all on this thread, as `emit` comes.
    func findings(for connections: CaptureConnections, readers: ParallelFindings? = nil,
                  _ emit: ([Finding]) throws -> Void) throws {
        let platform = try CapturePlatform.infer(captureID: captureID, from: db)
        let writing = readers?.writing ?? { try $0() }
        try writing {
            try captureFindings(connections, emit)
            try emit(try cancelledAttemptFindings(connections, platform: platform))
            try emit(try unansweredCancelFindings(connections))
            try emit(try androidHostFindings(connections, platform: platform.platform))
            try emit(try applePendingConnectFindings(connections, platform: platform.platform))
        }
        let losses = try LinkLossOnsets(connections, engine: self)
        var groupable: [Finding] = []
        func emitConnection(_ out: [Finding]) throws {
            groupable += out.filter { FindingGroups.groupedCodes.contains($0.code) }
            try emit(out.filter { !FindingGroups.groupedCodes.contains($0.code) })
        }
        if let readers {
            try readers.run(connections, engine: self, losses: losses, platform: platform) { chunk in
                try writing { for out in chunk { try emitConnection(out) } }
            }
        } else {
            var earlier = EarlierConnections()
            try connections.forEach { c in
                try emitConnection(try connectionFindings(c, earlier: earlier, losses: losses, platform: platform))
                earlier.add(c)
            }
        }
        try writing { try emit(FindingGroups.groupRepeated(groupable)) }
    }

    /// One connection's own findings; `earlier` holds the connections before it.
    func connectionFindings(_ c: ConnectionFacts, earlier: EarlierConnections, losses: LinkLossOnsets,
                            platform: CapturePlatform.Inference) throws -> [Finding] {
        var out: [Finding] = []
        out += try establishmentFindings(c, earlier: earlier)
        out += try disconnectFindings(c, losses: losses, platform: platform)
        out += try lostFromViewFindings(c)
        out += try controllerResetFindings(c)
        out += try attFindings(c, earlier: earlier, platform: platform)
        out += attOverlapFindings(c)
        out += try securityFindings(c)
        out += try parameterFindings(c)
        out += try parameterUpdateFindings(c)
        out += try creditConnectionRefusedFindings(c)
        out += try invalidParameterFindings(c)
        out += try snoopFilterFindings(c)
        return out
    }

    // MARK: - Helpers

    func packet(_ frame: Int) throws -> (ts: Int64, summary: String)? {
        let rows = try db.rows("SELECT ts_us, summary FROM packet WHERE rowid = \(PacketKey.sql(capture: "?1", frame: "?2"))",
                               [.integer(captureID), .integer(Int64(frame))])
        guard let r = rows.first, let ts = r[0].int64 else { return nil }
        return (ts, r[1].string ?? "")
    }

    /// The last packet of a connection in a direction before a frame (ACL only).
    ///
    /// Where the capture does not record direction (pcap LINKTYPE 187: ACL stored as '?'), a
    /// packet that completes an ATT PDU counts in the direction its opcode implies
    /// (`GATTServerSide.inferredDirection`, the rule GATT reconstruction uses), and `inferred` says
    /// so; other direction-less ACL (SMP, signalling, fragments) counts in neither direction.
    func lastACL(_ c: ConnectionFacts, direction: String, before frame: Int) throws -> LastACL? {
        let inferred = GATTServerSide.sqlInferredDirection(direction: "a.direction", opcode: "a.opcode")
        let rows = try db.rows("""
            SELECT p.frame, p.ts_us, p.summary, p.direction = '?' FROM packet p
            WHERE p.connection_id = ?2 AND p.kind = 'acl' AND p.rowid < \(PacketKey.sql(capture: "?1", frame: "?4"))
            AND (p.direction = ?3 OR (p.direction = '?' AND EXISTS (
                SELECT 1 FROM att_pdu a WHERE a.connection_id = ?2 AND a.packet_id = p.frame AND \(inferred) = ?3)))
            ORDER BY p.rowid DESC LIMIT 1
            """, [.integer(captureID), .integer(c.id), .text(direction), .integer(Int64(frame))])
        guard let r = rows.first else { return nil }
        return LastACL(frame: r[0].int ?? 0, ts: r[1].int64 ?? 0, summary: Self.plain(r[2].string ?? ""), inferred: r[3].int == 1)
    }

    /// The last ISO data packet the peer sent on a CIS of `c` before `frame` (Core v5.4 Vol 4
    /// Part E 5.4.5: the decoder files a CIS's packets under the ACL it was set up on).
    func lastPeerISO(_ c: ConnectionFacts, before frame: Int) throws -> LastACL? {
        let rows = try db.rows("""
            SELECT p.frame, p.ts_us, p.summary FROM packet p
            WHERE p.connection_id = ?2 AND p.kind = 'iso' AND p.direction = 'rx'
            AND p.rowid < \(PacketKey.sql(capture: "?1", frame: "?3"))
            ORDER BY p.rowid DESC LIMIT 1
            """, [.integer(captureID), .integer(c.id), .integer(Int64(frame))])
        guard let r = rows.first else { return nil }
        return LastACL(frame: r[0].int ?? 0, ts: r[1].int64 ?? 0, summary: Self.plain(r[2].string ?? ""), inferred: false)
    }

    /// Whether the capture left the direction of some of the connection's ACL unrecorded
    /// (pcap LINKTYPE 187): then "no data from the peer" is no fact.
    func hasDirectionlessACL(_ c: ConnectionFacts) throws -> Bool {
        try db.scalarInt("""
            SELECT EXISTS (SELECT 1 FROM packet WHERE connection_id = ?1 AND kind = 'acl' AND direction = '?')
            """, [.integer(c.id)]) == 1
    }

    /// Supervision timeout (ms) in force just before `frame`.
    func supervisionTimeout(_ c: ConnectionFacts, before frame: Int) throws -> Int? {
        let rows = try db.rows("""
            SELECT supervision_timeout_ms FROM connection_update
            WHERE connection_id = ?1 AND source = 'hci' AND coalesce(status, 0) = 0 AND packet_id < ?2
            ORDER BY packet_id DESC LIMIT 1
            """, [.integer(c.id), .integer(Int64(frame))])
        return rows.first?[0].int ?? c.supervisionTimeoutMs
    }

    /// A BR/EDR link's supervision timeout (ms) in force just before `frame`: the last Link
    /// Supervision Timeout Changed event for it (Core v5.4 Vol 4 Part E 7.7.46), nil when none.
    func bredrSupervisionTimeout(_ c: ConnectionFacts, before frame: Int) throws -> (ms: Double, frame: Int)? {
        let rows = try db.rows("""
            SELECT packet_id, detail FROM link_event
            WHERE connection_id = ?1 AND name = 'Link Supervision Timeout Changed' AND packet_id < ?2
            ORDER BY packet_id DESC LIMIT 1
            """, [.integer(c.id), .integer(Int64(frame))])
        guard let r = rows.first, let id = r[0].int, let detail = r[1].string else { return nil }
        // `timeout_slots=N timeout_ms=M` (HCIEventDecoder)
        guard let field = detail.split(separator: " ").first(where: { $0.hasPrefix("timeout_ms=") }),
              let ms = Double(field.dropFirst("timeout_ms=".count)), ms > 0 else { return nil }
        return (ms, id)
    }

    /// A packet summary without its `Sent `/`Rcvd ` prefix, for use inside a sentence.
    static func plain(_ summary: String) -> String {
        summary.hasPrefix("Sent ") || summary.hasPrefix("Rcvd ") ? String(summary.dropFirst(5)) : summary
    }

    /// The peer as a sentence names it: its address, "a device on the filter accept list" for an
    /// attempt whose LE Connection Complete carried no address, or the handle.
    func peer(_ c: ConnectionFacts) -> String {
        if c.peerAddress == "00:00:00:00:00:00" && c.status != 0 { return "a device on the filter accept list" }
        return c.peerAddress ?? "handle \(hex(c.handle, width: 4))"
    }

    // MARK: - Capture

    /// What `Analyzer.endAbandonedRecordings` writes into the capture's warnings.
    static let abandonedRecordingWarning = "the recorder stopped without finishing the recording"

    /// The capture's own findings, then one per link begun before the capture, handed to `emit`
    /// a thousand at a time: a capture of tens of thousands of such links (issue 17) does not
    /// hold all their sentences at once.
    func captureFindings(_ connections: CaptureConnections, _ emit: ([Finding]) throws -> Void) throws {
        var out: [Finding] = []
        let rows = try db.rows("SELECT status, warnings, dropped_packets, records FROM capture WHERE id = ?1", [.integer(captureID)])
        if let r = rows.first {
            let status = r[0].string ?? ""
            if status != "complete" {
                let warnings = try db.rows("SELECT value FROM capture, json_each(capture.warnings) WHERE capture.id = ?1",
                                           [.integer(captureID)]).compactMap { $0[0].string }
                let abandoned = warnings.contains { $0.contains(Self.abandonedRecordingWarning) }
                let title = abandoned ? "The recording stopped without finishing (the recorder was killed?)"
                    : status == "truncated" ? "The capture file ends in the middle of a record"
                    : "The capture file is damaged; it was read up to the damage"
                let said = warnings.isEmpty ? "" : warnings.joined(separator: "; ") + ". "
                out.append(Finding(connectionID: nil, captureID: captureID, severity: .warning, code: "capture-gap",
                                   title: title,
                                   detail: said + "Packets after the cut are missing, so the end of every connection still open there is unknown.",
                                   evidence: [r[3].int ?? 0].filter { $0 > 0 }))
            }
            if let dropped = r[2].int, dropped > 0 {
                // Every rise is counted; the first 20 are the evidence.
                var frames: [Int] = []
                var rises = 0
                try db.forEachRow("""
                    SELECT packet_id FROM decode_problem WHERE capture_id = ?1 AND \(WriterDropsProblem.sqlMatch()) ORDER BY packet_id
                    """, [.integer(captureID)]) { row in
                    rises += 1
                    if frames.count < 20 { frames.append(row.int(0)) }
                }
                out.append(Finding(connectionID: nil, captureID: captureID, severity: .warning, code: "capture-gap",
                                   title: "The capture writer dropped \(dropped) packet(s)",
                                   detail: "The btsnoop cumulative-drops counter rose \(rises) time(s)"
                                       + (rises > frames.count ? " (the first \(frames.count) cited)" : "")
                                       + ": what happened in those gaps is not in the capture.",
                                   evidence: frames))
            }
        }
        try connections.forEach { c in
            guard c.beganBeforeCapture else { return }
            out.append(Finding(connectionID: c.id, captureID: captureID, severity: .info, code: "capture-gap",
                               title: "Connection began before the capture",
                               detail: "ACL traffic on handle \(hex(c.handle, width: 4)) appears with no Connection Complete in the file: peer address, initial parameters and the negotiated MTU may be unknown.",
                               evidence: [c.firstPacketID]))
            if out.count >= 1024 {
                try emit(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        try emit(out)
    }

    // MARK: - Establishment

    func establishmentFindings(_ c: ConnectionFacts, earlier: EarlierConnections) throws -> [Finding] {
        guard !c.beganBeforeCapture, c.status != 0, let frame = c.completePacketID else { return [] }
        // Attempts to the same peer that ended the same way, and the first LE Create Connection.
        let attempts = earlier.attempts(to: c.peerAddress, status: c.status) + 1
        let firstCreate = try db.rows("""
            SELECT packet_id, ts_us, name FROM command WHERE capture_id = ?1 AND packet_id < ?2
            AND opcode IN (\(c.transport == "le" ? "0x200D, 0x2043" : "0x0405"))
            ORDER BY packet_id DESC LIMIT 1
            """, [.integer(captureID), .integer(Int64(frame))]).first
        let completeTs = try packet(frame)?.ts ?? 0
        var evidence = [frame]
        var waited = ""
        if let f = firstCreate, let createFrame = f[0].int, let ts = f[1].int64 {
            evidence.insert(createFrame, at: 0)
            waited = " \(TextFormat.duration(completeTs.saturatingSubtracting(ts))) after \(f[2].string ?? "Create Connection") (packet \(createFrame))"
        }
        let status = HCIStatusCode(UInt8(truncatingIfNeeded: c.status))
        // Cancelled attempts (0x02 after LE Create Connection Cancel) are grouped: ConnectAttemptFindings.swift.
        if c.status == 0x02 && c.transport == "le" { return [] }
        if c.status == 0x3E {
            return [Finding(connectionID: c.id, captureID: captureID, severity: .error, code: "failed-to-establish",
                            title: "Connection to \(peer(c)) failed to be established (attempt \(attempts))",
                            detail: "LE Connection Complete reported 0x3E Connection Failed to be Established\(waited): the central sent CONNECT_IND but the peripheral never answered in the first connection events (out of range, busy or already connected elsewhere).",
                            evidence: evidence, cbError: mapping.cbErrorName(for: status))]
        }
        return [Finding(connectionID: c.id, captureID: captureID, severity: c.transport == "le" ? .error : .warning,
                        code: "connection-failed",
                        title: "\(c.transport == "le" ? "" : "BR/EDR ")Connection to \(peer(c)) failed: \(hex(c.status)) \(status.name)",
                        detail: "The controller reported status \(hex(c.status)) \(status.name)\(waited).",
                        evidence: evidence, cbError: c.transport == "le" ? mapping.cbErrorName(for: status) : nil)]
    }

    // MARK: - Disconnect

    func disconnectFindings(_ c: ConnectionFacts, losses: LinkLossOnsets, platform: CapturePlatform.Inference) throws -> [Finding] {
        guard let reasonCode = c.disconnectReason, let frame = c.disconnectPacketID, let at = c.disconnectedAt else { return [] }
        let reason = HCIStatusCode(UInt8(truncatingIfNeeded: reasonCode))
        // A bonded reconnect the peer refused (Encryption Change 0x06 PIN or Key Missing, Vol 4
        // Part E 7.7.8): whoever then ends the link, the app sees peerRemovedPairingInformation.
        let keyMissing = try db.rows("""
            SELECT packet_id FROM error WHERE connection_id = ?1 AND context = 'encryption' AND code = 0x06 AND packet_id < ?2
            ORDER BY packet_id LIMIT 1
            """, [.integer(c.id), .integer(Int64(frame))]).first?[0].int
        // A host stack drops the link itself once an ATT transaction times out (Vol 3 Part F 3.3.3);
        // the app then sees a timeout, not its own cancel.
        let attTimeout = try db.rows("""
            SELECT request_packet_id FROM att_transaction WHERE connection_id = ?1 AND outcome = 'timeout'
            AND request_ts_us + 30000000 <= ?2 ORDER BY request_packet_id LIMIT 1
            """, [.integer(c.id), .integer(at)]).first?[0].int
        let localPeripheral = c.role == "peripheral"
        // The importer's rule, so the finding says what the `errors` row says.
        let cb = CoreBluetoothErrorRule.disconnect(
            reason: reason, isLE: c.transport == "le", localRole: c.role,
            localDisconnectRequested: c.localDisconnectRequested, keyMissingBefore: keyMissing != nil,
            attTimeoutBefore: attTimeout != nil, mapping: mapping)
        // Any other ending after the refused encryption: say why the app sees error 14.
        let keyNote = keyMissing.map { k in cb == CoreBluetoothErrorRule.peerRemovedPairingInformation && reasonCode != 0x16
            ? " Encryption Change had reported 0x06 PIN or Key Missing (packet \(k)): the peer no longer has the bond, so an iOS app sees didDisconnectPeripheral with \(CoreBluetoothErrorRule.peerRemovedPairingInformation)."
            : "" } ?? ""
        // A BR/EDR link (RFCOMM, SIM Access, audio) is no CoreBluetooth LE link: no peripheral manager, no GATT server.
        // What the peripheral-manager app (and the remote central's app) see instead (PeripheralManagerView).
        let peripheralView = localPeripheral && c.transport == "le"
            ? try PeripheralManagerView.load(db, captureID: captureID, connectionID: c.id, reason: reasonCode, before: frame) : nil
        let roleNote = peripheralView.map { " The local device was the peripheral (the GATT server) on this link. " + $0.sentence }
            ?? (c.transport != "le" ? " This is a BR/EDR link, not an LE one: no CoreBluetooth LE callback reports it." : "")
        // The link's requests left unanswered, read a row at a time (a link can hold thousands):
        // how many, the first, the first three cited, and the first of an Android client's own.
        var unansweredCount = 0
        var unansweredFrames: [Int] = []
        var firstUnanswered: (frame: Int, opcode: Int, handle: Int?)?
        var ownUnanswered: (frame: Int, opcode: Int)?
        try db.forEachRow("""
            SELECT request_packet_id, opcode, handle, direction, outcome FROM att_transaction WHERE connection_id = ?1 AND outcome IN ('disconnected', 'timeout')
            AND response_packet_id IS NULL ORDER BY request_packet_id
            """, [.integer(c.id)]) { s in
            unansweredCount += 1
            let frame = s.int(0), opcode = s.int(1)
            if unansweredFrames.count < 3 { unansweredFrames.append(frame) }
            if firstUnanswered == nil { firstUnanswered = (frame, opcode, s.optionalInt(2)) }
            if ownUnanswered == nil, s.text(3) == "tx", s.text(4) == "disconnected",
               AndroidStatusRule.callback(forRequestOpcode: opcode) != nil {
                ownUnanswered = (frame, opcode)
            }
        }
        var unansweredText = ""
        if let first = firstUnanswered {
            unansweredText = " \(unansweredCount) ATT request(s) were left unanswered, the first a \(BLEAnalysisNames.attOpcodeName(first.opcode))" +
                (first.handle.map { " to handle \(hex($0, width: 4))" } ?? "") + " (packet \(first.frame))."
            // An Android client's own read or write cut by the disconnect ended with 133 first (one
            // that timed out is told by its att-timeout finding).
            if platform.showsAndroidView, !localPeripheral, c.transport == "le", let own = ownUnanswered,
               let callback = AndroidStatusRule.callback(forRequestOpcode: own.opcode) {
                unansweredText += " An Android app's \(callback) for the phone's \(BLEAnalysisNames.attOpcodeName(own.opcode)) (packet \(own.frame)) got status \(AndroidStatusRule.pendingAtDisconnect) before onConnectionStateChange (gatt_utils.cc gatt_cleanup_upon_disc ends every pending operation so)."
            }
        }
        let lastRx = try lastACL(c, direction: "rx", before: frame)
        let lastTx = try lastACL(c, direction: "tx", before: frame)
        var evidence = [frame]
        // The local host's HCI Disconnect carried a reason other than 0x13-0x15 (0x05, 0x1A, 0x29
        // or 0x3B, Core v5.4 Vol 4 Part E 7.1.6) and the controller reported that reason back
        // instead of 0x16 (7.7.5; Bumble's controller does): the local host ended the link, the
        // peer did not. 0x13-0x15 echoed back are told apart below.
        if c.localDisconnectRequested, !air.isAirCapture, ![0x08, 0x13, 0x14, 0x15, 0x16].contains(reasonCode),
           let command = try LocalDisconnectCommand.find(db, captureID: captureID, connectionID: c.id, before: frame),
           command.reason == reasonCode {
            let cmd = command.packetID
            var detail = "The local host asked for the disconnect (HCI Disconnect with reason \(hex(reasonCode)) \(reason.name), packet \(cmd)); the controller reported that reason back."
            evidence.insert(cmd, at: 0)
            if let lastRx, lastRx.frame < cmd {
                detail += " The peer's last packet before it\(lastRx.byOpcode) was \(lastRx.summary) (packet \(lastRx.frame))."
                evidence.insert(lastRx.frame, at: 0)
            }
            return [Finding(connectionID: c.id, captureID: captureID, severity: .info, code: "local-terminated",
                            title: "Connection to \(peer(c)) closed by the local host (\(reason.name))",
                            detail: detail + unansweredText + keyNote + roleNote, evidence: evidence, cbError: cb)]
        }
        switch reasonCode {
        case 0x08:
            return [try supervisionTimeoutFinding(c, frame: frame, at: at, losses: losses, lastRx: lastRx, cb: cb,
                                                  tail: unansweredText + keyNote + roleNote,
                                                  extraEvidence: Array(unansweredFrames.prefix(3)))]
        case 0x05, 0x13, 0x14, 0x15:
            // 0x05 on an LE link is a host's choice too (HCI Disconnect's reasons, Core v5.4 Vol 4
            // Part E 7.1.6; an LE controller reports a missing key as 0x06 and a bad MIC as 0x3D):
            // the peer's host ended the link, after a pairing or encryption it needed failed.
            var detail = "The peer ended the connection with \(hex(reasonCode)) \(reason.name)."
            if let lastTx {
                detail += " The local side's last packet before it\(lastTx.byOpcode) was \(lastTx.summary) (packet \(lastTx.frame))."
                evidence.insert(lastTx.frame, at: 0)
            }
            if let lastRx {
                detail += " The peer's last packet\(lastRx.byOpcode) was \(lastRx.summary) (packet \(lastRx.frame))."
                evidence.insert(lastRx.frame, at: 0)
            }
            if c.localDisconnectRequested {
                // BlueZ/Android hosts send Disconnect with 0x13 and the controller reports it back.
                detail = air.isAirCapture
                    // A sniffer's capture: the central's LL_TERMINATE_IND (Vol 6 Part B 2.4.2.2), no HCI.
                    ? "The central ended the connection: LL_TERMINATE_IND with error code \(hex(reasonCode)) \(reason.name) (packet \(frame))."
                    : "The local host asked for the disconnect (HCI Disconnect with reason \(hex(reasonCode))); the controller reported \(reason.name)."
                let cmd = try localDisconnectCommand(c, before: frame)
                if let cmd { evidence.insert(cmd, at: 0) }
                if let keyMissing, !keyNote.isEmpty { evidence.insert(keyMissing, at: 0) }
                return [Finding(connectionID: c.id, captureID: captureID, severity: .info, code: "local-terminated",
                                title: "Connection to \(peer(c)) closed by the \(air.isAirCapture ? "central" : "local host")", detail: detail + unansweredText + keyNote + roleNote,
                                evidence: evidence, cbError: cb)]
            }
            // The peer's own ATT timeout: an indication the local host never confirmed (Vol 3 Part F 3.3.3).
            if let ind = try db.rows("""
                SELECT request_packet_id FROM att_transaction WHERE connection_id = ?1 AND opcode = 0x1D AND direction = 'rx'
                AND outcome = 'timeout' AND request_ts_us + 30000000 <= ?2 ORDER BY request_packet_id LIMIT 1
                """, [.integer(c.id), .integer(at)]).first?[0].int {
                detail += " It did so after the indication at packet \(ind) went unconfirmed for more than 30 s: the peer's ATT transaction had timed out."
            }
            return [Finding(connectionID: c.id, captureID: captureID, severity: .warning, code: "peer-terminated",
                            title: "\(peer(c)) ended the connection (\(reason.name))", detail: detail + unansweredText + keyNote + roleNote,
                            evidence: evidence + unansweredFrames.prefix(3), cbError: cb)]
        case 0x16:
            var detail = "The local host ended the connection (0x16 Connection Terminated By Local Host)."
            if let cmd = try localDisconnectCommand(c, before: frame) {
                evidence.insert(cmd, at: 0)
                let before = try lastACL(c, direction: "rx", before: cmd)
                detail += " It sent HCI Disconnect at packet \(cmd)"
                if let before { detail += ", after the peer's last packet\(before.byOpcode), \(before.summary) (packet \(before.frame))"; evidence.insert(before.frame, at: 0) }
                detail += "."
            } else {
                detail += " No HCI Disconnect command is in the capture: the host stack closed it (pairing failure, ATT timeout or an app's cancel)."
            }
            if let keyMissing, !localPeripheral {
                detail += " It did so after Encryption Change reported 0x06 PIN or Key Missing (packet \(keyMissing)): the peer no longer has the bond, so the stack, not the app, closed the link, and an iOS app sees didDisconnectPeripheral with CBError.peerRemovedPairingInformation."
                return [Finding(connectionID: c.id, captureID: captureID, severity: .error, code: "local-terminated",
                                title: "Connection to \(peer(c)) closed by the host after encryption failed",
                                detail: detail + unansweredText, evidence: [keyMissing] + evidence, cbError: cb)]
            }
            if let attTimeout {
                detail += " It did so after the ATT request at packet \(attTimeout) went unanswered for 30 s: the stack, not the app, closed the link" +
                    (cb.map { ", and an iOS app sees didDisconnectPeripheral with \($0)." } ?? ".")
                return [Finding(connectionID: c.id, captureID: captureID, severity: .error, code: "local-terminated",
                                title: "Connection to \(peer(c)) closed by the host after an ATT timeout",
                                detail: detail + unansweredText + roleNote, evidence: [attTimeout] + evidence, cbError: cb)]
            }
            return [Finding(connectionID: c.id, captureID: captureID, severity: .info, code: "local-terminated",
                            title: "Connection to \(peer(c)) closed by the local host", detail: detail + unansweredText + roleNote,
                            evidence: evidence, cbError: cb)]
        default:
            let codes: [Int: (String, String, String)] = [
                0x22: ("ll-response-timeout", "LL response timeout", try llResponseTimeoutExplanation(c, frame: frame, at: at)),
                0x23: ("ll-procedure-collision", "LL procedure collision",
                       "Both sides started link-layer procedures at once and the controller could not resolve it."),
                0x3B: ("unacceptable-parameters", "unacceptable connection parameters",
                       "The peer rejected the connection parameters."),
                0x3D: ("mic-failure", "MIC failure",
                       "An encrypted packet failed its integrity check: keys out of sync, or interference corrupting encrypted PDUs."),
                0x28: ("instant-passed", "instant passed", localPeripheral
                       // Only the central sends instants (Core v5.4 Vol 6 Part B 5.1.1, 5.1.2, 5.1.10).
                       ? "The central's connection update, channel map update or PHY update reached the local device, the peripheral, after its instant (Core Vol 6 Part B 5.5): it arrived late (retransmitted for too long, or sent with too short an instant), and the local controller left the link."
                       : "The peer, the peripheral, got the local central's connection update, channel map update or PHY update after its instant (Core Vol 6 Part B 5.5) and left the link: it missed the procedure's PDU until too late."),
                0x3E: ("failed-to-establish", "connection failed to be established",
                       "LE Connection Complete reported success, but the link dropped \(c.connectedAt.map { TextFormat.duration(at.saturatingSubtracting($0)) + " later" } ?? "") with 0x3E Connection Failed to be Established: the peripheral never answered in its first connection events (out of range, busy, or connected elsewhere). An app sees this as a failed connect (didFailToConnect), not a disconnect."),
            ]
            let (code, title, explanation) = codes[reasonCode] ?? ("disconnected", "disconnected: \(reason.name)",
                                                                   "The controller reported \(hex(reasonCode)) \(reason.name).")
            var detail = explanation
            // A MIC failure (Vol 6 Part B 5.1.3) needs an encrypted link; say when the capture never showed it encrypted.
            if reasonCode == 0x3D, try !encryptionSeen(c, before: frame) {
                detail += " No Encryption Change was seen on this link in the capture (encrypted: no): the encryption the MIC failure concerns was started before the capture began, or the capture missed it."
            }
            if reasonCode == 0x3E, let peerAddress = c.peerAddress {
                let later = try db.rows("""
                    SELECT id, status, disconnect_reason, complete_packet_id FROM connection
                    WHERE capture_id = ?1 AND peer_address = ?2 AND id > ?3 ORDER BY id
                    """, [.integer(captureID), .text(peerAddress), .integer(c.id)])
                if let ok = later.first(where: { $0[1].int == 0 && $0[2].int != 0x3E }) {
                    detail += " The central tried again: connection \(ok[0].int ?? 0) to the same peer succeeded (packet \(ok[3].int ?? 0))."
                } else {
                    detail += " No later attempt to this peer succeeded in the capture."
                }
            }
            if let lastRx { detail += " The peer's last packet\(lastRx.byOpcode) was \(lastRx.summary) (packet \(lastRx.frame))."; evidence.insert(lastRx.frame, at: 0) }
            return [Finding(connectionID: c.id, captureID: captureID, severity: .error, code: code,
                            title: "Connection to \(peer(c)) ended: \(title)", detail: detail + unansweredText + keyNote + roleNote,
                            evidence: evidence, cbError: cb)]
        }
    }

    /// Whether the capture shows the link encrypted before `frame`: an Encryption Change that
    /// enabled it (Vol 4 Part E 7.7.8) or an Encryption Key Refresh Complete (7.7.39), which needs it.
    func encryptionSeen(_ c: ConnectionFacts, before frame: Int) throws -> Bool {
        if c.encrypted { return true }
        return try db.scalarInt("""
            SELECT count(*) FROM link_event WHERE connection_id = ?1 AND packet_id < ?2 AND coalesce(status, 0) = 0
            AND (name = 'Encryption Key Refresh Complete' OR (name = 'Encryption Change' AND detail = 'enabled'))
            """, [.integer(c.id), .integer(Int64(frame))]) ?? 0 > 0
    }

    /// The HCI Disconnect that ended `c`, sent before `frame` (`LocalDisconnectCommand`).
    func localDisconnectCommand(_ c: ConnectionFacts, before frame: Int) throws -> Int? {
        try LocalDisconnectCommand.find(db, captureID: captureID, connectionID: c.id, before: frame)?.packetID
    }
}

/// Names shared by the analysis and its renderers.
public enum BLEAnalysisNames {
    public static func attOpcodeName(_ v: Int) -> String {
        ATTOpcode(UInt8(truncatingIfNeeded: v)).name
    }
}

extension FindingsEngine {
    /// A connection's last ACL packet in one direction (`lastACL`).
    struct LastACL {
        var frame: Int
        var ts: Int64
        var summary: String
        /// The capture does not record direction: the ATT opcode gave it (`lastACL`).
        var inferred: Bool

        /// Said after "the peer's last packet" when the direction was inferred; empty otherwise.
        var byOpcode: String {
            inferred ? " (by its ATT opcode: the capture does not record which way packets went)" : ""
        }
    }
}
