import BLECore
import BLETimeline

extension FindingsEngine {
    /// Connection events with no packet of the link after an encrypted LL_TERMINATE_IND-sized
    /// PDU before the silence counts: a sniffer following a link sees the central at every
    /// connection event (Core v5.4 Vol 6 Part B 4.5.1); six in a row without one is the count
    /// after which a new link is given up (4.5.2).
    static let silentEventsAfterTermination = 6

    /// Payload length of an encrypted LL_TERMINATE_IND: opcode and error code (Core v5.4 Vol 6
    /// Part B 2.4.2.1) and the 4-octet MIC every encrypted PDU with a payload carries (2.4, 5.1.3).
    static let encryptedTerminateLength = 6

    /// `terminate-encrypted-on-air`: on a sniffer's capture of an encrypted link it could not
    /// decrypt, the last PDU that is not an Empty PDU is an LL Control PDU (LLID 0b11) of an
    /// LL_TERMINATE_IND's length (`encryptedTerminateLength`), after it come only Empty PDUs or
    /// that PDU again (its acknowledgement, retransmissions) within a few events, and then the
    /// link goes silent for at least `silentEventsAfterTermination` connection events while the
    /// capture goes on. An acknowledged LL_TERMINATE_IND ends the link at once (Vol 6 Part B
    /// 5.1.6): most likely that was it. Said as an inference, without a reason code (it is
    /// encrypted): other LL Control PDUs have a one-octet CtrData too (LL_REJECT_IND,
    /// LL_UNKNOWN_RSP, LL_CLOCK_ACCURACY_REQ/RSP), so neither the length nor the silence alone is enough.
    func encryptedTerminationOnAir(_ c: ConnectionFacts, lastSeen: Int64) throws -> Finding? {
        let last = try db.rows("""
            SELECT frame, ts_us, direction, summary FROM packet
            WHERE connection_id = ?1 AND summary NOT LIKE '%Empty PDU%' ORDER BY rowid DESC LIMIT 1
            """, [.integer(c.id)]).first
        guard let last, let frame = last[0].int, let ts = last[1].int64, let summary = last[3].string,
              summary.hasSuffix("Encrypted LL Control PDU, \(Self.encryptedTerminateLength) bytes (ciphertext)") else { return nil }
        // Only Empty PDUs follow it (the other side's acknowledgement); a PDU like it again is a
        // retransmission only from the same side (Vol 6 Part B 4.5.9), else it is another PDU.
        let after = try db.rows("""
            SELECT count(*) FROM packet WHERE connection_id = ?1 AND rowid > \(PacketKey.sql(capture: "?2", frame: "?3"))
            AND summary NOT LIKE '%Empty PDU%' AND NOT (summary = ?4 AND direction = ?5)
            """, [.integer(c.id), .integer(captureID), .integer(Int64(frame)), .text(summary), .text(last[2].string ?? "")])
        guard after.first?[0].int == 0 else { return nil }
        let intervalUs = Int64(try interval(c, before: frame) ?? 0)
        guard intervalUs > 0 else { return nil }
        let silentFor = captureEnd.saturatingSubtracting(lastSeen)
        let window = intervalUs * Int64(Self.silentEventsAfterTermination)
        // The link stops within a few events of it, then stays silent.
        guard lastSeen.saturatingSubtracting(ts) <= window, silentFor >= window else { return nil }
        let sender = last[2].string == "tx" ? "the central" : last[2].string == "rx" ? "the peripheral" : "one side"
        let detail = "Packet \(frame) is an encrypted LL Control PDU from \(sender) of an LL_TERMINATE_IND's length: "
            + "\(Self.encryptedTerminateLength) bytes, opcode and error code and a 4-byte MIC (Core v5.4 Vol 6 Part B 2.4.2, 5.1.6). "
            + "After it the link carries only Empty PDUs up to packet \(c.lastPacketID), then nothing for \(TextFormat.duration(silentFor)) "
            + "while the capture goes on: at least \(Self.silentEventsAfterTermination) connection events of \(TextFormat.fixed(Double(intervalUs) / 1000, 2)) ms "
            + "without a packet, where a followed link shows one at every event (4.5.1). An acknowledged LL_TERMINATE_IND ends the link at once, "
            + "so this most likely was one (inferred: the sniffer did not decrypt it, and a few other LL Control PDUs have that length). "
            + "Its reason is encrypted: not in the capture."
        return Finding(connectionID: c.id, captureID: captureID, severity: .info, code: "terminate-encrypted-on-air",
                       title: "The link most likely ended with an encrypted LL_TERMINATE_IND from \(sender) (packet \(frame), inferred; its reason is encrypted)",
                       detail: detail, evidence: [frame, c.lastPacketID])
    }

    /// Connection interval (µs) in force just before `frame`: the last applied update's, else
    /// the connection's own.
    func interval(_ c: ConnectionFacts, before frame: Int) throws -> Int? {
        let rows = try db.rows("""
            SELECT interval_us FROM connection_update
            WHERE connection_id = ?1 AND source = 'hci' AND coalesce(status, 0) = 0 AND packet_id < ?2 AND interval_us IS NOT NULL
            ORDER BY packet_id DESC LIMIT 1
            """, [.integer(c.id), .integer(Int64(frame))])
        return rows.first?[0].int ?? c.intervalUs
    }
}
