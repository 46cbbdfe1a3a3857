import BLECore
import BLEDecode
import BLETimeline

/// Links whose ACL payloads the capture writer cut: Android's filtered snoop log
/// (`btsnoop_hci.log.filtered`, AOSP snoop_logger.cc) keeps only the headers of most ACL
/// packets (`PacketDecoder+SnoopCut.swift`). Each cut record is a "Snoop log cut" link event.
///
/// The finding says what the capture shows (which packets were cut, and that their PDUs are
/// not in att_pdus) and what cannot be known from it (what those PDUs carried, and so the
/// outcome of a request whose response was cut). It is information, not an error: the link
/// did nothing wrong, the log left it out.
extension FindingsEngine {
    func snoopFilterFindings(_ c: ConnectionFacts) throws -> [Finding] {
        let frames = try db.rows("""
            SELECT packet_id FROM link_event WHERE capture_id = ?1 AND connection_id = ?2 AND name = ?3 ORDER BY packet_id
            """, [.integer(captureID), .integer(c.id), .text(PacketDecoder.snoopCutEventName)]).compactMap { $0[0].int }
        guard !frames.isEmpty else { return [] }
        let n = frames.count
        let detail = "Known: \(n) ACL packet\(n == 1 ? "" : "s") of this link \(n == 1 ? "is" : "are") shorter in the file "
            + "than on the wire (the btsnoop record keeps the original length), as Android's filtered snoop mode "
            + "(persist.bluetooth.btsnooplogmode=filtered) writes them: the ACL and L2CAP headers and at most 5 bytes "
            + "after them, signalling kept whole. Unknown: what the cut PDUs carried. They are named in the timeline "
            + "but are not ATT/SMP rows, so a request answered by a cut response shows no answer, and values read "
            + "or notified there are missing. A full snoop log (btsnooplogmode=full) has them."
        return [Finding(connectionID: c.id, captureID: captureID, severity: .info, code: "snoop-log-filtered",
                        title: "The snoop log was filtered: \(n) packet\(n == 1 ? "" : "s") of this link kept only their headers",
                        detail: detail, evidence: Array(frames.prefix(50)))]
    }
}
