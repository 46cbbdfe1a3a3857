import BLECore
import BLEDecode
import BLETimeline

/// `supervision-timeout`: a link the controller reported lost with 0x08 Connection Timeout,
/// explained from the controller's own evidence of liveness, with what is known and what is
/// inferred said apart (STYLE lesson 16).
///
/// The controller reports 0x08 once it has received no packet from the peer for one supervision
/// timeout (Core v5.4 Vol 6 Part B 4.5.2); HCI shows data, never the empty link-layer packets
/// that keep an idle link alive. The evidence: the peer's last data; Number Of Completed Packets
/// for the handle (Vol 4 Part E 7.7.19: the controller sent, and on LE the peer acknowledged,
/// the host's data); the peer's address heard advertising while the link was up (a peripheral
/// that advertises is in range and, usually, no longer connected); other links that timed out
/// at the same moment (a local cause); and the parameters in force, against the spec's minimum
/// (timeout > 2 × interval × (1 + latency), Vol 6 Part B 4.5.2) and Apple's guidelines (> 3 ×,
/// QA1931 / Accessory Design Guidelines).
extension FindingsEngine {
    /// ATT PDUs that oblige the peer to answer with data: the requests (Core v5.4 Vol 3 Part F
    /// 3.4, every opcode whose answer is a response) and Handle Value Indication (3.4.7.2, answered
    /// by a Confirmation). Notifications, Write Commands, responses and confirmations need none.
    static let answeredOpcodes: Set<Int> = [0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x1D, 0x20]

