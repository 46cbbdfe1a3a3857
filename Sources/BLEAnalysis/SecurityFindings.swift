import BLECore
import BLETimeline

extension FindingsEngine {
    /// `pairing-failed`, `encryption-failed`.
    func securityFindings(_ c: ConnectionFacts) throws -> [Finding] {
        var out: [Finding] = []
        for e in try db.rows("""
            SELECT packet_id, code, name, (SELECT direction FROM smp_event s WHERE s.connection_id = error.connection_id AND s.packet_id = error.packet_id)
            FROM error WHERE connection_id = ?1 AND layer = 'smp' ORDER BY packet_id
            """, [.integer(c.id)]) {
            let frame = e[0].int ?? 0
            let who = e[3].string == "tx" ? "the local device" : "the peer"
            let start = try db.rows("SELECT min(packet_id) FROM smp_event WHERE connection_id = ?1", [.integer(c.id)]).first?[0].int
            out.append(Finding(connectionID: c.id, captureID: captureID, severity: .error, code: "pairing-failed",
                               title: "Pairing failed: \(e[2].string ?? "") (\(hex(e[1].int ?? 0)))",
                               detail: "\(who.prefix(1).uppercased() + who.dropFirst()) sent SMP Pairing Failed with reason \(hex(e[1].int ?? 0)) \(e[2].string ?? "")" +
                                   (start.map { "; pairing started at packet \($0)." } ?? "."),
                               evidence: (start.map { [$0] } ?? []) + [frame], cbError: "CBATTError.insufficientAuthentication"))
        }
        for e in try db.rows("""
            SELECT packet_id, code, name, cb_error FROM error WHERE connection_id = ?1 AND context = 'encryption' ORDER BY packet_id
            """, [.integer(c.id)]) {
            let code = e[1].int ?? 0
            var detail = "Encryption Change reported \(hex(code)) \(e[2].string ?? "")."
            if code == 0x06 {
                detail += " The peer has no key for this bond (it was reset or unpaired): the bond must be removed on the phone and pairing redone."
            } else if code == 0x3D {
                detail += " The keys do not match."
            }
            // The LE Start Encryption (Vol 4 Part E 7.8.24) that asked for it, when the local side did.
            let start = try db.rows("""
                SELECT packet_id FROM command WHERE connection_id = ?1 AND opcode = 0x2019 AND packet_id < ?2
                ORDER BY packet_id DESC LIMIT 1
                """, [.integer(c.id), .integer(Int64(e[0].int ?? 0))]).first?[0].int
            if let start { detail += " The local host had started encryption with a stored key at packet \(start)." }
            out.append(Finding(connectionID: c.id, captureID: captureID, severity: .error, code: "encryption-failed",
                               title: "Encryption failed: \(e[2].string ?? "")", detail: detail,
                               evidence: (start.map { [$0] } ?? []) + [e[0].int ?? 0],
                               cbError: c.role == "peripheral" ? nil : e[3].string))
        }
        // LE Long Term Key Request Negative Reply (Vol 4 Part E 7.8.26): the local device, as
        // peripheral, has no key for the key the central asked to use (Vol 6 Part B 5.1.3.1); its
        // controller rejects with 0x06 PIN or Key Missing, which the central's host sees.
        for r in try db.rows("""
            SELECT packet_id FROM command WHERE connection_id = ?1 AND opcode = 0x201B ORDER BY packet_id
            """, [.integer(c.id)]) {
            let frame = r[0].int ?? 0
            let request = try db.rows("""
                SELECT frame FROM packet WHERE connection_id = ?1 AND kind = 'evt' AND summary LIKE '%Long Term Key Request%'
                AND rowid < \(PacketKey.sql(capture: "?2", frame: "?3")) ORDER BY rowid DESC LIMIT 1
                """, [.integer(c.id), .integer(captureID), .integer(Int64(frame))]).first?[0].int
            out.append(Finding(connectionID: c.id, captureID: captureID, severity: .error, code: "encryption-failed",
                               title: "No key for the central's encryption request: LTK request refused",
                               detail: "The controller asked the host for the Long Term Key of \(peer(c))" +
                                   (request.map { " (packet \($0))" } ?? "") +
                                   " and the host answered LE Long Term Key Request Negative Reply (packet \(frame)): this device has lost or never had the bond. The link stays unencrypted and the central sees 0x06 PIN or Key Missing (an iOS central: CBError.peerRemovedPairingInformation); the bond must be removed on the central and pairing redone.",
                               evidence: (request.map { [$0] } ?? []) + [frame], cbError: nil))
        }
        return out
    }

    /// `parameters-outside-apple-guidelines`: Apple's accessory design guidelines (REFERENCE.md):
    /// interval min >= 15 ms, max x (latency + 1) <= 2 s, latency <= 30, 2 s <= supervision timeout
    /// <= 6 s, and supervision timeout > 3 x max x (latency + 1).
    func parameterFindings(_ c: ConnectionFacts) throws -> [Finding] {
        var out: [Finding] = []
        var candidates: [(frame: Int, min: Int, max: Int, latency: Int, timeoutMs: Int, what: String)] = []
        // The central picks the initial parameters; the guidelines govern what the accessory asks for.
        for u in try db.rows("""
            SELECT packet_id, interval_us, coalesce(interval_max_us, interval_us), latency, supervision_timeout_ms
            FROM connection_update WHERE connection_id = ?1 AND source = 'l2cap-request' ORDER BY packet_id
            """, [.integer(c.id)]) {
            candidates.append((u[0].int ?? 0, u[1].int ?? 0, u[2].int ?? 0, u[3].int ?? 0, u[4].int ?? 0,
                               "the peripheral's L2CAP Connection Parameter Update Request"))
        }
        for p in candidates {
            var broken: [String] = []
            let period = p.max * (p.latency + 1)
            if p.min < 15_000 { broken.append("interval min \(Double(p.min) / 1000) ms < 15 ms") }
            if period > 2_000_000 { broken.append("interval max × (latency + 1) = \(period / 1000) ms > 2 s") }
            if p.latency > 30 { broken.append("latency \(p.latency) > 30") }
            if p.timeoutMs < 2000 || p.timeoutMs > 6000 { broken.append("supervision timeout \(p.timeoutMs) ms outside 2–6 s") }
            if p.timeoutMs * 1000 <= 3 * period { broken.append("supervision timeout \(p.timeoutMs) ms ≤ 3 × \(period / 1000) ms") }
            guard !broken.isEmpty else { continue }
            out.append(Finding(connectionID: c.id, captureID: captureID, severity: .warning,
                               code: "parameters-outside-apple-guidelines",
                               title: "Connection parameters break Apple's accessory guidelines",
                               detail: "In \(p.what): " + broken.joined(separator: "; ") +
                                   ". iOS may reject such a request or keep its own parameters (Accessory Design Guidelines, Bluetooth LE).",
                               evidence: [p.frame]))
        }
        return out
    }
}
