import BLECore
import BLETimeline

/// Android host behaviours, as findings that name the callback the app got (Docs/android.md
/// "Android host behaviours"). Emitted on captures `CapturePlatform` takes for Android's.
///
/// - `android-direct-connect-timeout`: the stack cancels a direct connect after 30 s
///   (system/stack/gatt/connection_manager.cc `DIRECT_CONNECT_TIMEOUT (30 * 1000)`,
///   `wl_direct_connect_timeout_cb`); the app's `onConnectionStateChange` gets 133 `GATT_ERROR`
///   up to Android 14 and 147 `GATT_CONNECTION_TIMEOUT` from Android 15
///   (system/bta/gatt/bta_gattc_act.cc; tentative, by version). Built in `ConnectAttemptFindings`.
/// - `android-background-connect`: a connect pending for longer than that is a background one
///   (`connectGatt` with autoConnect true): connection_manager.cc arms the timer only for
///   `direct_connect_add`, never for `background_connect_add`, so it waits as long as it takes.
/// - `android-att-timeout-disconnect`: an ATT request unanswered for 30 s makes the stack close
///   the link itself (system/stack/gatt/gatt_utils.cc `gatt_rsp_timeout` -> `gatt_disconnect`;
///   only a primary-service discovery is retried first, `GATT_REQ_RETRY_LIMIT`); the controller
///   reports 0x16 and the app gets 22 `GATT_CONN_TERMINATE_LOCAL_HOST`, not its own `GATT_SUCCESS`.
/// - `android-connect-failed-133`: an attempt that failed (any status but the cancel) reaches
///   the app as 133 `GATT_ERROR` (bta_gattc_act.cc `bta_gattc_open_fail`, "Cannot establish
///   Connection … Return GATT_ERROR"), whatever HCI status the controller gave.
extension FindingsEngine {
    static let createOpcodes: Set<Int> = [0x200D, 0x2043, 0x2085]

    func androidHostFindings(_ connections: CaptureConnections, platform: CapturePlatform) throws -> [Finding] {
        guard platform == .android else { return [] }
        var out = try backgroundConnectFindings(connections)
        out += try connectFailed133Findings(connections)
        try connections.forEach { out += try attTimeoutDisconnectFindings($0) }
        return out
    }

    /// Connects that stayed pending past Android's 30 s direct-connect timeout, completed or
    /// still pending at the end of the capture.
    func backgroundConnectFindings(_ connections: CaptureConnections) throws -> [Finding] {
        // Read into a compact array (24 bytes a command), not rows of values.
        var commands: [(frame: Int, ts: Int64, opcode: Int)] = []
        try db.forEachRow("""
            SELECT packet_id, ts_us, opcode FROM command WHERE capture_id = ?1 AND opcode IN (0x200D, 0x2043, 0x2085, 0x200E)
            ORDER BY packet_id
            """, [.integer(captureID)]) { commands.append(($0.int(0), $0.int64(1), $0.int(2))) }
        let completions = try connections.filter { !$0.beganBeforeCapture && $0.transport == "le" && $0.completePacketID != nil }
            .sorted { ($0.completePacketID ?? 0) < ($1.completePacketID ?? 0) }
        let longest = AndroidStatusRule.directConnectTimeoutUs.upperBound
        var out: [Finding] = []
        var previousComplete = 0
        for c in completions {
            let frame = c.completePacketID ?? 0
            defer { previousComplete = frame }
            // The create this completion answers: the last one since the previous completion, with no cancel after it.
            let since = commands.filter { $0.frame > previousComplete && $0.frame < frame }
            guard let create = since.last(where: { Self.createOpcodes.contains($0.opcode) }),
                  !since.contains(where: { $0.opcode == 0x200E && $0.frame > create.frame }),
                  c.status == 0, let ts = try packet(frame)?.ts else { continue }
            let waited = ts.saturatingSubtracting(create.ts)
            guard waited > longest else { continue }
            out.append(Finding(
                connectionID: c.id, captureID: captureID, severity: .info, code: "android-background-connect",
                title: "Background connect to \(peer(c)) waited \(TextFormat.duration(waited))",
                detail: "Known: LE Create Connection (packet \(create.frame)) was answered by LE Connection Complete (packet \(frame)) \(TextFormat.duration(waited)) later, with no cancel in between. " +
                    "Inferred: longer than Android's 30 s direct-connect timeout, so a background connect (connectGatt with autoConnect true, or the system's own reconnect): Android never times these out. " +
                    "The app's onConnectionStateChange got status 0 GATT_SUCCESS, STATE_CONNECTED when the device appeared, and no callback while it waited.",
                evidence: [create.frame, frame], android: .success))
        }
        // A connect still pending at the end: the last create after the last completion, never cancelled.
        let lastComplete = completions.last?.completePacketID ?? 0
        let tail = commands.filter { $0.frame > lastComplete }
        if let create = tail.last(where: { Self.createOpcodes.contains($0.opcode) }),
           !tail.contains(where: { $0.opcode == 0x200E && $0.frame > create.frame }),
           captureEnd.saturatingSubtracting(create.ts) > longest {
            let waited = captureEnd.saturatingSubtracting(create.ts)
            out.append(Finding(
                connectionID: nil, captureID: captureID, severity: .info, code: "android-background-connect",
                title: "A background connect was still pending after \(TextFormat.duration(waited))",
                detail: "Known: the LE Create Connection at packet \(create.frame) was neither answered nor cancelled before the capture ended, \(TextFormat.duration(waited)) later. " +
                    "Inferred: past Android's 30 s direct-connect timeout, so a background connect (connectGatt with autoConnect true): Android never times these out, and the app got no onConnectionStateChange for it.",
                evidence: [create.frame]))
        }
        return out
    }

