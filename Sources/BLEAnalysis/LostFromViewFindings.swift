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
        let wentOn = captureEnd.saturatingSubtracting(seen)
        // The timeout in force at the end (a connection update may have changed it), else the
        // largest the spec allows (Vol 6 Part B 4.5.2: 32 s).
        let timeoutMs = try supervisionTimeout(c, before: c.lastPacketID + 1) ?? 32_000
        guard wentOn > Int64(timeoutMs) * 1000 else { return [] }
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
}
