import BLECore
import BLETimeline

extension FindingsEngine {
    /// `unacceptable-parameters` for connection parameter updates that did not happen: an L2CAP
    /// Connection Parameter Update Response with result 0x0001 rejected (Core v5.4 Vol 3 Part A
    /// 4.21) and an LE Connection Update Complete with a non-zero status (Vol 4 Part E 7.7.65.3:
    /// the parameters stay as they were).
    func parameterUpdateFindings(_ c: ConnectionFacts) throws -> [Finding] {
        var out: [Finding] = []
        for e in try db.rows("""
            SELECT packet_id, code, name, context FROM error
            WHERE connection_id = ?1 AND context IN ('parameter-update-rejected', 'connection-update') ORDER BY packet_id
            """, [.integer(c.id)]) {
            let frame = e[0].int ?? 0
            if e[3].string == "parameter-update-rejected" {
                // The request it answers: the latest L2CAP request before it.
                let request = try db.rows("""
                    SELECT packet_id, interval_us, coalesce(interval_max_us, interval_us), latency, supervision_timeout_ms
                    FROM connection_update WHERE connection_id = ?1 AND source = 'l2cap-request' AND packet_id < ?2
                    ORDER BY packet_id DESC LIMIT 1
                    """, [.integer(c.id), .integer(Int64(frame))]).first
                let rejecter = try db.rows("SELECT direction FROM packet WHERE rowid = \(PacketKey.sql(capture: "?1", frame: "?2"))",
                                           [.integer(captureID), .integer(Int64(frame))]).first?[0].string == "tx" ? "the local host" : "the peer"
                var detail = "\(rejecter.prefix(1).uppercased() + rejecter.dropFirst()) answered Connection Parameter Update Response with result 0x0001 (rejected)"
                if let r = request {
                    detail += " to the request at packet \(r[0].int ?? 0) for interval \(TextFormat.fixed(Double(r[1].int ?? 0) / 1000, 2))–\(TextFormat.fixed(Double(r[2].int ?? 0) / 1000, 2)) ms, latency \(r[3].int ?? 0), supervision timeout \(r[4].int ?? 0) ms"
                }
                detail += ". The connection keeps its parameters; a peripheral that needs others must ask again within what the central accepts."
                out.append(Finding(connectionID: c.id, captureID: captureID, severity: .warning, code: "unacceptable-parameters",
                                   title: "Connection parameter update request rejected", detail: detail,
                                   evidence: (request?[0].int.map { [$0] } ?? []) + [frame]))
            } else {
                let command = try db.rows("""
                    SELECT packet_id FROM command WHERE capture_id = ?3 AND opcode = 0x2013 AND connection_id = ?1 AND packet_id < ?2
                    ORDER BY packet_id DESC LIMIT 1
                    """, [.integer(c.id), .integer(Int64(frame)), .integer(captureID)]).first?[0].int
                let code = e[1].int ?? 0
                out.append(Finding(connectionID: c.id, captureID: captureID, severity: .warning, code: "unacceptable-parameters",
                                   title: "Connection update failed: \(hex(code)) \(e[2].string ?? "")",
                                   detail: "LE Connection Update Complete reported \(hex(code)) \(e[2].string ?? "")" +
                                       (command.map { " for the LE Connection Update at packet \($0)" } ?? "") +
                                       ": the update did not take effect and the link keeps its previous parameters.",
                                   evidence: (command.map { [$0] } ?? []) + [frame]))
            }
        }
        return out
    }
}
