import BLECore
import BLEDecode
import BLETimeline

extension FindingsEngine {
    /// The peer's ATT Error Response that made a CoreBluetooth central pair (Insufficient
    /// Authentication 0x05, Insufficient Encryption Key Size 0x0C, Insufficient Encryption 0x0F,
    /// Core v5.4 Vol 3 Part F 3.4.1.1; Vol 3 Part C 10.3.2: the client pairs and may retry), the
    /// last one before `frame`: when pairing then fails, the app's request fails with that
    /// error's CBATTError, not always insufficientAuthentication. Nil on a link where the local
    /// device was the peripheral (a CBPeripheralManager makes no requests) or on BR/EDR.
    func refusalThatAskedForPairing(_ c: ConnectionFacts, before frame: Int) throws -> (frame: Int, cbError: String)? {
        guard CoreBluetoothErrorRule.centralHears(isLE: c.transport == "le", localRole: c.role) else { return nil }
        guard let r = try db.rows("""
            SELECT packet_id, error_code FROM att_pdu WHERE connection_id = ?1 AND packet_id < ?2 AND direction = 'rx'
              AND opcode = 0x01 AND error_code IN (0x05, 0x0C, 0x0F) ORDER BY packet_id DESC LIMIT 1
            """, [.integer(c.id), .integer(Int64(frame))]).first,
              let packet = r[0].int, let code = r[1].int,
              let name = CoreBluetoothNames.attErrorName(ATTErrorCode(rawValue: UInt8(truncatingIfNeeded: code))) else { return nil }
        return (packet, name)
    }

