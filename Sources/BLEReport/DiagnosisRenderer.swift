import BLECore
import BLETimeline
import BLEAnalysis

/// Renders `blereplay diagnose`: per connection, what happened and why it ended.
public enum DiagnosisRenderer {
    public static func text(_ captures: [CaptureDiagnosis]) -> String {
        var out: [String] = []
        for c in captures {
            out += headLines(c, le: c.connections.filter { $0.transport == "le" }.count,
                             other: c.connections.filter { $0.transport != "le" }.count)
            var body = CaptureBody(platform: c.platform)
            for conn in c.connections { out += body.lines(conn) }
            out += body.endLines()
        }
        return out.joined(separator: "\n")
    }

    /// A capture's first lines: its format, its connections (`le` LE, `other` BR/EDR; with a
    /// filter, `shown` of them follow) and the capture-level findings.
    public static func headLines(_ c: CaptureDiagnosis, le: Int, other bredr: Int, shown: Int? = nil) -> [String] {
        var out: [String] = []
        out.append("Capture \(c.capture.path)")
        out.append("  \(c.capture.formatDescription), \(c.capture.records) records" +
                   (c.capture.status == "complete" ? "" : " (\(c.capture.status))") +
                   (c.capture.malformedPackets > 0 ? ", \(c.capture.malformedPackets) malformed" : ""))
        out.append("  host: " + platformText(c.platform))
        out.append("  \(le) LE connection(s)" + (bredr > 0 ? ", \(bredr) BR/EDR" : "") +
                   ", \(c.advertisers) advertiser(s) in \(c.advertisingReports) advertising report(s)" +
                   (shown.map { "; \($0) connection(s) shown (the filters)" } ?? ""))
        if le == 0 && (bredr > 0 || c.bredrPackets > 0) {
            out.append("  No LE connection: this capture is mostly Classic BR/EDR traffic (\(c.bredrPackets) BR/EDR packets); nothing LE to diagnose beyond advertising.")
        }
        for f in c.findings { out += findingLines(f, platform: c.platform) }
        return out
    }

    /// A capture's connections, rendered as they come: each in its own block, except the failed
    /// or cancelled attempts a capture-level finding covers (connect-cancelled, a repeated
    /// connection-failed), which end the capture in one line, not one block each. Holds only
    /// what that line says (the first 20 ids, a count), whatever the number of links.
    public struct CaptureBody: Sendable {
        var grouped = 0
        var groupedIDs: [Int64] = []
        var allCancelled = true
        /// Which app views the connections' lines show (`CaptureDiagnosis.platform`).
        let platform: CapturePlatform.Inference

        public init(platform: CapturePlatform.Inference) { self.platform = platform }

        /// The lines of one connection, in connection order (none when it is grouped).
        public mutating func lines(_ conn: ConnectionDiagnosis) -> [String] {
            guard conn.status != 0 && conn.findings.isEmpty else { return [""] + connectionLines(conn, platform: platform) }
            grouped += 1
            if groupedIDs.count < 20 { groupedIDs.append(conn.id) }
            allCancelled = allCancelled && conn.status == 0x02 && conn.transport == "le"
            return []
        }

        /// The capture's last lines, after its last connection.
        public func endLines() -> [String] {
            var out: [String] = []
            if grouped > 0 {
                out.append("")
                let ids = groupedIDs.map(String.init).joined(separator: ", ") + (grouped > 20 ? ", …" : "")
                out.append("Connections \(ids) — \(grouped) attempt(s) " +
                           (allCancelled ? "cancelled by the host (status 0x02), grouped in the connect-cancelled finding above"
                                         : "that failed or were cancelled, grouped in the findings above"))
            }
            out.append("")
            return out
        }
    }

