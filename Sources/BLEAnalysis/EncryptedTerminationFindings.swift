import BLECore
import BLEDecode
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
    ///
    /// Read from the PDUs' bytes (`packet.raw`: LLID and Length, Vol 6 Part B 2.4), never from
    /// the summaries, which are display text and which a report's scratch timeline does not have
    /// (`DecoderOptions.summaries`). A timeline imported without raw bytes (`--no-raw`) shows no
    /// PDU header: the inference is not made there (the link is lost from view).
    func encryptedTerminationOnAir(_ c: ConnectionFacts, lastSeen: Int64) throws -> Finding? {
        guard let last = try lastNonEmptyPDU(c) else { return nil }
        let frame = last.frame, ts = last.ts
        let intervalUs = Int64(try interval(c, before: frame) ?? 0)
        guard intervalUs > 0 else { return nil }
        let silentFor = captureEnd.saturatingSubtracting(lastSeen)
        let window = intervalUs * Int64(Self.silentEventsAfterTermination)
        // The link stops within a few events of it, then stays silent.
        guard lastSeen.saturatingSubtracting(ts) <= window, silentFor >= window else { return nil }
        let sender = last.direction == "tx" ? "the central" : last.direction == "rx" ? "the peripheral" : "one side"
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

    /// A connection's last PDU on air that is not an Empty PDU, when it is an encrypted LL Control
    /// PDU of `encryptedTerminateLength` (ciphertext: the link's payloads had turned encrypted by
    /// then, `LinkLayerDecoder.ciphertextEventName`, and the decoder read no LL Control PDU in it);
    /// of copies of it from the same side after it (retransmissions, Vol 6 Part B 4.5.9: same
    /// LLID, SN and payload), the first. Nil when another PDU, or one whose bytes are not stored or
    /// not readable, comes last.
    func lastNonEmptyPDU(_ c: ConnectionFacts) throws -> (frame: Int, ts: Int64, direction: String)? {
        let s = try db.prepare("""
            SELECT frame, ts_us, direction, raw, raw_type, malformed FROM packet WHERE connection_id = ?1 ORDER BY rowid DESC
            """)
        try s.bind([.integer(c.id)])
        defer { s.reset() }
        var found: (frame: Int, ts: Int64, direction: String, header: DataChannelHeader, payload: ArraySlice<UInt8>)?
        while try s.step() {
            guard let raw = s.blob(3), let linkType = UInt16(exactly: s.int64(4)),
                  let packet = try? LinkLayerPacket(frame: raw[...], linkType: linkType), !packet.isAdvertising else { return nil }
            let header = DataChannelHeader(octets: packet.header), malformed = s.int64(5) != 0
            if !malformed && header.isEmptyPDU { continue }
            let direction = s.text(2) ?? ""
            if let f = found {
                // Another PDU before it: the first copy is the PDU.
                guard !malformed, direction == f.direction, header.llid == f.header.llid, header.sn == f.header.sn,
                      packet.payload.elementsEqual(f.payload) else { break }
            } else {
                guard !malformed, header.llid == DataChannelHeader.control,
                      Int(header.length) == Self.encryptedTerminateLength, packet.payload.count == Self.encryptedTerminateLength else { return nil }
            }
            found = (s.int(0), s.int64(1), direction, header, packet.payload)
        }
        guard let found, let opcode = found.payload.first else { return nil }
        // Ciphertext: after the link's first unreadable payload, and not read as an LL Control PDU
        // (the decoder makes a link event of each one it reads, named by its opcode).
        let read = try db.rows("""
            SELECT (SELECT min(packet_id) FROM link_event WHERE connection_id = ?1 AND name = ?2),
                   EXISTS (SELECT 1 FROM link_event WHERE connection_id = ?1 AND packet_id = ?3 AND name = ?4)
            """, [.integer(c.id), .text(LinkLayerDecoder.ciphertextEventName), .integer(Int64(found.frame)),
                  .text(LLControlOpcode(opcode).name)]).first
        guard let ciphertextFrom = read?[0].int, ciphertextFrom <= found.frame, read?[1].int == 0 else { return nil }
        return (found.frame, found.ts, found.direction)
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
