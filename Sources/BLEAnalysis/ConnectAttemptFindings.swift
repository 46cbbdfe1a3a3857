import BLECore
import BLEDecode
import BLETimeline

/// `connect-cancelled`: connection attempts the host cancelled (LE Create Connection Cancel,
/// Core v5.4 Vol 4 Part E 7.8.13, then LE Connection Complete with status 0x02), one finding
/// per target with the count and every attempt's packets, instead of one paragraph each.
///
/// The target is the peer LE (Extended) Create Connection named (7.8.12, 7.8.66), or, when its
/// Initiator_Filter_Policy chose the Filter Accept List, the devices the host had put on the list
/// (LE Add Device To Filter Accept List, 7.8.16, since the last LE Clear Filter Accept List,
/// 7.8.15, less those removed, 7.8.17). What the platform does with pending connects is
/// inferred from the capture's format (`CapturePlatform`), and said as inferred.
extension FindingsEngine {
    /// One cancelled attempt.
    struct CancelledAttempt {
        var connection: ConnectionFacts
        var create: Int?
        var cancel: Int?
        var complete: Int
        var waitedUs: Int64?
        var target: String
        /// A new LE (Extended) Create Connection within a second of the cancel's completion.
        var retried: Bool
    }

    /// Android's direct connect (`connectGatt` with autoConnect false) gives up after 30 s.
    static let androidDirectConnectTimeoutUs = AndroidStatusRule.directConnectTimeoutUs

    func cancelledAttemptFindings(_ connections: CaptureConnections, platform inference: CapturePlatform.Inference) throws -> [Finding] {
        let platform = inference.platform
        let cancelled = try connections.filter { !$0.beganBeforeCapture && $0.status == 0x02 && $0.transport == "le" && $0.completePacketID != nil }
        guard !cancelled.isEmpty else { return [] }
        // Read into compact arrays (24 and 8 bytes a command), not rows of values.
        var creates: [(frame: Int, ts: Int64, opcode: Int)] = []
        try db.forEachRow("""
            SELECT packet_id, ts_us, opcode FROM command WHERE capture_id = ?1 AND opcode IN (0x200D, 0x2043, 0x2085, 0x2010, 0x2011, 0x2012)
            ORDER BY packet_id
            """, [.integer(captureID)]) { creates.append(($0.int(0), $0.int64(1), $0.int(2))) }
        var cancels: [Int] = []
        try db.forEachRow("SELECT packet_id FROM command WHERE capture_id = ?1 AND opcode = 0x200E ORDER BY packet_id",
                          [.integer(captureID)]) { if !$0.isNull(0) { cancels.append($0.int(0)) } }
        var attempts: [CancelledAttempt] = []
        for c in cancelled {
            let frame = c.completePacketID ?? 0
            let create = creates.last { [0x200D, 0x2043, 0x2085].contains($0.opcode) && $0.frame < frame }
            let cancel = cancels.last { $0 < frame && $0 > (create?.frame ?? 0) }
            let completeTs = try packet(frame)?.ts
            var target = c.peerAddress.flatMap { $0 == "00:00:00:00:00:00" ? nil : $0 }
            if let create, let info = try decodedCommand(create.frame), info.usesFilterAcceptList {
                target = acceptListTarget(creates.filter { $0.frame < create.frame }.map(\.frame))
            } else if target == nil {
                target = "an unnamed peer"
            }
            let retried = completeTs.map { ts in creates.contains {
                [0x200D, 0x2043, 0x2085].contains($0.opcode) && $0.frame > frame && $0.ts <= ts.saturatingAdding(1_000_000) } } ?? false
            attempts.append(CancelledAttempt(
                connection: c, create: create?.frame, cancel: cancel, complete: frame,
                waitedUs: create.flatMap { cr in completeTs.map { $0.saturatingSubtracting(cr.ts) } }, target: target ?? "an unnamed peer",
                retried: retried))
        }
        var order: [String] = []
        var groups: [String: [CancelledAttempt]] = [:]
        var timeouts: [String: [CancelledAttempt]] = [:]
        for a in attempts {
            // On Android, an attempt cancelled 30 s after it began is the stack's direct-connect timeout: its own finding.
            if platform == .android, let w = a.waitedUs, Self.androidDirectConnectTimeoutUs.contains(w) {
                if groups[a.target] == nil && timeouts[a.target] == nil { order.append(a.target) }
                timeouts[a.target, default: []].append(a)
                continue
            }
            if groups[a.target] == nil { order.append(a.target) }
            groups[a.target, default: []].append(a)
        }
        let version = try CapturePlatform.androidVersion(captureID: captureID, db: db)
        return order.flatMap { target in
            (timeouts[target].map { [directConnectTimeoutFinding(target, $0, platform: inference, androidVersion: version)] } ?? [])
                + (groups[target].map { [cancelledGroupFinding(target, $0, platform: inference)] } ?? [])
        }
    }

