import BLECore
import BLETimeline

extension FindingsEngine {
    /// `connection-lost-from-view`: on a sniffer's capture, a connection the sniffer followed from
    /// its CONNECT_IND whose packets stop while the capture goes on past the link's supervision
    /// timeout, with no LL_TERMINATE_IND (`AirObservation`). Every connection event carries a
    /// packet (Core v5.4 Vol 6 Part B 4.5.1), so that long without one the link was gone (4.5.2)
    /// or out of the sniffer's view: either way the capture does not show how it ended, and the
    /// diagnosis must not call it open at the end nor count its unanswered requests as timeouts.
    /// Links the sniffer never followed (caught in passing, begun before the capture) get no
    /// finding: their "ended" line says so.
    func lostFromViewFindings(_ c: ConnectionFacts) throws -> [Finding] {
        guard c.status == 0, !c.beganBeforeCapture, let seen = try air.lastSeen(c) else { return [] }
        if let terminated = try encryptedTerminationOnAir(c, lastSeen: seen) { return [terminated] }
        let wentOn = captureEnd.saturatingSubtracting(seen)
        // The timeout in force at the end (a connection update may have changed it), else the
        // largest the spec allows (Vol 6 Part B 4.5.2: 32 s).
        let timeoutMs = try supervisionTimeout(c, before: c.lastPacketID + 1) ?? 32_000
        guard wentOn > Int64(timeoutMs) * 1000 else { return [] }
        if let timeout = try timeoutSeenOnAir(c, lastSeen: seen, timeoutMs: timeoutMs) { return [timeout] }
        var detail = "The capture's last packet of this connection is \(c.lastPacketID); the capture went on \(TextFormat.duration(wentOn)) more, "
            + "past the link's \(timeoutMs) ms supervision timeout, without another of its packets and without an LL_TERMINATE_IND. "
            + "A central sends a packet at every connection event (Core v5.4 Vol 6 Part B 4.5.1), so the link ended where the sniffer "
            + "could not see it (a supervision timeout, 4.5.2), or the sniffer lost it (a connection update or channel map it missed, "
            + "or it went to follow another link). What happened after that packet is not in the capture."
        var evidence = [c.lastPacketID]
        if let next = try packet(c.lastPacketID + 1) {
            detail += " The next packet, \(c.lastPacketID + 1) \(TextFormat.duration(max(0, next.ts.saturatingSubtracting(seen)))) later, is \(Self.plain(next.summary))."
            evidence.append(c.lastPacketID + 1)
        }
        return [Finding(connectionID: c.id, captureID: captureID, severity: .warning, code: "connection-lost-from-view",
                        title: "The capture does not show how this connection ended: its packets stop at packet \(c.lastPacketID)",
                        detail: detail, evidence: evidence)]
    }

    /// `connection-timeout-on-air`: the sniffer still saw the central's packets, one each
    /// connection event (Core v5.4 Vol 6 Part B 4.5.1), while the peripheral answered none of
    /// them for at least the supervision timeout in force, and then the central's stop too: the
    /// link was lost as the central sees it, 0x08 Connection Timeout (4.5.2), or 0x3E Connection
    /// Failed to be Established when the peripheral never answered (4.5.2: six connection events).
    /// A sniffer that lost the link would have lost the central's packets too; here it did not.
    func timeoutSeenOnAir(_ c: ConnectionFacts, lastSeen: Int64, timeoutMs: Int) throws -> Finding? {
        let peripheral = try db.rows("""
            SELECT frame, ts_us FROM packet WHERE connection_id = ?1 AND direction = 'rx' ORDER BY rowid DESC LIMIT 1
            """, [.integer(c.id)]).first
        let lastFrame = peripheral?[0].int ?? c.firstPacketID
        let central = try db.rows("""
            SELECT count(*), min(frame), min(ts_us) FROM packet WHERE connection_id = ?1 AND direction = 'tx' AND frame > ?2
            """, [.integer(c.id), .integer(Int64(lastFrame))]).first
        guard let central, let sent = central[0].int, sent >= 3, let firstUnanswered = central[1].int,
              let firstUnansweredTs = central[2].int64 else { return nil }
        let silentSince = peripheral?[1].int64 ?? firstUnansweredTs
        let silence = lastSeen.saturatingSubtracting(silentSince)
        let never = peripheral == nil
        // Never answered: the central gives up after six connection events; else after the timeout,
        // and soon after it: a central that went on much longer was hearing a peripheral the
        // sniffer did not.
        let timeoutUs = Int64(timeoutMs) * 1000
        guard never || (silence >= timeoutUs && silence <= timeoutUs + timeoutUs / 2 + 100_000) else { return nil }
        let reason = never ? "0x3E Connection Failed to be Established" : "0x08 Connection Timeout"
        var detail: String
        if let peripheral, let frame = peripheral[0].int {
            detail = "The peripheral's last packet is \(frame); the central went on sending at every connection event, \(sent) packet(s) from "
                + "\(firstUnanswered) to \(c.lastPacketID), unanswered for \(TextFormat.duration(silence)), at least the link's \(timeoutMs) ms "
                + "supervision timeout, and then stopped too (Core v5.4 Vol 6 Part B 4.5.1, 4.5.2)."
        } else {
            detail = "The peripheral answered none of the central's \(sent) packet(s) (\(firstUnanswered) to \(c.lastPacketID)), and then the "
                + "central stopped: a connection is lost when the peripheral is not heard in its first six connection events "
                + "(Core v5.4 Vol 6 Part B 4.5.2)."
        }
        detail += " The sniffer still saw the central, so it had not lost the link: the link was lost, as the central's controller reports it, with "
            + reason + " (inferred: no LL_TERMINATE_IND, and no HCI in an air capture)."
        // What the central's app would see of the disconnect its controller reports, by the rules
        // the reported ones follow (the host had not asked to disconnect: no LL_TERMINATE_IND).
        let code = HCIStatusCode(never ? 0x3E : 0x08), isLE = c.transport == "le"
        let cb = CoreBluetoothErrorRule.disconnect(reason: code, isLE: isLE, localRole: c.role, localDisconnectRequested: false,
                                                   keyMissingBefore: false, attTimeoutBefore: false)
        let android = AndroidStatusRule.disconnect(reason: code, isLE: isLE, localRole: c.role, localDisconnectRequested: false,
                                                   attTimeoutBefore: false, disconnectReasonSent: nil)
        return Finding(connectionID: c.id, captureID: captureID, severity: .warning, code: "connection-timeout-on-air",
                       title: never ? "The connection was never established: the peripheral answered none of the central's packets (\(reason), inferred)"
                           : "The link was lost: the peripheral went silent and the central stopped after the supervision timeout (\(reason), inferred)",
                       detail: detail, evidence: [peripheral?[0].int, firstUnanswered, c.lastPacketID].compactMap { $0 },
                       cbError: cb, android: android)
    }
}
