import BLECore
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
    /// The latest Number Of Completed Packets naming `handle` with a non-zero count, after `from`
    /// and before `frame` (the event carries several handles; its raw bytes are read).
    func lastCompletedPackets(handle: Int, from: Int, before frame: Int) throws -> (frame: Int, ts: Int64)? {
        let s = try db.prepare("""
            SELECT frame, ts_us, raw FROM packet WHERE rowid > \(PacketKey.sql(capture: "?1", frame: "?2"))
            AND rowid < \(PacketKey.sql(capture: "?1", frame: "?3")) AND kind = 'evt' AND summary LIKE 'Rcvd Number of Completed Packets%'
            ORDER BY rowid DESC LIMIT 5000
            """)
        try s.bind([.integer(captureID), .integer(Int64(from)), .integer(Int64(frame))])
        while try s.step() {
            guard let raw = s.blob(2), raw.count >= 3, raw[0] == 0x13 else { continue }
            var i = 3
            for _ in 0..<Int(raw[2]) where i + 4 <= raw.count {
                let h = (Int(raw[i]) | Int(raw[i + 1]) << 8) & 0x0FFF
                let n = Int(raw[i + 2]) | Int(raw[i + 3]) << 8
                if h == handle && n > 0 { return (s.int(0), s.int64(1)) }
                i += 4
            }
        }
        return nil
    }

    func supervisionTimeoutFinding(_ c: ConnectionFacts, frame: Int, at: Int64, all: [ConnectionFacts],
                                   lastRx: (frame: Int, ts: Int64, summary: String)?, cb: String?,
                                   tail: String, extraEvidence: [Int]) throws -> Finding {
        var known: [String] = ["the controller reported 0x08 Connection Timeout (packet \(frame))"]
        var inferred: [String] = []
        var evidence = [frame]
        // BR/EDR has no LE connection parameters: its link supervision timeout (20 s unless Write
        // Link Supervision Timeout, Vol 4 Part E 7.3.42, changed it) is rarely in a capture.
        let p = c.transport == "le" ? try parametersInForce(c, before: frame) : nil
        if c.transport != "le" {
            known.append("this BR/EDR link's supervision timeout is not in the capture (20 s by default)")
        } else if let p {
            known.append("the parameters in force were \(p.describe), \(p.source)")
            if let pid = p.packetID, p.fromUpdate { evidence.append(pid) }
        } else {
            known.append("the parameters in force are unknown (the link began before the capture and no LE Connection Update Complete followed)")
        }
        if let lastRx {
            evidence.append(lastRx.frame)
            known.append("the peer's last data was \(lastRx.summary) (packet \(lastRx.frame)), \(TextFormat.duration(at - lastRx.ts)) before the disconnect")
        } else {
            known.append("no data from the peer was captured on this link")
        }
        let completed = try lastCompletedPackets(handle: c.handle, from: c.firstPacketID, before: frame)
        if let completed {
            evidence.append(completed.frame)
            known.append("the controller last reported the host's data sent (Number Of Completed Packets for handle \(hex(c.handle, width: 4)), packet \(completed.frame)) \(TextFormat.duration(at - completed.ts)) before the disconnect: the link was alive then")
        }
        // When the peer went silent: one supervision timeout before the report (Vol 6 Part B 4.5.2).
        let onset = p.map { at - Int64($0.supervisionTimeoutMs) * 1000 }
        // Slack for host timestamps: a connection event either way, at least 10 ms.
        let slack = Int64(max(10_000, p?.intervalUs ?? 0))
        if let onset, let p {
            inferred.append("the peer's last link-layer packet came about \(p.supervisionTimeoutMs) ms before the disconnect, near \(TextFormat.clock(onset)) (the controller reports 0x08 one supervision timeout after the last packet it received)")
            if let lastRx {
                if lastRx.ts < onset - slack {
                    inferred.append("the \(TextFormat.duration(onset - lastRx.ts)) between the peer's last data and that moment were empty link-layer packets, which HCI does not show: the peer was still answering then")
                } else if lastRx.ts > onset + slack {
                    inferred.append("the capture shows data from the peer only \(TextFormat.duration(at - lastRx.ts)) before the disconnect, less than the timeout: the timeout the controller used was not \(p.supervisionTimeoutMs) ms (an update the capture missed) or the capture's timestamps lag the controller's")
                }
            }
            if let completed, completed.ts > onset + slack {
                inferred.append("Number Of Completed Packets after that moment can only count packets the controller gave up on or flushed, or report late")
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
                known.append("the peer's address was heard advertising \(n) time(s) while the link was up, after its last data, the last \(TextFormat.duration(at - lastTs)) before the disconnect (packet \(last)\(rssi))")
                advertising = onset.map { lastTs >= $0 - slack } ?? true
                inferred.append("a peer that advertises is in range, not lost: it had dropped the link itself (a reset, a crash, or its own timeout) and the local controller noticed only at its supervision timeout" +
                                (advertising ? "" : " (unless it also advertises while connected)"))
            }
        }
        // Other links lost at the same moment: a common local cause.
        var shared: [ConnectionFacts] = []
        if let onset {
            for o in all where o.id != c.id && o.disconnectReason == 0x08 {
                guard let oFrame = o.disconnectPacketID, let oAt = o.disconnectedAt,
                      let op = try parametersInForce(o, before: oFrame) else { continue }
                let oOnset = oAt - Int64(op.supervisionTimeoutMs) * 1000
                let tolerance = Int64(max(50_000, 4 * max(op.intervalUs, p?.intervalUs ?? 0)))
                guard abs(oOnset - onset) <= tolerance else { continue }
                shared.append(o)
                evidence.append(oFrame)
                known.append("connection \(o.id) to \(peer(o)) timed out too (packet \(oFrame), \(TextFormat.duration(abs(oAt - at))) \(oAt >= at ? "after" : "before") this one)")
                inferred.append("working back from its timeout (\(op.supervisionTimeoutMs) ms) it went silent within \(TextFormat.duration(abs(oOnset - onset))) of this link: a common local cause (the local controller, its radio or interference near it) is more likely than two unrelated losses")
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
        if let tight {
            title = "Link to \(peer(c)) lost: supervision timeout of only \(TextFormat.fixed(tight, 1)) connection events"
        } else if advertising {
            title = "Link to \(peer(c)) lost: supervision timeout while the peer was advertising (it had dropped the link)"
        } else if !shared.isEmpty {
            title = "Link to \(peer(c)) lost: supervision timeout, together with \(shared.map { "connection \($0.id)" }.joined(separator: ", "))"
        } else {
            title = "Link to \(peer(c)) lost: supervision timeout"
        }
        var detail = "Known: " + known.joined(separator: "; ") + "."
        if !inferred.isEmpty { detail += " Inferred: " + inferred.joined(separator: "; ") + "." }
        return Finding(connectionID: c.id, captureID: captureID, severity: .error, code: "supervision-timeout",
                       title: title, detail: detail + tail, evidence: evidence + extraEvidence, cbError: cb)
    }
}