    static func connectionLines(_ c: ConnectionDiagnosis, platform: CapturePlatform.Inference = .unknown) -> [String] {
        var out: [String] = []
        // An attempt on the filter accept list reports no peer (all-zero address, Vol 4 Part E 7.7.65.1).
        let peer = c.status != 0 && c.peerAddress == "00:00:00:00:00:00" ? "a device on the filter accept list"
            : c.peerAddress.map { "\($0)" + (c.peerAddressType.map { " (\($0))" } ?? "") } ?? "unknown peer"
        let name = c.name.map { " \"\($0)\"" } ?? ""
        let controller = c.namesController ? " on \(c.controllerName)" : ""
        out.append("Connection \(c.id) — \(peer)\(name), handle \(hex(c.handle, width: 4))\(controller), \(transportLabel(c))" +
                   (c.role.map { ", local \($0)" } ?? ""))
        if c.status != 0 {
            out.append("  attempt failed: status \(hex(c.status)) \(HCIStatusCode(UInt8(truncatingIfNeeded: c.status)).name) at packet \(c.firstPacketID)")
        } else {
            var span = "  packets \(c.firstPacketID)–\(c.lastPacketID)"
            if let s = c.start, let e = c.end {
                span += ", \(TextFormat.clock(s)) → \(TextFormat.clock(e)) (\(TextFormat.duration(e.saturatingSubtracting(s))))"
            }
            if c.beganBeforeCapture { span += ", began before the capture" }
            out.append(span)
            if c.transport == "le" {
                var params = "  parameters: "
                // An LE Connection Update Complete with a non-zero status changed nothing (Vol 4 Part E 7.7.65.3).
                let applied = c.updates.filter { $0.source == "hci" && ($0.status ?? 0) == 0 }
                if c.beganBeforeCapture {
                    // The row's values are the first update's: never the link's initial ones.
                    params += "unknown at start (began before the capture)"
                    if let first = applied.first {
                        params += "; from LE Connection Update Complete at \(TextFormat.clock(first.timestamp)): " + first.describe
                    }
                } else if let i = c.intervalUs {
                    params = "  parameters at connection: interval \(TextFormat.fixed(Double(i) / 1000, 2)) ms, latency \(c.latency ?? 0), supervision timeout \(c.supervisionTimeoutMs ?? 0) ms"
                } else {
                    params += "unknown at start"
                }
                let failed = c.updates.filter { $0.source == "hci" && ($0.status ?? 0) != 0 }
                let requested = c.updates.filter { $0.source != "hci" }
                if let last = applied.last, !(c.beganBeforeCapture && applied.count == 1) {
                    params += "; \(applied.count) update(s), last: " + last.describe
                }
                if !failed.isEmpty { params += "; \(failed.count) update(s) failed" }
                if !requested.isEmpty { params += "; peripheral requested \(requested.count) update(s)" }
                if let initial = c.initialPHY.map(phyText) { params += ", PHY " + initial }
                if let last = c.phy.map(phyText), c.phyUpdates > 0 { params += "; \(c.phyUpdates) PHY update(s), last: " + last }
                out.append(params)
                out.append("  " + mtuText(c) + ", " + encryptionText(c))
                out.append("  ATT: \(c.attPDUs) PDU(s), \(c.transactions) transaction(s), \(c.transactionErrors) error(s), \(c.transactionTimeouts) timeout(s), \(c.notifications) notification(s)/indication(s)"
                           + (c.ciphertextFrom.map { "; not known from packet \($0) on: encrypted, and the sniffer did not decrypt it" } ?? ""))
            }
            if let r = c.disconnectReason {
                out.append("  ended: \(hex(r)) \(HCIStatusCode(UInt8(truncatingIfNeeded: r)).name) at packet \(c.disconnectPacketID ?? 0)" +
                           (platform.showsCoreBluetoothView ? appSees(c, reason: r) : "") +
                           (platform.showsAndroidView ? androidSees(c) : ""))
                if let view = c.peripheralManager {
                    out.append("  CoreBluetooth (local peripheral):")
                    out += TextFormat.wrap(view.sentence, width: 96, indent: "    ")
                }
            } else if let reset = c.controllerResetPacketID {
                out.append("  ended: the controller was reset at packet \(reset) (HCI Reset completed with the link up): "
                           + "no Disconnection Complete, so no HCI reason"
                           + (platform.showsCoreBluetoothView ? appSeesReset(c) : ""))
            } else if let lost = c.lostFromView, let timeout = c.findings.first(where: { $0.finding.code == "connection-timeout-on-air" }) {
                // The sniffer saw the peripheral go silent and the central give up (LostFromViewFindings).
                let never = AirEnding.inferredReason(findingTitle: timeout.finding.title).rawValue == 0x3E
                out.append("  ended: " + (never ? "0x3E Connection Failed to be Established" : "0x08 Connection Timeout")
                           + " (inferred) at packet \(c.lastPacketID) (\(TextFormat.clock(lost.lastSeen))): "
                           + (never ? "the peripheral answered none of the central's packets, and the central gave up"
                                    : "the peripheral went silent and the central's packets stop after the supervision timeout")
                           + "; no LL_TERMINATE_IND"
                           + (platform.showsCoreBluetoothView ? timeout.finding.cbError.map { " → app sees \($0)" } ?? "" : "")
                           + (platform.showsAndroidView ? timeout.finding.android.map { "; Android app: onConnectionStateChange status \($0)" } ?? "" : ""))
            } else if let lost = c.lostFromView, let end = c.findings.first(where: { $0.finding.code == "terminate-encrypted-on-air" }) {
                // An encrypted LL_TERMINATE_IND-sized LL Control PDU, then silence (EncryptedTerminationFindings).
                let frame = end.finding.evidence.first ?? c.lastPacketID
                let sender = switch AirEnding.terminationSender(findingTitle: end.finding.title) {
                case "one side": "an"
                case let side: side + "'s"
                }
                out.append("  ended: most likely by \(sender) LL_TERMINATE_IND (inferred) at packet \(frame): an encrypted LL Control PDU of its length, "
                           + "then the link went silent after packet \(c.lastPacketID) (\(TextFormat.clock(lost.lastSeen))); its reason is encrypted, not in the capture")
            } else if let lost = c.lostFromView {
                // A sniffer's capture that went on without the link (AirObservation).
                out.append("  ended: not in the capture: its last packet is \(c.lastPacketID) (\(TextFormat.clock(lost.lastSeen))), "
                           + "\(TextFormat.duration(lost.captureWentOn)) before the capture ended, with no LL_TERMINATE_IND: "
                           + (c.beganBeforeCapture ? "the sniffer caught \(c.packets) packet(s) of a link it never followed"
                                                   : "the link ended where the sniffer could not see it, or the sniffer lost it"))
            } else if let frame = c.handleReusedPacketID {
                // A Connection Complete gave its handle to a new link (LinkEventName.handleReused).
                out.append("  ended: not in the capture: by packet \(frame) at the latest, where a Connection Complete gave handle "
                           + "\(hex(c.handle, width: 4)) to a new link; its Disconnection Complete is missing, so no reason")
            } else if let frame = c.disconnectPacketID {
                // No reason, yet an end: btmon's Close Index / Delete Index or an HCI Reset took the
                // controller's links with it (`ControllerClosed` in BLEDecode).
                out.append("  ended: with its controller at packet \(frame): the host closed, removed or reset the controller "
                           + "(btmon Close Index / Delete Index, HCI Reset) with the link open, which drops every link "
                           + "with no Disconnection Complete: no reason is in the capture")
            } else {
                out.append("  ended: still open when the capture ended")
            }
        }
        if c.findings.isEmpty {
            out.append("  findings: none")
        } else {
            out.append("  findings:")
            for f in c.findings { out += findingLines(f, platform: platform) }
        }
        return out
    }

