import BLECore
import BLEDecode
import BLETimeline

/// Links whose ACL payloads the capture writer cut: Android's filtered snoop log
/// (`btsnoop_hci.log.filtered`, AOSP snoop_logger.cc) keeps only the headers of most ACL
/// packets, a bugreport's btsnooz section cuts ACL data in every mode (`PacketDecoder+SnoopCut.swift`),
/// and a pcap or pcapng file keeps at most its snapshot length of each. Each cut record is a "Snoop log cut" link event.
///
/// The finding says what the capture shows (which packets were cut, by which writer, and that
/// their PDUs are att_pdus rows marked cut whose transactions still pair) and what cannot be
/// known from it (the values those PDUs carried). It is information, not an error: the link
/// did nothing wrong, the log left it out.
extension FindingsEngine {
    func snoopFilterFindings(_ c: ConnectionFacts) throws -> [Finding] {
        // Counted a row at a time, the first 50 kept as the evidence: a filtered snoop log cuts
        // every ACL packet of a link, hundreds of thousands on a busy one.
        var n = 0
        var frames: [Int] = []
        try db.forEachRow("""
            SELECT packet_id FROM link_event WHERE capture_id = ?1 AND connection_id = ?2 AND name = ?3 ORDER BY packet_id
            """, [.integer(captureID), .integer(c.id), .text(PacketDecoder.snoopCutEventName)]) { s in
            guard !s.isNull(0) else { return }
            n += 1
            if frames.count < 50 { frames.append(s.int(0)) }
        }
        guard n > 0 else { return [] }
        // Who cut them (`RecordCutter`): a bugreport's btsnooz section cuts ACL data whatever the
        // snoop mode (AOSP btsnooz), a filtered snoop log only in that mode (snoop_logger.cc), a
        // pcap or pcapng every packet longer than its snapshot length (draft-ietf-opsawg-pcapng 4.2).
        let format = try db.rows("SELECT format FROM capture WHERE id = ?1", [.integer(captureID)]).first?[0].string
        let packets = "\(n) packet\(n == 1 ? "" : "s")"
        let writer: String, full: String, title: String
        switch format {
        case "btsnooz":
            writer = "as a bugreport's btsnooz section (BTSNOOP_LOG_SUMMARY) writes every log, whatever the snoop mode: ACL data cut after its first bytes, signalling kept whole"
            full = "The phone's full snoop log (FS/data/misc/bluetooth/logs/btsnoop_hci.log in the bugreport zip, when snoop logging was on) has them."
            title = "The bugreport's btsnooz log cut \(packets) of this link to their first bytes"
        case "pcap", "pcapng":
            writer = "as a pcap or pcapng capture keeps only the first snapshot-length bytes (snaplen: tcpdump -s, dumpcap -s) of every longer packet, commands and events included"
            full = "A capture taken with no snapshot length limit (tcpdump -s 0) has them."
            title = "The capture's snapshot length cut \(packets) of this link"
        case "btsnoop":
            writer = "as Android's filtered snoop mode (persist.bluetooth.btsnooplogmode=filtered) writes them: the ACL and L2CAP headers and at most 5 bytes after them, signalling kept whole"
            full = "A full snoop log (btsnooplogmode=full) has them."
            title = "The snoop log was filtered: \(packets) of this link kept only their headers"
        default:
            writer = "as the program that wrote the capture cut them"
            full = "A capture that keeps whole packets has them."
            title = "The capture writer cut \(packets) of this link"
        }
        let detail = "Known: \(n) ACL packet\(n == 1 ? "" : "s") of this link \(n == 1 ? "is" : "are") shorter in the file "
            + "than on the wire (the record keeps the original length), \(writer). An ATT PDU whose opcode survived is "
            + "an att_pdus row marked cut (cut = 1, no value), and its transaction still pairs. Unknown: the values "
            + "the cut PDUs carried (read, written or notified there). \(full)"
        return [Finding(connectionID: c.id, captureID: captureID, severity: .info, code: "snoop-log-filtered",
                        title: title,
                        detail: detail, evidence: Array(frames.prefix(50)))]
    }
}