    /// `pairing-failed`, `pairing-declined`, `encryption-failed`, `encryption-interrupted`.
    func securityFindings(_ c: ConnectionFacts) throws -> [Finding] {
        var out: [Finding] = []
        let smp = try db.rows("SELECT packet_id, code, direction FROM smp_event WHERE connection_id = ?1 ORDER BY packet_id",
                              [.integer(c.id)]).map { (frame: $0[0].int ?? 0, code: $0[1].int ?? 0, direction: $0[2].string ?? "") }
        for e in try db.rows("""
            SELECT packet_id, code, name, (SELECT direction FROM smp_event s WHERE s.connection_id = error.connection_id AND s.packet_id = error.packet_id)
            FROM error WHERE connection_id = ?1 AND layer = 'smp' ORDER BY packet_id
            """, [.integer(c.id)]) {
            let frame = e[0].int ?? 0
            let who = e[3].string == "tx" ? "the local device" : "the peer"
            let start = smp.first?.frame
            if let declined = try declinedPairing(c, failed: frame, reason: e[1].int ?? 0, name: e[2].string ?? "",
                                                  local: e[3].string == "tx", smp: smp) {
                out.append(declined)
                continue
            }
            let refused = try refusalThatAskedForPairing(c, before: frame)
            out.append(Finding(connectionID: c.id, captureID: captureID, severity: .error, code: "pairing-failed",
                               title: "Pairing failed: \(e[2].string ?? "") (\(hex(e[1].int ?? 0)))",
                               detail: "\(who.prefix(1).uppercased() + who.dropFirst()) sent SMP Pairing Failed with reason \(hex(e[1].int ?? 0)) \(e[2].string ?? "")" +
                                   (start.map { "; pairing started at packet \($0)." } ?? ".") +
                                   (refused.map { " It followed the peer's refusal of a local request (packet \($0.frame)): that request fails with \($0.cbError)." }
                                    ?? " No local request was refused for security before it: a CoreBluetooth app gets no CBATTError from this pairing."),
                               evidence: (start.map { [$0] } ?? []) + [frame], cbError: refused?.cbError))
        }
        // A Security Request (SMP 0x0B, Vol 3 Part H 3.6.7) the local host never answered: it
        // chose not to pair. The peer may insist (an ATT error) or carry on.
        if let request = smp.first(where: { $0.code == 0x0B && $0.direction == "rx" }),
           !smp.contains(where: { $0.frame > request.frame && $0.direction == "tx" }),
           try !encryptionSeen(c, before: Int.max) {
            let after = try attPDUs(c, after: request.frame)
            out.append(Finding(connectionID: c.id, captureID: captureID, severity: after > 0 ? .info : .warning, code: "pairing-declined",
                               title: "The local host did not act on the peer's Security Request",
                               detail: "Known: the peer sent SMP Security Request (packet \(request.frame)); the local host sent no Pairing Request and the link was never encrypted; \(after) ATT PDU(s) followed. Inferred: the local side chose not to pair (no bond wanted, or the user was not asked); not a pairing failure.",
                               evidence: [request.frame]))
        }
        // Repeated failures with one code are one finding (a peer refusing the same request over
        // and over: 22 LL_REJECT_IND on one link of an nRF Sniffer capture), keyed by code in the
        // order first seen.
        var failures: [(code: Int, frames: [Int], finding: Finding)] = []
        for e in try db.rows("""
            SELECT packet_id, code, name, cb_error, ts_us FROM error WHERE connection_id = ?1 AND context = 'encryption' ORDER BY packet_id
            """, [.integer(c.id)]) {
            let code = e[1].int ?? 0
            // The link ending with the very status Encryption Change reported, soon after (within
            // the supervision timeout, or 1 s): the encryption did not fail, the link loss ended it.
            if let reason = c.disconnectReason, reason == code, code != 0x06, code != 0x3D,
               let end = c.disconnectedAt, let ts = e[4].int64,
               end >= ts, end.saturatingSubtracting(ts) <= Int64(max(1000, c.supervisionTimeoutMs ?? 0)).saturatingMultiplied(by: 1000) {
                out.append(Finding(connectionID: c.id, captureID: captureID, severity: .info, code: "encryption-interrupted",
                                   title: "Encryption interrupted by the link's end (\(hex(code)) \(e[2].string ?? ""))",
                                   detail: "Encryption Change reported \(hex(code)) \(e[2].string ?? "") (packet \(e[0].int ?? 0)) and the link ended with the same reason \(TextFormat.duration(end.saturatingSubtracting(ts))) later (packet \(c.disconnectPacketID ?? 0)): a side effect of the disconnect, not a second cause.",
                                   evidence: [e[0].int ?? 0] + (c.disconnectPacketID.map { [$0] } ?? [])))
                continue
            }
            if let i = failures.firstIndex(where: { $0.code == code }) {
                failures[i].frames.append(e[0].int ?? 0)
                continue
            }
            var detail = "Encryption Change reported \(hex(code)) \(e[2].string ?? "")."
            if air.isAirCapture, let p = try packet(e[0].int ?? 0) {
                // A sniffer saw the link layer refuse it (Vol 6 Part B 5.1.3.1): no HCI event exists.
                detail = "The link layer refused to start encryption: \(Self.plain(p.summary)) carried \(hex(code)) \(e[2].string ?? "") (Core v5.4 Vol 6 Part B 5.1.3.1)."
            }
            if code == 0x06 {
                detail += " The peer has no key for this bond (it was reset or unpaired): the bond must be removed on the phone and pairing redone."
            } else if code == 0x3D {
                detail += " The keys do not match."
            }
            // The LE Start Encryption (Vol 4 Part E 7.8.24) that asked for it, when the local side did.
            let start = try db.rows("""
                SELECT packet_id FROM command WHERE capture_id = ?3 AND opcode = 0x2019 AND connection_id = ?1 AND packet_id < ?2
                ORDER BY packet_id DESC LIMIT 1
                """, [.integer(c.id), .integer(Int64(e[0].int ?? 0)), .integer(captureID)]).first?[0].int
            if let start { detail += " The local host had started encryption with a stored key at packet \(start)." }
            failures.append((code, [e[0].int ?? 0],
                             Finding(connectionID: c.id, captureID: captureID, severity: .error, code: "encryption-failed",
                                     title: "Encryption failed: \(e[2].string ?? "")", detail: detail,
                                     evidence: (start.map { [$0] } ?? []) + [e[0].int ?? 0],
                                     cbError: c.role == "peripheral" ? nil : e[3].string)))
        }
        for var f in failures {
            if f.frames.count > 1 {
                f.finding.title = "Encryption failed \(f.frames.count)×: " + f.finding.title.dropFirst("Encryption failed: ".count)
                f.finding.detail += " The same failure \(f.frames.count) times on this link, at packets "
                    + f.frames.prefix(10).map(String.init).joined(separator: ", ") + (f.frames.count > 10 ? ", …" : "") + "."
                f.finding.evidence += f.frames.dropFirst().prefix(9)
            }
            out.append(f.finding)
        }
        // LE Long Term Key Request Negative Reply (Vol 4 Part E 7.8.26): the local device, as
        // peripheral, has no key for the key the central asked to use (Vol 6 Part B 5.1.3.1); its
        // controller rejects with 0x06 PIN or Key Missing, which the central's host sees.
        for r in try db.rows("""
            SELECT packet_id FROM command WHERE capture_id = ?2 AND opcode = 0x201B AND connection_id = ?1 ORDER BY packet_id
            """, [.integer(c.id), .integer(captureID)]) {
            let frame = r[0].int ?? 0
            // The LE Long Term Key Request it answers (7.7.65.5): its link event, not the summary text.
            let request = try db.rows("""
                SELECT max(packet_id) FROM link_event WHERE connection_id = ?1 AND name = ?2 AND packet_id < ?3
                """, [.integer(c.id), .text(LESubevent.name(LESubevent.longTermKeyRequest)), .integer(Int64(frame))]).first?[0].int
            out.append(Finding(connectionID: c.id, captureID: captureID, severity: .error, code: "encryption-failed",
                               title: "No key for the central's encryption request: LTK request refused",
                               detail: "The controller asked the host for the Long Term Key of \(peer(c))" +
                                   (request.map { " (packet \($0))" } ?? "") +
                                   " and the host answered LE Long Term Key Request Negative Reply (packet \(frame)): this device has lost or never had the bond. The link stays unencrypted and the central sees 0x06 PIN or Key Missing (an iOS central: CBError.peerRemovedPairingInformation); the bond must be removed on the central and pairing redone.",
                               evidence: (request.map { [$0] } ?? []) + [frame], cbError: nil))
        }
        return out
    }