    /// A link event's `tx_phy=… rx_phy=…` (LE PHY Update Complete's fields, Core v5.4 Vol 4 Part E
    /// 7.7.65.12) as a parameters line says it: `LE 2M`, or `tx LE 2M, rx LE 1M` when they differ.
    static func phyText(_ detail: String) -> String {
        let fields = LinkEventDetail.fields(detail)
        guard let tx = fields["tx_phy"], let rx = fields["rx_phy"] else { return detail }
        func name(_ v: Substring) -> String { v.hasPrefix("0x") ? String(v) : "LE " + v }
        return tx == rx ? name(tx) : "tx \(name(tx)), rx \(name(rx))"
    }

    /// `LE`, `BR/EDR`, and for a link found in progress how that is known (or that it is not).
    static func transportLabel(_ c: ConnectionDiagnosis) -> String {
        let name = c.transport == "le" ? "LE" : "BR/EDR"
        guard c.beganBeforeCapture else { return name }
        if let clue = c.transportClue, let colon = clue.firstIndex(of: ":") {
            return name + " (from " + String(clue[clue.index(after: colon)...].drop { $0 == " " }) + ")"
        }
        return "transport unknown (began before the capture, no LE- or BR/EDR-only traffic; treated as LE)"
    }

    /// `MTU 247`, `MTU 23 (default: never exchanged)`, `MTU unknown (began before the capture)`,
    /// `MTU unknown (no exchange seen before the link's payloads turned unreadable at packet 7)`,
    /// `MTU ≥ 232 (inferred from a 229-byte Handle Value Notification)`.
    static func mtuText(_ c: ConnectionDiagnosis) -> String {
        let largest = c.largestATTPDU.flatMap { $0.length > 23 ? $0 : nil }
        if c.mtuExchanged { return "MTU \(c.mtu)" }
        if let known = c.knownMTU { return "MTU \(known) (default: never exchanged)" }
        if let from = c.ciphertextFrom, !c.beganBeforeCapture {
            return "MTU unknown (no exchange seen before the link's payloads turned unreadable at packet \(from))"
        }
        if let largest {
            let what = BLEAnalysisNames.attOpcodeName(largest.opcode)
            let size = largest.valueLength.map { "a \($0)-byte \(what)" } ?? "a \(largest.length)-byte \(what) PDU"
            return "MTU ≥ \(largest.length) (inferred from \(size); the exchange was before the capture)"
        }
        return "MTU unknown (began before the capture)"
    }