    /// What the local side sent after the peer's last data (`after`, a frame) and before `frame`,
    /// when none of it obliged the peer to answer with data: then the peer was silent by
    /// protocol, and its last data is no evidence of when it went silent. Nil otherwise.
    func sentOnlyUnanswered(_ c: ConnectionFacts, after: Int, before frame: Int) throws -> String? {
        let rows = try db.rows("""
            SELECT opcode, count(*) FROM att_pdu WHERE connection_id = ?1 AND packet_id > ?2 AND packet_id < ?3
            AND \(GATTServerSide.sqlInferredDirection(direction: "direction", opcode: "opcode")) = 'tx'
            GROUP BY opcode ORDER BY opcode
            """, [.integer(c.id), .integer(Int64(after)), .integer(Int64(frame))])
        guard !rows.isEmpty, !rows.contains(where: { Self.answeredOpcodes.contains($0[0].int ?? -1) }) else { return nil }
        func count(_ ops: Set<Int>?) -> Int {
            rows.filter { ops?.contains($0[0].int ?? -1) ?? !(Set([0x1B, 0x23, 0x52, 0xD2]).contains($0[0].int ?? -1)) }
                .reduce(0) { $0 + ($1[1].int ?? 0) }
        }
        let parts = [(count([0x1B, 0x23]), "notification(s)"), (count([0x52, 0xD2]), "Write Command(s)"),
                     (count(nil), "response(s) or confirmation(s)")]
        return parts.filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }.joined(separator: " and ")
    }

    func supervisionTimeoutFinding(_ c: ConnectionFacts, frame: Int, at: Int64, losses: LinkLossOnsets,
                                   lastRx: LastACL?, cb: String?,
                                   tail: String, extraEvidence: [Int]) throws -> Finding {
        var known: [String] = ["the controller reported 0x08 Connection Timeout (packet \(frame))"]
        var inferred: [String] = []
        var evidence = [frame]
        // BR/EDR has no LE connection parameters: its link supervision timeout (20 s unless Write
        // Link Supervision Timeout, Vol 4 Part E 7.3.42, changed it) is rarely in a capture.
        let p = c.transport == "le" ? try parametersInForce(c, before: frame) : nil
        // A BR/EDR link's own timeout, when the controller reported it (Link Supervision Timeout
        // Changed, Vol 4 Part E 7.7.46).
        let bredr = c.transport != "le" ? try bredrSupervisionTimeout(c, before: frame) : nil
        if c.transport != "le" {
            if let bredr {
                evidence.append(bredr.frame)
                known.append("this BR/EDR link's supervision timeout was \(TextFormat.fixed(bredr.ms, bredr.ms.rounded() == bredr.ms ? 0 : 3)) ms (Link Supervision Timeout Changed, packet \(bredr.frame))")
            } else {
                known.append("this BR/EDR link's supervision timeout is not in the capture (\(LinkSupervisionTimeout.defaultMilliseconds / 1000) s by default)")
            }
        } else if let p {
            known.append("the parameters in force were \(p.describe), \(p.source)")
            if let pid = p.packetID, p.fromUpdate { evidence.append(pid) }
        } else {
            known.append("the parameters in force are unknown (the link began before the capture and no LE Connection Update Complete followed)")
        }
        // A change of parameters asked for and never reported complete: the controller may have
        // applied it at its instant (Vol 6 Part B 5.1.1) when the link was lost.
        let pending = c.transport == "le" ? try pendingParameterUpdate(c, after: p?.packetID ?? (c.firstPacketID - 1), before: frame) : nil
        if let pending {
            evidence.append(pending.frame)
            known.append("the host asked for new parameters at packet \(pending.frame) (\(pending.name): \(pending.describe))" +
                         (pending.statusFrame.map { ", which the controller accepted (packet \($0))" } ?? "") +
                         ", and no LE Connection Update Complete followed before the disconnect")
        }
        // The host's own Disconnect: a peer that acknowledges the LL_TERMINATE_IND ends the link at
        // once with 0x16; one that never does leaves the controller waiting a supervision timeout.
        let local = try localDisconnectRequest(c, before: frame)
        if let local {
            evidence.append(local.frame)
            known.append("the host asked to disconnect at packet \(local.frame)" + (local.reason.map { " (reason \($0))" } ?? "") +
                         ", \(TextFormat.duration(at.saturatingSubtracting(local.ts))) before the report" +
                         (local.statusFrame.map { ", and the controller accepted it (packet \($0))" } ?? ""))
        }
        // A peer that only receives (the local server notifies, or the host floods Write Commands)
        // sends no data by protocol: its last data dates nothing.
        let onlySent = try sentOnlyUnanswered(c, after: lastRx?.frame ?? c.firstPacketID - 1, before: frame)
        // pcap LINKTYPE 187: ACL without direction. ATT opcodes tell whose PDU it was (`lastACL`),
        // nothing tells which ACL packets the host sent (SMP, signalling, fragments).
        let directionless = try hasDirectionlessACL(c)
        if let lastRx {
            evidence.append(lastRx.frame)
            let text = "the peer's last data was \(lastRx.summary) (packet \(lastRx.frame)), \(TextFormat.duration(at.saturatingSubtracting(lastRx.ts))) before the disconnect" +
                (onlySent.map { ", which dates nothing: after it the local side only sent \($0), which the peer acknowledges at the link layer alone, never with data" } ?? "")
            // A capture without direction (LINKTYPE 187): the ATT opcode says whose it was.
            if lastRx.inferred {
                known.append("the capture does not record which way ACL data went")
                inferred.append(text + " (a server's ATT PDU taken as the peer's)")
            } else {
                known.append(text)
            }
        } else if directionless {
            known.append("the capture does not record which way ACL data went, and no ATT PDU on this link is a server's (which GATT reconstruction takes as the peer's): when the peer last sent data is unknown")
        } else {
            known.append("no data from the peer was captured on this link" + (onlySent.map { " (the local side only sent \($0), which need no answer)" } ?? ""))
        }
        // ISO data from the peer on a CIS of this link (Core v5.4 Vol 4 Part E 5.4.5): a CIS has
        // its own events and supervision (Vol 6 Part B 4.5.13), so its packets are no ACL data,
        // but they show the peer in range and transmitting when they came.
        if let iso = try lastPeerISO(c, before: frame), iso.frame > (lastRx?.frame ?? 0) {
            evidence.append(iso.frame)
            known.append("the peer's last isochronous data on a CIS of this link was packet \(iso.frame) (\(iso.summary)), \(TextFormat.duration(at.saturatingSubtracting(iso.ts))) before the disconnect: a CIS has its own link-layer events, so this is no data on this link, but the peer was in range and transmitting then")
        }
        // Records the capture writer dropped while the link was up: the evidence above may miss them.
        if let gap = try db.rows("""
            SELECT count(*), min(packet_id) FROM decode_problem WHERE capture_id = ?1 AND \(WriterDropsProblem.sqlMatch())
            AND packet_id > ?2 AND packet_id <= ?3
            """, [.integer(captureID), .integer(Int64(c.firstPacketID)), .integer(Int64(frame))]).first,
           let n = gap[0].int, n > 0, let first = gap[1].int {
            evidence.append(first)
            known.append("the capture writer dropped packets \(n == 1 ? "once" : "\(n) times") while the link was up, the first time before packet \(first) (capture-gap): what the peer sent and what the controller reported in those gaps is not in the capture, and what is said here of them may be incomplete")
        }
        // Slack for host timestamps: a connection event either way, at least 10 ms.
        let slack = Int64(max(10_000, p?.intervalUs ?? 0))
        // The controller's last packet from the peer came no earlier than the peer's last data,
        // nor before the link began: a timeout that would put it earlier cannot be the one used.
        let heardSince: Int64? = [lastRx?.ts, c.beganBeforeCapture ? nil : c.connectedAt].compactMap { $0 }.max()
        func couldRunOut(_ ms: Double) -> Bool {
            heardSince.map { at.saturatingSubtracting(Int64((ms * 1000).rounded())) >= $0.saturatingSubtracting(slack) } ?? true
        }
        // When the peer went silent: one supervision timeout before the report (Vol 6 Part B 4.5.2;
        // a BR/EDR link's, Vol 4 Part E 7.3.42), the pending update's when only it fits.
        var timeoutMs: Double? = p.map { Double($0.supervisionTimeoutMs) } ?? bredr?.ms
        var lostAtUpdate = false
        if let pending, let old = timeoutMs, Double(pending.supervisionTimeoutMs) != old {
            let new = Double(pending.supervisionTimeoutMs)
            if !couldRunOut(old), couldRunOut(new) {
                timeoutMs = new
                lostAtUpdate = true
                inferred.append("the controller was using the new parameters: a timeout of \(TextFormat.fixed(old, 0)) ms cannot have run out \(TextFormat.duration(at.saturatingSubtracting(heardSince ?? at))) after \(lastRx != nil ? "the peer's last data" : "the link began"), one of \(pending.supervisionTimeoutMs) ms can. The central applies an update at its instant (Core Vol 6 Part B 5.1.1); a peer that missed the LL_CONNECTION_UPDATE_IND, or its instant, keeps the old timing and is not heard again")
            } else if couldRunOut(new) {
                inferred.append("had the update's instant passed, the controller was using its \(pending.supervisionTimeoutMs) ms timeout rather than \(TextFormat.fixed(old, 0)) ms")
            }
        }
        let onset = timeoutMs.map { at.saturatingSubtracting(Int64(($0 * 1000).rounded())) }
        let onsetFits = timeoutMs.map(couldRunOut) ?? false
        // The liveness evidence for a peer that only receives: the controller's completed packets.
        let acks = try AcknowledgedPackets(c, before: frame, db: db, captureID: captureID, completions: completions)
        let completed = acks.lastCredit
        // Completed means transmitted or flushed (Vol 4 Part E 7.7.19): a count after the peer went
        // silent is the controller giving up on the packets, no sign of life.
        let afterSilence = onset.flatMap { onset in completed.map { $0.ts > onset.saturatingAdding(slack) } } ?? false
        if let last = acks.lastAcknowledged, let credit = acks.lastCredit {
            evidence += [last.frame, credit.frame]
            known.append("the last of the host's packets the \(afterSilence ? "controller reported complete" : "peer acknowledged") was \(last.summary) (packet \(last.frame), \(TextFormat.clock(last.ts))), counted by Number Of Completed Packets for handle \(hex(c.handle, width: 4)) at packet \(credit.frame), \(TextFormat.duration(at.saturatingSubtracting(credit.ts))) before the disconnect" + (afterSilence ? "" : ": the link was alive then"))
        }
        if directionless {
            // Number Of Completed Packets counts the host's ACL packets, first in, first out.
            known.append("which of the host's packets the peer acknowledged is unknown: Number Of Completed Packets counts the host's ACL packets, and the capture does not say which ACL packets the host sent")
        } else if acks.completionsMissing {
            known.append("the capture has no Number Of Completed Packets for handle \(hex(c.handle, width: 4)) (a filtered log, or a controller that does not send them): which of the host's \(acks.outstanding.count) packet(s) the peer acknowledged is not in it")
        } else if let first = acks.outstanding.first {
            evidence.append(first.frame)
            known.append("\(acks.outstanding.count) packet(s) the host sent \(acks.lastAcknowledged == nil ? "on this link" : "after it") were never acknowledged (no Number Of Completed Packets counted them before the disconnect), the first \(first.summary) (packet \(first.frame), \(TextFormat.clock(first.ts)))")
        } else if acks.lastAcknowledged != nil {
            known.append(afterSilence ? "every packet the host sent on the link was reported complete" : "every packet the host sent on the link was acknowledged")
        }
        if let onset, let timeoutMs {
            let timeoutText = TextFormat.fixed(timeoutMs, timeoutMs.rounded() == timeoutMs ? 0 : 3)
            // A Disconnect sent no later than that moment: the report is the end of the terminate
            // procedure's own timer, one supervision timeout after LL_TERMINATE_IND was queued
            // (Vol 6 Part B 5.1.6), and dates nothing of the peer's silence.
            let terminateTimer = local.map { onsetFits && onset >= $0.ts.saturatingSubtracting(slack) } ?? false
            if terminateTimer, let local {
                inferred.append("the controller sent LL_TERMINATE_IND for the host's Disconnect and the peer never acknowledged it (an acknowledged one ends the link at once, with 0x16): the controller gives up one supervision timeout after queuing it (Core Vol 6 Part B 5.1.6), here \(TextFormat.duration(at.saturatingSubtracting(local.ts))) after packet \(local.frame). The peer went silent after \(lastRx.map { "its last data (packet \($0.frame))" } ?? "the link began") and before it could acknowledge the termination; when exactly is not in the capture")
            } else if onsetFits {
                inferred.append("the peer's last \(p != nil ? "link-layer" : "baseband") packet came about \(timeoutText) ms before the disconnect, near \(TextFormat.clock(onset)) (the controller reports 0x08 one supervision timeout after the last packet it received)")
                if let lastRx, onlySent == nil, lastRx.ts < onset.saturatingSubtracting(slack) {
                    inferred.append("the \(TextFormat.duration(onset.saturatingSubtracting(lastRx.ts))) between the peer's last data and that moment were \(p != nil ? "empty link-layer packets" : "baseband POLL and NULL packets"), which HCI does not show: the peer was still answering then")
                }
            } else {
                let since = lastRx.map { "data from the peer only \(TextFormat.duration(at.saturatingSubtracting($0.ts))) before the disconnect" }
                    ?? "the link beginning only \(TextFormat.duration(at.saturatingSubtracting(heardSince ?? at))) before the disconnect"
                inferred.append("the capture shows \(since), less than the timeout: the timeout the controller used was not \(timeoutText) ms (an update the capture does not show) or the capture's timestamps lag the controller's")
            }
            if let local, onsetFits, !terminateTimer {
                inferred.append("the host's Disconnect (packet \(local.frame)) came after the peer had gone silent: its LL_TERMINATE_IND was never acknowledged either")
            }
            // Whether the peer took the host's packets: only from completions the capture shows,
            // and not for packets the peer answered with data after they were sent.
            let completionsTell = !acks.completionsMissing && (acks.outstanding.first.map { first in lastRx.map { $0.frame < first.frame } ?? true } ?? true)
            if onsetFits, !terminateTimer, let completed, completed.ts > onset.saturatingAdding(slack) {
                inferred.append("Number Of Completed Packets after that moment can only count packets the controller gave up on or flushed, or report late")
            } else if onsetFits, !terminateTimer, completionsTell, let first = acks.outstanding.first {
                // A peer still answering acknowledges within a few connection events (more with peripheral latency).
                let wait = max(slack, Int64(p?.effectiveIntervalUs ?? 0).saturatingMultiplied(by: 2))
                if first.ts < onset.saturatingSubtracting(wait) {
                    inferred.append("packet \(first.frame) waited \(TextFormat.duration(onset.saturatingSubtracting(first.ts))) for an acknowledgement while the peer's link layer still kept the link alive: the peer was refusing data (link-layer flow control, a peer that stopped reading) before it went silent")
                } else {
                    inferred.append("the peer went silent after the last acknowledgement" + (completed.map { " (packet \($0.frame))" } ?? "") +
                                    " and before packet \(first.frame) could be acknowledged: the \(acks.outstanding.count) unacknowledged packet(s) stayed in the controller's buffers until the link was lost")
                }
            }
        }
        // The peer heard advertising while the local controller still held the link.
        var advertising = false
        if let address = c.peerAddress, address != "00:00:00:00:00:00" {
            let since = try lastRx?.ts ?? c.connectedAt ?? packet(c.firstPacketID)?.ts ?? 0
            let adv = try db.rows("""
                SELECT count(*), max(packet_id), max(ts_us), min(rssi), max(rssi) FROM adv_report
                WHERE capture_id = ?1 AND address = ?2 AND ts_us > ?3 AND ts_us < ?4
                """, [.integer(captureID), .text(address), .integer(since), .integer(at)]).first
            if let adv, let n = adv[0].int, n > 0, let last = adv[1].int, let lastTs = adv[2].int64 {
                evidence.append(last)
                let rssi = adv[3].int.map { lo in adv[4].int.map { hi in lo == hi ? ", RSSI \(lo) dBm" : ", RSSI \(lo)…\(hi) dBm" } ?? "" } ?? ""
                known.append("the peer's address was heard advertising \(n) time(s) while the link was up, after its last data, the last \(TextFormat.duration(at.saturatingSubtracting(lastTs))) before the disconnect (packet \(last)\(rssi))")
                advertising = onset.map { lastTs >= $0.saturatingSubtracting(slack) } ?? true
                inferred.append("a peer that advertises is in range, not lost: it had dropped the link itself (a reset, a crash, or its own timeout) and the local controller noticed only at its supervision timeout" +
                                (advertising ? "" : " (unless it also advertises while connected)"))
            }
        }
        // Other links lost at the same moment: a common local cause (LinkLossOnsets).
        var shared: [LinkLossOnsets.Loss] = []
        if let onset, let p {
            let (nearest, count) = losses.sharing(onset: onset, intervalUs: p.intervalUs, except: c.id, limit: 5)
            shared = nearest
            for o in nearest {
                evidence.append(o.frame)
                let apart = o.at.saturatingSubtracting(at)
                known.append("connection \(o.connection.id) to \(peer(o.connection)) timed out too (packet \(o.frame), \(TextFormat.duration(apart.saturatingMagnitude)) \(apart >= 0 ? "after" : "before") this one)")
                inferred.append("working back from its timeout (\(o.timeoutMs) ms) it went silent within \(TextFormat.duration(o.onset.saturatingSubtracting(onset).saturatingMagnitude)) of this link: a common local cause (the local controller, its radio or interference near it) is more likely than two unrelated losses")
            }
            if count > nearest.count {
                known.append("\(count) other link(s) in all went silent within \(TextFormat.duration(LinkLossOnsets.tolerance(p.intervalUs, p.intervalUs))) or so of this one")
            }
        }
        // Parameters that leave no margin.
        var tight: Double?
        if let p, p.effectiveIntervalUs > 0 {
            let events = Double(p.supervisionTimeoutMs) * 1000 / Double(p.effectiveIntervalUs)
            if events <= 3 {
                tight = events
                let rule = events <= 2
                    ? "the spec requires more than 2 (Core Vol 6 Part B 4.5.2)"
                    : "Apple's guidelines ask for more than 3 and at least 2 s (QA1931)"
                known.append("the supervision timeout, \(p.supervisionTimeoutMs) ms, is only \(TextFormat.fixed(events, 1)) connection events of \(TextFormat.fixed(Double(p.effectiveIntervalUs) / 1000, 2)) ms (interval × (1 + latency)); \(rule)")
                inferred.append("with so little margin a few missed packets end the link: the parameters \(p.fromUpdate ? "negotiated at packet \(p.packetID ?? 0)" : "the link was created with") are the most likely cause")
            }
        }
        let title: String
        if let local, onsetFits {
            title = "Link to \(peer(c)) lost while disconnecting: the peer never acknowledged the termination (packet \(local.frame))"
        } else if lostAtUpdate, let pending {
            title = "Link to \(peer(c)) lost at the parameter update of packet \(pending.frame)"
        } else if let tight {
            title = "Link to \(peer(c)) lost: supervision timeout of only \(TextFormat.fixed(tight, 1)) connection events"
        } else if advertising {
            title = "Link to \(peer(c)) lost: supervision timeout while the peer was advertising (it had dropped the link)"
        } else if onlySent != nil, !acks.outstanding.isEmpty, !acks.completionsMissing {
            title = "Link to \(peer(c)) lost: supervision timeout while the local side was sending, \(acks.outstanding.count) packet(s) never acknowledged"
        } else if !shared.isEmpty {
            title = "Link to \(peer(c)) lost: supervision timeout, together with \(shared.map { "connection \($0.connection.id)" }.joined(separator: ", "))"
        } else {
            title = "Link to \(peer(c)) lost: supervision timeout"
        }
        var detail = "Known: " + known.joined(separator: "; ") + "."
        if !inferred.isEmpty { detail += " Inferred: " + inferred.joined(separator: "; ") + "." }
        return Finding(connectionID: c.id, captureID: captureID, severity: .error, code: "supervision-timeout",
                       title: title, detail: detail + tail, evidence: evidence + extraEvidence, cbError: cb)
    }
}