    /// ATT PDUs on the link after `frame`.
    func attPDUs(_ c: ConnectionFacts, after frame: Int) throws -> Int {
        Int(try db.scalarInt("SELECT count(*) FROM att_pdu WHERE connection_id = ?1 AND packet_id > ?2",
                             [.integer(c.id), .integer(Int64(frame))]) ?? 0)
    }

    /// A pairing the local device declined (Pairing Failed it sent with 0x05 Pairing Not Supported
    /// or 0x03 Authentication Requirements, Vol 3 Part H 3.5.5, before any Pairing Confirm: no
    /// pairing was attempted) is a choice, not a failure: info when the link carried on with ATT
    /// without an authentication error, else a warning. Never an error.
    func declinedPairing(_ c: ConnectionFacts, failed frame: Int, reason: Int, name: String, local: Bool,
                         smp: [(frame: Int, code: Int, direction: String)]) throws -> Finding? {
        guard local, reason == 0x05 || reason == 0x03,
              !smp.contains(where: { $0.frame < frame && [0x03, 0x04, 0x0C, 0x0D].contains($0.code) }) else { return nil }
        let asked = smp.last { $0.frame < frame && ($0.code == 0x0B || $0.code == 0x01) && $0.direction == "rx" }
        let what = asked?.code == 0x0B ? "the peer's Security Request" : asked?.code == 0x01 ? "the peer's Pairing Request" : "pairing"
        let after = try attPDUs(c, after: frame)
        let refused = try db.scalarInt("""
            SELECT count(*) FROM error WHERE connection_id = ?1 AND layer = 'att' AND code IN (0x05, 0x0F, 0x08, 0x0C) AND packet_id > ?2
            """, [.integer(c.id), .integer(Int64(frame))]) ?? 0
        var detail = "Known: the local device answered \(what)\(asked.map { " (packet \($0.frame))" } ?? "") with SMP Pairing Failed \(hex(reason)) \(name) (packet \(frame)), before any pairing exchange; \(after) ATT PDU(s) followed on the link."
        if refused > 0 {
            detail += " \(refused) ATT request(s) were then refused for lack of security: the peer needs the pairing the local side declined."
        } else if after == 0, let end = c.disconnectPacketID, end > frame, let reason = c.disconnectReason {
            // Nothing followed but the end of the link: it did not carry on unpaired.
            let name = HCIStatusCode(UInt8(truncatingIfNeeded: reason)).name
            let gap = c.disconnectedAt.flatMap { at in try? db.rows(
                "SELECT ts_us FROM smp_event WHERE connection_id = ?1 AND packet_id = ?2 LIMIT 1", [.integer(c.id), .integer(Int64(frame))]
            ).first?[0].int64.map { " \(TextFormat.duration(at.saturatingSubtracting($0))) later" } } ?? ""
            detail += c.localDisconnectRequested
                ? " The local host then ended the link (\(hex(reason)) \(name), packet \(end))\(gap) with nothing exchanged: it did not carry on unpaired."
                : " The link then ended (\(hex(reason)) \(name), packet \(end))\(gap) with nothing exchanged: inferred, the peer would not go on without the pairing the local side declined."
        } else {
            detail += " Inferred: the local side chose not to pair (policy, or no user consent); the link carried on unpaired. Not a failed pairing."
        }
        return Finding(connectionID: c.id, captureID: captureID, severity: after > 0 && refused == 0 ? .info : .warning,
                       code: "pairing-declined", title: "The local device declined \(what) (\(hex(reason)) \(name))",
                       detail: detail, evidence: (asked.map { [$0.frame] } ?? []) + [frame], cbError: nil)
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