    static func encryptionText(_ c: ConnectionDiagnosis) -> String {
        if c.encrypted { return "encrypted yes" }
        return c.encryptionKnown ? "encrypted no" : "encryption unknown (began before the capture)"
    }

    /// What an app sees of the disconnect, and when nothing, why.
    static func appSees(_ c: ConnectionDiagnosis, reason: Int) -> String {
        if c.transport != "le" { return " → no CBError: a BR/EDR link (CoreBluetooth reports LE links only)" }
        if c.role == "peripheral" { return " → no CBError: the local device was the peripheral (CBPeripheralManager gets no disconnect callback)" }
        if let cb = c.disconnectCBError { return " → app sees \(cb)" }
        if c.findings.contains(where: { $0.finding.code == "local-terminated" }) { return " → app sees no error (the local host ended it)" }
        // The host asked to disconnect and the link then ended otherwise (a peer that never
        // acknowledged the LL_TERMINATE_IND: 0x08): an app that cancelled gets no error.
        if c.localDisconnectRequested { return " → app sees no error if it cancelled the connection (the local host had asked to disconnect)" }
        return " → CoreBluetooth error not known (\(hex(reason)))"
    }

    /// What a CoreBluetooth app sees of a link its controller's reset ended: no per-link
    /// CBError, but a manager state change (Apple's `centralManagerDidUpdateState` and
    /// `peripheralManagerDidUpdateState` documentation: below `.poweredOn` every CBPeripheral is
    /// invalid; a peripheral manager's advertising has stopped and its services are removed).
    static func appSeesReset(_ c: ConnectionDiagnosis) -> String {
        if c.transport != "le" { return " → no CBError: a BR/EDR link (CoreBluetooth reports LE links only)" }
        if c.role == "peripheral" {
            return " → no CBError: a CBPeripheralManager app sees its state leave .poweredOn (peripheralManagerDidUpdateState): "
                + "advertising stopped, services must be added again"
        }
        return " → no CBError for the link (inferred): a CoreBluetooth app sees the manager state leave .poweredOn "
            + "(centralManagerDidUpdateState), every CBPeripheral becomes invalid and a request still outstanding gets no answer"
    }