    /// Failed attempts (not the cancel), one finding per status: the app saw 133 for each.
    func connectFailed133Findings(_ connections: CaptureConnections) throws -> [Finding] {
        let failed = try connections.filter {
            !$0.beganBeforeCapture && $0.transport == "le" && $0.status != 0 && $0.status != 0x02 && $0.role != "peripheral"
                && $0.completePacketID != nil
                && !AndroidStatusRule.isAdvertisingTimeout(HCIStatusCode(UInt8(truncatingIfNeeded: $0.status)))
        }
        var order: [Int] = []
        var groups: [Int: [ConnectionFacts]] = [:]
        for c in failed {
            if groups[c.status] == nil { order.append(c.status) }
            groups[c.status, default: []].append(c)
        }
        return order.map { code in
            let list = groups[code] ?? []
            let status = HCIStatusCode(UInt8(truncatingIfNeeded: code))
            let n = list.count
            return Finding(
                connectionID: n == 1 ? list[0].id : nil, captureID: captureID, severity: .info, code: "android-connect-failed-133",
                title: n == 1 ? "The app saw status 133 GATT_ERROR for the failed connection to \(peer(list[0]))"
                    : "The app saw status 133 GATT_ERROR for \(n) failed connection attempts",
                detail: "Known: LE Connection Complete reported \(hex(code)) \(status.name)" + (n == 1 ? "." : " \(n) times (connections " +
                    list.prefix(12).map { String($0.id) }.joined(separator: ", ") + (n > 12 ? ", …" : "") + ").") +
                    " Inferred, from Android's stack: an attempt that fails reaches the app as onConnectionStateChange(status 133 GATT_ERROR, STATE_DISCONNECTED), not as \(hex(code)): the stack's bta_gattc_open_fail reports GATT_ERROR for any failure. 133 says only that the connect failed; the capture says why.",
                evidence: list.prefix(10).compactMap(\.completePacketID), android: .error)
        }
    }

    /// The stack's own disconnect 30 s after an unanswered ATT request the phone sent.
    func attTimeoutDisconnectFindings(_ c: ConnectionFacts) throws -> [Finding] {
        guard c.transport == "le", c.role != "peripheral", c.localDisconnectRequested, c.disconnectReason == 0x16,
              let frame = c.disconnectPacketID, let command = try localDisconnectCommand(c, before: frame),
              let commandTs = try packet(command)?.ts else { return [] }
        // The request whose 30 s timer fired: sent by the phone, unanswered, 30 s before the HCI Disconnect.
        guard let request = try db.rows("""
            SELECT request_packet_id, request_ts_us, opcode, handle FROM att_transaction
            WHERE connection_id = ?1 AND direction = 'tx' AND outcome = 'timeout'
            AND request_ts_us + 29500000 <= ?2 AND request_ts_us + 32000000 >= ?2 ORDER BY request_packet_id LIMIT 1
            """, [.integer(c.id), .integer(commandTs)]).first, let requestFrame = request[0].int else { return [] }
        let waited = commandTs.saturatingSubtracting(request[1].int64 ?? commandTs)
        let what = BLEAnalysisNames.attOpcodeName(request[2].int ?? 0) + (request[3].int.map { " to handle \(hex($0, width: 4))" } ?? "")
        return [Finding(
            connectionID: c.id, captureID: captureID, severity: .warning, code: "android-att-timeout-disconnect",
            title: "Android closed the link to \(peer(c)) after its ATT request timed out",
            detail: "Known: the \(what) at packet \(requestFrame) got no response; the host sent HCI Disconnect (packet \(command)) \(TextFormat.duration(waited)) later, and the controller reported 0x16 Connection Terminated By Local Host (packet \(frame)). " +
                "Inferred, from Android's stack: its 30 s ATT response timer (Core v5.4 Vol 3 Part F 3.3.3) closes the link itself, not the app. " +
                (AndroidStatusRule.callback(forRequestOpcode: request[2].int ?? 0).map {
                    "The request's \($0) got status \(AndroidStatusRule.pendingAtDisconnect) as the link closed (gatt_utils.cc gatt_cleanup_upon_disc); then the app's "
                } ?? "The app's ") +
                "onConnectionStateChange got status 22 GATT_CONN_TERMINATE_LOCAL_HOST, STATE_DISCONNECTED.",
            evidence: [requestFrame, command, frame], android: .connTerminateLocalHost)]
    }
}