    /// `android-direct-connect-timeout`: Android's stack gave up a direct connect after 30 s
    /// (connection_manager.cc `DIRECT_CONNECT_TIMEOUT`); the status the app got depends on the version.
    private func directConnectTimeoutFinding(_ target: String, _ list: [CancelledAttempt], platform: CapturePlatform.Inference,
                                             androidVersion: Int?) -> Finding {
        let n = list.count
        let status = AndroidStatusRule.directConnectTimeout(androidVersion: androidVersion)
        let got = androidVersion.map { "on this phone's Android \($0), status \(status)" }
            ?? "status 133 GATT_ERROR up to Android 14, 147 GATT_CONNECTION_TIMEOUT from Android 15"
        let detail = "Known: the host sent LE Create Connection Cancel 30 s after LE Create Connection and the controller closed \(n == 1 ? "the attempt" : "each of the \(n) attempts") with status 0x02 Unknown Connection Identifier" +
            (n > 1 ? " (connections " + list.prefix(12).map { String($0.connection.id) }.joined(separator: ", ") + (n > 12 ? ", …" : "") + ")" : "") + ". " +
            "Inferred, from \(platform.evidence): Android's direct connect (connectGatt with autoConnect false) gives up after 30 s. " +
            "The app's onConnectionStateChange got \(got), STATE_DISCONNECTED. The peer did not advertise connectably in range during those 30 s; connectGatt with autoConnect true would have waited without a timeout."
        return Finding(connectionID: n == 1 ? list[0].connection.id : nil, captureID: captureID, severity: .warning,
                       code: "android-direct-connect-timeout",
                       title: n == 1 ? "Android gave up connecting to \(target) after 30 s"
                           : "Android gave up \(n) connects to \(target) after 30 s each",
                       detail: detail, evidence: list.flatMap { [$0.create, $0.cancel, $0.complete].compactMap { $0 } },
                       android: status)
    }

    /// "the filter accept list (E8:3C:51:07:D4:2F, …)" from the list commands before the create.
    private func acceptListTarget(_ listCommands: [Int]) -> String {
        var list: [String] = []
        for frame in listCommands {
            guard let info = try? decodedCommand(frame) else { continue }
            switch info.opcode {
            case 0x2010: list.removeAll()
            case 0x2011: if let a = info.peerAddress?.description, !list.contains(a) { list.append(a) }
            case 0x2012: list.removeAll { $0 == info.peerAddress?.description }
            default: break
            }
        }
        if list.isEmpty { return "the filter accept list (filled before the capture began: its devices are not in it)" }
        return "the filter accept list (" + list.prefix(6).joined(separator: ", ") + (list.count > 6 ? ", …" : "") + ")"
    }

    /// The command at `frame` as BLEDecode reads it (the parameters the timeline does not keep).
    func decodedCommand(_ frame: Int) throws -> HCICommandInfo? {
        let rows = try db.rows("SELECT raw, ts_us FROM packet WHERE rowid = \(PacketKey.sql(capture: "?1", frame: "?2")) AND kind = 'cmd'",
                               [.integer(captureID), .integer(Int64(frame))])
        guard let r = rows.first, let raw = r[0].blob else { return nil }
        var decoder = PacketDecoder()
        let decoded = decoder.decode(CaptureRecord(frameNumber: frame, timestamp: r[1].int64 ?? 0, direction: .sent,
                                                   kind: .command, payload: raw, fileOffset: 0))
        for case .command(let info) in decoded.events { return info }
        return nil
    }

    private func cancelledGroupFinding(_ target: String, _ list: [CancelledAttempt], platform inference: CapturePlatform.Inference) -> Finding {
        let platform = inference.platform
        let n = list.count
        let waits = list.compactMap(\.waitedUs).sorted()
        let waited = waits.isEmpty ? "" : waits[0] == waits[waits.count - 1] ? ", \(TextFormat.duration(waits[0])) after the LE Create Connection"
            : ", \(TextFormat.duration(waits[0]))–\(TextFormat.duration(waits[waits.count - 1])) after the LE Create Connection (median \(TextFormat.duration(waits[waits.count / 2])))"
        var detail = "Known: the host sent LE Create Connection Cancel and the controller closed \(n == 1 ? "the attempt" : "each of the \(n) attempts") with status 0x02 Unknown Connection Identifier\(waited)."
        if n > 1 {
            let each = list.prefix(12).map { "connection \($0.connection.id)" + ($0.waitedUs.map { " \(TextFormat.duration($0))" } ?? "") }
            detail += " Attempts: " + each.joined(separator: ", ") + (n > 12 ? ", … (\(n - 12) more)" : "") + "."
        }
        let retried = list.filter(\.retried).count
        detail += " Inferred, from \(inference.evidence): "
        switch platform {
        case .apple:
            detail += "iOS never times out a pending connect by itself (Apple: connection attempts don't time out); it cancels and re-issues its own pending connects as it changes what it is connecting to (another peripheral, its accept list, a scan)."
            detail += retried > 0
                ? " \(retried) of \(n == 1 ? "it" : "these \(n)") were followed by a new attempt within a second: that is the system's cycling, not the app's cancelPeripheralConnection."
                : " No new attempt followed: this cancel may be the app's cancelPeripheralConnection."
        case .android:
            // The 30 s direct-connect timeouts are android-direct-connect-timeout findings of their own.
            detail += "\(n == 1 ? "it was not" : "none was") cancelled 30 s after the attempt, so not by Android's 30 s direct-connect timeout: " +
                "Android cancels a pending connect to change its accept list (a background autoConnect, another device joining), or the app called BluetoothGatt.disconnect() or close()."
        case .bluez:
            detail += "the kernel or bluetoothd cancelled \(n == 1 ? "it" : "them"): its connection attempt timed out, or the application gave up on the connect."
        case .unknown:
            detail += "whether an app or the host stack's own policy cancelled \(n == 1 ? "it" : "them") is not known."
        }
        let evidence = list.flatMap { [$0.create, $0.cancel, $0.complete].compactMap { $0 } }
        return Finding(connectionID: n == 1 ? list[0].connection.id : nil, captureID: captureID, severity: .info,
                       code: "connect-cancelled",
                       title: n == 1 ? "Connection attempt to \(target) cancelled by the host"
                           : "\(n) connection attempts to \(target) cancelled by the host",
                       detail: detail, evidence: evidence, cbError: nil)
    }
}