    /// What an Android app's `onConnectionStateChange` got for the disconnect (AndroidStatusRule).
    static func androidSees(_ c: ConnectionDiagnosis) -> String {
        if c.transport != "le" { return "; Android: no GATT callback (a BR/EDR link)" }
        if c.role == "peripheral" { return "; Android: no BluetoothGattCallback (the phone was the peripheral)" }
        guard let a = c.disconnectAndroid else { return "" }
        return "; Android app: onConnectionStateChange status \(a)"
    }

    /// "Android (…); showing what an Android app's BluetoothGattCallback received".
    static func platformText(_ p: CapturePlatform.Inference) -> String {
        let views = !p.showsCoreBluetoothView ? "showing what an Android app's BluetoothGattCallback received"
            : !p.showsAndroidView ? "showing what a CoreBluetooth app saw"
            : "showing both a CoreBluetooth app's and an Android app's view"
        // The format alone only hints at Android (other tools write btsnoop H4 too): say so, so the
        // line does not name one host and show both hosts' views.
        if p.platform == .android && !p.confirmed {
            return "possibly Android, from \(p.evidence), which other tools write too (no bugreport, no Android vendor command); \(views)"
        }
        let name = ["apple": "Apple", "android": "Android", "bluez": "BlueZ", "unknown": "not known"][p.platform.rawValue] ?? p.platform.rawValue
        return "\(name), inferred from \(p.evidence); \(views)"
    }

    static func findingLines(_ r: ConnectionDiagnosis.RenderedFinding, platform: CapturePlatform.Inference = .unknown) -> [String] {
        let f = r.finding
        var out = ["    \(TextFormat.padded(f.severity.rawValue.uppercased(), 7)) \(f.code): \(f.title)"]
        out += TextFormat.wrap(f.detail, width: 96, indent: "            ")
        if platform.showsCoreBluetoothView, let cb = f.cbError { out.append("            CoreBluetooth: \(cb)") }
        if platform.showsAndroidView, let a = f.android { out.append("            Android: status \(a)") }
        for e in r.evidence.prefix(6) {
            out.append("            #\(e.packetID) \(TextFormat.clock(e.timestamp))  \(e.summary)")
        }
        if r.evidence.count > 6 { out.append("            … and \(r.evidence.count - 6) more packet(s)") }
        return out
    }

    public static func json(_ captures: [CaptureDiagnosis]) -> JSON {
        .array(captures.map { c in
            .object(captureJSONFields(c) + [("connections", .array(c.connections.map(connectionJSON)))])
        })
    }

    /// A capture's JSON members before its `connections`, which come last.
    public static func captureJSONFields(_ c: CaptureDiagnosis) -> [(String, JSON)] {
        [
            ("capture", .string(c.capture.path)),
            ("format", .string(c.capture.formatDescription)),
            ("records", .int(Int64(c.capture.records))),
            ("status", .string(c.capture.status)),
            ("platform", .string(c.platform.platform.rawValue)), ("platform_evidence", .string(c.platform.evidence)),
            ("findings", .array(c.findings.map(findingJSON))),
        ]
    }

    public static func connectionJSON(_ c: ConnectionDiagnosis) -> JSON {
        .object([
            ("id", .int(c.id)), ("handle", .int(Int64(c.handle))),
            ("controller_index", .int(Int64(c.controller))), ("transport", .string(c.transport)),
            ("peer_address", JSON(c.peerAddress)), ("peer_address_type", JSON(c.peerAddressType)), ("name", JSON(c.name)),
            ("role", JSON(c.role)), ("status", .int(Int64(c.status))), ("began_before_capture", .bool(c.beganBeforeCapture)),
            ("start_ts_us", JSON(c.start)), ("end_ts_us", JSON(c.end)),
            ("first_packet_id", .int(Int64(c.firstPacketID))), ("last_packet_id", .int(Int64(c.lastPacketID))),
            ("interval_us", JSON(c.intervalUs)), ("latency", JSON(c.latency)), ("supervision_timeout_ms", JSON(c.supervisionTimeoutMs)),
            ("updates", .array(c.updates.map { u in
                .object([("packet_id", .int(Int64(u.packetID))), ("ts_us", .int(u.timestamp)), ("source", .string(u.source)),
                         ("interval_us", JSON(u.intervalUs)), ("latency", JSON(u.latency)),
                         ("supervision_timeout_ms", JSON(u.supervisionTimeoutMs)), ("status", JSON(u.status))])
            })),
            // Unknown is null (a link that began before the capture), never a default.
            ("mtu", JSON(c.knownMTU)), ("mtu_at_least", JSON(c.largestATTPDU.map(\.length))), ("phy", JSON(c.phy)),
            ("encrypted", c.encryptionKnown ? .bool(c.encrypted) : .null), ("transport_clue", JSON(c.transportClue)),
            ("att_pdus", .int(Int64(c.attPDUs))), ("transactions", .int(Int64(c.transactions))),
            ("transaction_errors", .int(Int64(c.transactionErrors))), ("transaction_timeouts", .int(Int64(c.transactionTimeouts))),
            ("notifications", .int(Int64(c.notifications))),
            // A sniffer's capture: from this packet on the payloads were ciphertext (ATT unknown).
            ("ciphertext_from_packet_id", JSON(c.ciphertextFrom)),
            ("disconnect_reason", JSON(c.disconnectReason)),
            ("disconnect_reason_name", JSON(c.disconnectReason.map { HCIStatusCode(UInt8(truncatingIfNeeded: $0)).name })),
            ("disconnect_packet_id", JSON(c.disconnectPacketID)), ("cb_error", JSON(c.disconnectCBError)),
            ("android_status", JSON(c.disconnectAndroid?.status)), ("android_name", JSON(c.disconnectAndroid?.name)),
            ("peripheral_manager", c.peripheralManager.map(peripheralManagerJSON) ?? .null),
            // A sniffer's capture that went on without the link (AirObservation): its end is not in it.
            ("ended_unseen", c.lostFromView.map { .object([("last_seen_ts_us", .int($0.lastSeen)),
                                                         ("capture_went_on_us", .int($0.captureWentOn))]) } ?? .null),
            ("findings", .array(c.findings.map(findingJSON))),
        ])
    }

    /// What a CBPeripheralManager app sees of a link's end where the local device was the peripheral.
    static func peripheralManagerJSON(_ v: PeripheralManagerView) -> JSON {
        .object([
            ("disconnect_callback", .bool(false)),
            ("did_unsubscribe_from", .array(v.subscriptions.map { s in
                .object([("characteristic_uuid", JSON(s.characteristicUUID)), ("cccd_handle", .int(Int64(s.cccdHandle))),
                         ("subscribed_packet_id", .int(Int64(s.packetID))), ("kind", .string(s.kind)), ("inferred", .bool(s.inferred))])
            })),
            ("remote_central_sees", JSON(v.remoteCentralSees)),
        ])
    }

    static func findingJSON(_ r: ConnectionDiagnosis.RenderedFinding) -> JSON {
        let f = r.finding
        return .object([
            ("connection_id", JSON(f.connectionID)), ("severity", .string(f.severity.rawValue)), ("code", .string(f.code)),
            ("title", .string(f.title)), ("detail", .string(f.detail)), ("cb_error", JSON(f.cbError)),
            ("android_status", JSON(f.android?.status)), ("android_name", JSON(f.android?.name)),
            ("evidence", .array(r.evidence.map { .object([("packet_id", .int(Int64($0.packetID))), ("ts_us", .int($0.timestamp)),
                                                         ("summary", .string($0.summary))]) })),
        ])
    }
}

extension ConnectionDiagnosis.Update {
    var describe: String {
        var s = "interval \(TextFormat.fixed(Double(intervalUs ?? 0) / 1000, 2)) ms, latency \(latency ?? 0), timeout \(supervisionTimeoutMs ?? 0) ms"
        s += " (packet \(packetID))"
        return s
    }
}
