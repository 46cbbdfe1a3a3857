import BLECore
import BLEDecode
import BLETimeline

extension FindingsEngine {
    /// `att-timeout`, `capture-ended-pending`, `att-error`, `gatt-out-of-sync`, `local-service-changed`, `slow-response`, `indication-unconfirmed`, `mtu-problem`.
    func attFindings(_ c: ConnectionFacts, earlier: EarlierConnections, platform: CapturePlatform.Inference) throws -> [Finding] {
        var out: [Finding] = []
        // On a sniffer's capture, where the connection was last seen when its end is not in it.
        let lostFromView = try air.lastSeen(c)
        // One pass over the link's transactions in request order, a row at a time: a busy link has
        // hundreds of thousands (loaded whole, 190,000 reads took 47 MB). Each rule keeps only its
        // state; its findings are appended in the order the rules are reported below.
        var timeouts: [Finding] = []
        var unconfirmed: [Finding] = []
        // capture-ended-pending: the last request each side made (the highest request packet, and
        // those of its transactions still pending), so the rule needs no second pass.
        var lastRequest: [String: (frame: Int, pending: [ATTTransactionRow])] = [:]
        var sequence = 0
        // slow-response: per opcode, how many answered transactions have a latency and the
        // largest; a rule can only fire for an opcode whose slowest answer took over 1 s.
        var answered: [Int: (count: Int, largest: Int64)] = [:]

        // att-timeout: the local host's own requests. An unconfirmed indication is the server's
        // transaction (indication-unconfirmed below), and a request the peer made of the local
        // server times out on the peer's side: neither is an error a central app is given.
        let localPeripheral = c.role == "peripheral"
        var sidesTimedOut: Set<String> = []
        try db.forEachRow("""
            SELECT request_packet_id, response_packet_id, opcode, handle, latency_us, outcome, request_ts_us, direction
            FROM att_transaction WHERE connection_id = ?1 ORDER BY request_packet_id
            """, [.integer(c.id)]) { s in
            let t = ATTTransactionRow(sequence: sequence, frame: s.int(0), response: s.optionalInt(1), opcode: s.int(2),
                                      handle: s.optionalInt(3), outcome: s.text(5) ?? "", requestTime: s.int64(6),
                                      side: s.text(7) ?? "")
            sequence += 1
            if t.opcode != 0x1D {
                var last = lastRequest[t.side] ?? (t.frame, [])
                if t.frame > last.frame { last = (t.frame, []) }
                if t.frame == last.frame && t.outcome == "pending" { last.pending.append(t) }
                lastRequest[t.side] = last
            }
            if (t.outcome == "ok" || t.outcome == "error") && !s.isNull(4) {
                let latency = s.int64(4)
                let seen = answered[t.opcode] ?? (0, latency)
                answered[t.opcode] = (seen.count + 1, max(seen.largest, latency))
            }
            if t.outcome == "timeout" && t.opcode != 0x1D {
                timeouts.append(try attTimeout(t, c, platform: platform, localPeripheral: localPeripheral, sidesTimedOut: &sidesTimedOut))
            }
            if t.opcode == 0x1D && t.outcome != "ok" {
                unconfirmed.append(indicationUnconfirmed(t, c, lostFromView: lostFromView))
            }
        }
        out += timeouts

        // capture-ended-pending: a request still open when the capture ended, less than the 30 s
        // ATT transaction timeout (Vol 3 Part F 3.3.3) after it was sent: the capture was cut, so
        // whether the peer answered is unknown. Not a silent peer.
        // Only the last request each side made: an earlier one still open was superseded by a later
        // request (the matcher marks it pending too), which the capture did not cut.
        let lastPending = c.disconnectedAt == nil ? lastRequest.values.flatMap(\.pending).sorted { $0.sequence < $1.sequence } : []
        for t in lastPending {
            let op = BLEAnalysisNames.attOpcodeName(t.opcode)
            let frame = t.frame
            let handle = t.handle.map { " to handle \(hex($0, width: 4))" } ?? ""
            let asker = t.side == "rx" ? "The peer sent it to the local GATT server" : "The local host sent it"
            if let seen = lostFromView, seen < captureEnd {
                let gap = max(0, seen.saturatingSubtracting(t.requestTime))
                let when = gap == 0 ? "as the last packet the capture holds of this connection" : "\(TextFormat.duration(gap)) before the last packet the capture holds of this connection (\(c.lastPacketID))"
                out.append(Finding(connectionID: c.id, captureID: captureID, severity: .info, code: "capture-ended-pending",
                                   title: "The sniffer lost the connection while \(op)\(handle) awaited its response",
                                   detail: "\(asker) (packet \(frame)) \(when), and no response is in the capture. The capture went on, but without this connection (connection-lost-from-view): whether the answer came, and whether the 30 s ATT transaction timeout (Core Vol 3 Part F 3.3.3) expired, is not in it. By itself this is no evidence that the peer went silent.",
                                   evidence: frame == c.lastPacketID ? [frame] : [frame, c.lastPacketID]))
                continue
            }
            let gap = max(0, captureEnd.saturatingSubtracting(t.requestTime))
            let when = gap == 0 ? "as the last packet of the capture" : "\(TextFormat.duration(gap)) before the capture ended"
            // Requests overtaken by later ones (Vol 3 Part F 3.3.2) and never answered are evidence
            // of their own: say so rather than leave the last one looking like a cut capture only.
            let overtaken = attOverlaps[c.id].map { $0.unanswered } ?? 0
            let unanswered = overtaken > 0
                ? " But \(overtaken) earlier request(s) on this link were overtaken by later ones and never answered either (att-request-while-outstanding)."
                : ""
            out.append(Finding(connectionID: c.id, captureID: captureID, severity: .info, code: "capture-ended-pending",
                               title: "Capture ended while \(op)\(handle) awaited its response",
                               detail: "\(asker) (packet \(frame)) \(when), and no response is in the capture. The capture ended before the 30 s ATT transaction timeout (Core Vol 3 Part F 3.3.3) could expire, so whether the answer came is unknown: by itself this is no evidence that the peer went silent." + unanswered,
                               evidence: [frame]))
        }

        // indication-unconfirmed (Vol 3 Part F 3.4.7.2), made in the pass above.
        out += unconfirmed

        // att-error grouped per code and handle
        // A group's first 10 packets only, in capture order (its evidence): a `group_concat` of
        // every packet made a string the size of the group (500,000 refused reads: megabytes).
        // They are read from the group's first row on (`first_row`: with one min() the bare
        // `rowid` is that row's, and the writer inserts a link's errors in packet order): read
        // from the link's first error, 1,000 groups that begin after 198,000 errors of another
        // took the analysis from 1.4 to 22 s.
        let errors = try db.rows("""
            SELECT x.code, x.handle, x.opcode, x.n,
                   (SELECT group_concat(packet_id) FROM (
                       SELECT f.packet_id FROM error f
                       WHERE f.connection_id = ?1 AND f.rowid >= x.first_row AND f.layer = 'att'
                         AND f.code IS x.code AND f.handle IS x.handle AND f.opcode IS x.opcode
                       ORDER BY f.rowid LIMIT 10)),
                   x.first_packet, x.cb_error, x.name
            FROM (SELECT code, handle, opcode, count(*) AS n, min(packet_id) AS first_packet, rowid AS first_row, cb_error, name
                  FROM error WHERE connection_id = ?1 AND layer = 'att' GROUP BY code, handle, opcode) x
            ORDER BY x.first_packet
            """, [.integer(c.id)])
        let reconnect = earlier.connected(to: c.peerAddress)
        // Attribute Not Found ends every discovery procedure (Core Vol 3 Part G 4.4-4.7): one quiet note for all of them.
        let discoveryEnds = errors.filter { $0[0].int == 0x0A && [0x04, 0x06, 0x08, 0x10].contains($0[2].int ?? 0) }
        if !discoveryEnds.isEmpty {
            // The first 10 of all: each group's first 10 hold them.
            let frames = discoveryEnds.flatMap { ($0[4].string ?? "").split(separator: ",").compactMap { Int($0) } }.sorted()
            let count = discoveryEnds.reduce(0) { $0 + ($1[3].int ?? 0) }
            out.append(Finding(connectionID: c.id, captureID: captureID, severity: .info, code: "att-error",
                               title: "\(count) discovery procedure(s) ended with Attribute Not Found",
                               detail: "Attribute Not Found (0x0A) in answer to a discovery request is how the server says the handle range is exhausted; these are not failures.",
                               evidence: Array(frames.prefix(10)), cbError: nil))
        }
        for e in errors where !(e[0].int == 0x0A && [0x04, 0x06, 0x08, 0x10].contains(e[2].int ?? 0)) {
            let code = e[0].int ?? 0
            let frames = (e[4].string ?? "").split(separator: ",").compactMap { Int($0) }
            let handle = e[1].int.map { "handle \(hex($0, width: 4))" } ?? "no handle"
            let op = BLEAnalysisNames.attOpcodeName(e[2].int ?? 0)
            let count = e[3].int ?? 1
            var severity = Finding.Severity.warning
            var detail = "\(count)× \(e[7].string ?? "") in answer to \(op) on \(handle)."
            let sentLocally = try db.rows("SELECT direction FROM att_pdu WHERE connection_id = ?1 AND packet_id = ?2",
                                          [.integer(c.id), .integer(Int64(e[5].int ?? 0))]).first?[0].string == "tx"
            if sentLocally {
                detail += " The local GATT server sent it: the peer's request was refused on this device."
                if let name = e[6].string {
                    detail += " A CoreBluetooth app on the peer gets \(name); the local app is given no error (it, or the stack, sent it)."
                }
            }
            if [0x05, 0x0F, 0x08, 0x0C].contains(code) {
                let first = e[5].int ?? 0
                let pairing = try db.rows("""
                    SELECT min(packet_id) FROM smp_event WHERE connection_id = ?1 AND packet_id > ?2
                    """, [.integer(c.id), .integer(Int64(first))]).first?[0].int
                let encrypted = try db.rows("""
                    SELECT min(packet_id) FROM link_event WHERE connection_id = ?1 AND packet_id > ?2 AND name = 'Encryption Change' AND status = 0
                    """, [.integer(c.id), .integer(Int64(first))]).first?[0].int
                if let pairing {
                    detail += " Pairing followed (SMP from packet \(pairing))" +
                        (encrypted.map { " and the link was encrypted at packet \($0): the usual pair-on-demand flow." } ?? " but the link was never encrypted.")
                    if encrypted != nil { severity = .info }
                } else if let encrypted {
                    detail += " The link was then encrypted with stored keys (packet \(encrypted))."
                    severity = .info
                } else {
                    detail += " No pairing or encryption followed: the request cannot succeed until the link is secured."
                    severity = .error
                }
            }
            var code_ = "att-error"
            if reconnect && (code == 0x01 || code == 0x12) {
                code_ = "gatt-out-of-sync"
                severity = .error
                detail += " This is a reconnection to a device seen earlier in the capture: the client used handles from a cached GATT database that no longer matches (Service Changed / Database Out Of Sync)."
            }
            if e[6].string == nil && code > 0x11 {
                // Sent by the local server, the error is what the peer's app is given; the local
                // app (a CBPeripheralManager) is given nothing: it, or the stack, sent it.
                detail += sentLocally
                    ? " CoreBluetooth has no named CBATTError case for \(hex(code)): a CoreBluetooth app on the peer gets an NSError in CBATTErrorDomain with code \(code); the local app is given no error (a CBPeripheralManager sends such a code with respond(to:withResult:))."
                    : " CoreBluetooth has no named CBATTError case for \(hex(code)): an app gets an NSError in CBATTErrorDomain with code \(code)."
            }
            out.append(Finding(connectionID: c.id, captureID: captureID, severity: severity, code: code_,
                               title: "ATT error \(hex(code)) \(e[7].string ?? "") on \(handle)" + (count > 1 ? " (\(count)×)" : ""),
                               detail: detail, evidence: Array(frames.prefix(10)), cbError: sentLocally ? nil : e[6].string))
        }

        // Service Changed indications (0x2A05, Core v5.4 Vol 3 Part G 7.1), looked up in the
        // database of the server that sent them (GATTServerSide): the peer's own server is out of
        // sync with the local client's cache; the local server's is this device's business.
        let serviceChanged = try db.rows("""
            SELECT a.packet_id, g.server, substr(a.pdu, 4, 4) FROM att_pdu a JOIN gatt_characteristic g ON g.connection_id = a.connection_id AND g.value_handle = a.handle
                AND g.server = \(GATTServerSide.sql(direction: "a.direction", opcode: "a.opcode"))
            WHERE a.connection_id = ?1 AND a.opcode = 0x1D AND g.uuid = '2A05' ORDER BY a.packet_id
            """, [.integer(c.id)])
        let remoteChanged = serviceChanged.filter { $0[1].string == GATTServerSide.remote.rawValue }.compactMap { $0[0].int }
        let localChanged = serviceChanged.filter { $0[1].string == GATTServerSide.local.rawValue }.compactMap { $0[0].int }
        // The affected handle range: Start and End of Affected Attribute Handle Range (Vol 3 Part G 7.1).
        let localRanges = serviceChanged.filter { $0[1].string == GATTServerSide.local.rawValue }.compactMap { r -> String? in
            guard let v = r[2].blob, v.count == 4 else { return nil }
            return "\(hex(UInt16(v[0]) | UInt16(v[1]) << 8, width: 4))–\(hex(UInt16(v[2]) | UInt16(v[3]) << 8, width: 4))"
        }
        if !remoteChanged.isEmpty {
            out.append(Finding(connectionID: c.id, captureID: captureID, severity: .warning, code: "gatt-out-of-sync",
                               title: "The peer indicated Service Changed",
                               detail: "The server's attribute database changed; clients must rediscover the affected handle range (iOS: peripheral(_:didModifyServices:)).",
                               evidence: remoteChanged))
        }
        if !localChanged.isEmpty {
            out.append(Finding(connectionID: c.id, captureID: captureID, severity: .info, code: "local-service-changed",
                               title: "The local GATT server indicated Service Changed",
                               detail: "This device's own GATT server told the peer, its client, that its attribute database changed"
                                   + (localRanges.isEmpty ? "" : " (\(localRanges.joined(separator: ", ")))")
                                   + ": the peer must rediscover that range of the local server. The peer's own database is not concerned.",
                               evidence: localChanged))
        }

        // slow-response: per-opcode percentiles and outliers, judged in connection events too: a
        // response can only come in a later connection event, so a 2 s read on a 1 s interval is
        // two events, not slow. Slow: over max(1 s, 5 × p50) and, where the interval in force is
        // known, over 4 events of interval × (1 + latency) (the peripheral may sleep through latency).
        let history = try parameterHistory(c)
        for (op, seen) in answered.sorted(by: { $0.key < $1.key }) where seen.largest > 1_000_000 {
            // Exact nearest-rank percentiles need every latency of the opcode: 8 bytes a
            // transaction, held only for an opcode whose slowest answer took over 1 s (no slower
            // answer, no finding: the threshold is at least 1 s).
            var sorted: [Int64] = []
            sorted.reserveCapacity(seen.count)
            try db.forEachRow("""
                SELECT latency_us FROM att_transaction
                WHERE connection_id = ?1 AND opcode = ?2 AND outcome IN ('ok', 'error') AND latency_us IS NOT NULL
                """, [.integer(c.id), .integer(Int64(op))]) { sorted.append($0.int64(0)) }
            sorted.sort()
            let p50 = Percentiles.value(sorted, 0.50), p95 = Percentiles.value(sorted, 0.95)
            let p99 = Percentiles.value(sorted, 0.99), maxL = sorted.last ?? 0
            let count = sorted.count
            sorted = []
            let threshold = max(1_000_000, p50.saturatingMultiplied(by: 5))
            guard maxL > threshold else { continue }
            // The slow ones, in request order: counted, the first 10 cited, the (first) slowest named.
            var slowCount = 0
            var slowFrames: [Int] = []
            var worst: (latency: Int64, frame: Int, events: Double?)?
            try db.forEachRow("""
                SELECT request_packet_id, latency_us FROM att_transaction
                WHERE connection_id = ?1 AND opcode = ?2 AND outcome IN ('ok', 'error') AND latency_us > ?3
                ORDER BY request_packet_id
                """, [.integer(c.id), .integer(Int64(op)), .integer(threshold)]) { s in
                let frame = s.int(0), latency = s.int64(1)
                let p = history.inForce(at: frame)
                let events = p.flatMap { $0.intervalUs > 0 ? Double(latency) / Double($0.intervalUs) : nil }
                if let events, let p, !(events > 4 * Double(1 + max(0, p.latency))) { return }
                slowCount += 1
                if slowFrames.count < 10 { slowFrames.append(frame) }
                if worst.map({ $0.latency < latency }) ?? true { worst = (latency, frame, events) }
            }
            guard slowCount > 0 else { continue }
            let inEvents: (Int64, Double?, Int) -> String = { latency, events, frame in
                guard let events, let p = history.inForce(at: frame) else { return TextFormat.duration(latency) + " (interval unknown)" }
                return TextFormat.duration(latency) + " (\(TextFormat.fixed(events, 1)) connection events of \(TextFormat.fixed(Double(p.intervalUs) / 1000, 2)) ms)"
            }
            let eventRule = history.isEmpty ? "" : " and more than 4 connection events × (1 + latency)"
            out.append(Finding(connectionID: c.id, captureID: captureID, severity: .warning, code: "slow-response",
                               title: "\(slowCount) slow \(BLEAnalysisNames.attOpcodeName(op))(s): up to \(worst.map { inEvents($0.latency, $0.events, $0.frame) } ?? TextFormat.duration(maxL))",
                               detail: "Latency over \(count) transaction(s): p50 \(TextFormat.duration(p50)), p95 \(TextFormat.duration(p95)), p99 \(TextFormat.duration(p99)), max \(TextFormat.duration(maxL)); \(slowCount) took longer than \(TextFormat.duration(threshold))\(eventRule).",
                               evidence: slowFrames))
        }

        // mtu-problem: one pass over the link's ATT PDUs for the exchange (Vol 3 Part F 3.4.2)
        // and for PDUs over the ATT_MTU (3.2.8), counted in full; the first 10 are the evidence.
        var exchange: [(frame: Int, opcode: Int)] = []
        var oversized: [Int] = []
        var oversizedCount = 0, largest = 0
        try db.forEachRow("""
            SELECT packet_id, opcode, length(pdu), request_opcode FROM att_pdu
            WHERE connection_id = ?1 AND (opcode IN (2, 3) OR (opcode = 1 AND request_opcode = 2) OR length(pdu) > ?2)
            ORDER BY packet_id
            """, [.integer(c.id), .integer(Int64(c.mtu))]) { row in
            let opcode = row.int(1), length = row.int(2)
            if opcode == 2 || opcode == 3 || (opcode == 1 && !row.isNull(3) && row.int(3) == 2) {
                exchange.append((row.int(0), opcode))
            }
            if length > c.mtu {
                oversizedCount += 1
                largest = max(largest, length)
                if oversized.count < 10 { oversized.append(row.int(0)) }
            }
        }
        if let failed = exchange.first(where: { $0.opcode == 1 }) {
            out.append(Finding(connectionID: c.id, captureID: captureID, severity: .warning, code: "mtu-problem",
                               title: "The peer rejected the MTU exchange",
                               detail: "Exchange MTU Request was answered with an Error Response; the ATT MTU stays 23, so every value over 20 bytes needs long reads/writes.",
                               evidence: [failed.frame]))
        } else if exchange.contains(where: { $0.opcode == 2 }) && !exchange.contains(where: { $0.opcode == 3 }) {
            out.append(Finding(connectionID: c.id, captureID: captureID, severity: .warning, code: "mtu-problem",
                               title: "Exchange MTU Request never answered",
                               detail: "The ATT MTU stays 23 until the exchange completes.",
                               evidence: exchange.map(\.frame)))
        }
        if oversizedCount > 0 && !c.beganBeforeCapture {
            out.append(Finding(connectionID: c.id, captureID: captureID, severity: .warning, code: "mtu-problem",
                               title: "ATT PDUs larger than the negotiated MTU (\(c.mtu))",
                               detail: "\(oversizedCount) PDU(s) exceed ATT_MTU \(c.mtu) (largest \(largest) bytes): the receiver may drop or truncate them."
                                   + (oversizedCount > oversized.count ? " The first \(oversized.count) are cited." : ""),
                               evidence: oversized))
        }
        return out
    }
}

/// One ATT transaction of a link as the per-link rules read it, a row at a time.
struct ATTTransactionRow {
    /// Its place in request order.
    var sequence: Int
    var frame: Int
    var response: Int?
    var opcode: Int
    var handle: Int?
    var outcome: String
    var requestTime: Int64
    /// `tx` or `rx`: who asked (the local host, or the peer).
    var side: String
}

extension FindingsEngine {
    /// The `att-timeout` of one timed-out request (not an indication). Whether the same side asked
    /// again after the timeout is looked up once a side, with the first such later request.
    fileprivate func attTimeout(_ t: ATTTransactionRow, _ c: ConnectionFacts, platform: CapturePlatform.Inference,
                                localPeripheral: Bool, sidesTimedOut: inout Set<String>) throws -> Finding {
        let op = t.opcode
        let frame = t.frame
        let handle = t.handle.map { " to handle \(hex($0, width: 4))" } ?? ""
        let localRequest = t.side != "rx"
        var detail = "The ATT transaction timeout (Core Vol 3 Part F 3.3.3) expired: no further ATT request may be sent on this bearer, and the host usually disconnects. " +
            (t.response.map { "The response finally came at packet \($0)." } ?? "No response was ever captured.")
        if !localRequest {
            detail += " The request came from the peer, to the local GATT server: it is the peer's transaction that timed out."
        }
        // The same side asking again on the bearer after the timeout broke the rule just stated.
        // Said once a side: its first timeout already ended the bearer (and a scan per timeout
        // would be quadratic in a capture of thousands of them).
        let expired = t.requestTime.saturatingAdding(30_000_000)
        var evidence = [frame] + (t.response.map { [$0] } ?? [])
        if !sidesTimedOut.contains(t.side) {
            var again: (frame: Int, opcode: Int)?
            try db.forEachRow("""
                SELECT request_packet_id, opcode FROM att_transaction
                WHERE connection_id = ?1 AND request_packet_id > ?2 AND direction = ?3 AND opcode != 0x1D AND request_ts_us >= ?4
                ORDER BY request_packet_id LIMIT 1
                """, [.integer(c.id), .integer(Int64(frame)), .text(t.side), .integer(expired)]) { again = ($0.int(0), $0.int(1)) }
            if let again {
                detail += " Yet the \(localRequest ? "local host" : "peer") sent another request on the bearer after the timeout, \(BLEAnalysisNames.attOpcodeName(again.opcode)) at packet \(again.frame): a new ATT bearer (a new connection) was needed first."
                evidence.append(again.frame)
            }
        }
        sidesTimedOut.insert(t.side)
        // An Android client's read or write pending when the link closed ends with 133 (not said for an Apple host).
        var android: AndroidGattStatus?
        if platform.showsAndroidView, localRequest, !localPeripheral, c.transport == "le", c.disconnectedAt != nil,
           let callback = AndroidStatusRule.callback(forRequestOpcode: op) {
            android = AndroidStatusRule.pendingAtDisconnect
            detail += " An Android app's \(callback) got status \(AndroidStatusRule.pendingAtDisconnect) when the link closed, before onConnectionStateChange (the stack ends every pending operation so, gatt_utils.cc gatt_cleanup_upon_disc)."
        }
        return Finding(connectionID: c.id, captureID: captureID, severity: .error, code: "att-timeout",
                       title: "\(BLEAnalysisNames.attOpcodeName(op))\(handle) unanswered for 30 s",
                       detail: detail, evidence: evidence,
                       cbError: localRequest && !localPeripheral ? "CBError.connectionTimeout" : nil, android: android)
    }

    /// The `indication-unconfirmed` of one indication not confirmed (Vol 3 Part F 3.4.7.2: a server
    /// sends no further indication until the last is confirmed; after 30 s the server's transaction
    /// has timed out, 3.3.3).
    fileprivate func indicationUnconfirmed(_ t: ATTTransactionRow, _ c: ConnectionFacts, lostFromView: Int64?) -> Finding {
        let received = t.side == "rx"
        var detail = "The client did not send Handle Value Confirmation (outcome: \(t.outcome)); the server may not send another indication."
        if t.outcome == "pending", let seen = lostFromView, seen < captureEnd {
            detail += " The capture lost the connection \(TextFormat.duration(max(0, seen.saturatingSubtracting(t.requestTime)))) after it (connection-lost-from-view): the confirmation may have come where the sniffer did not see it."
        } else if t.outcome == "pending" {
            detail += " The capture ended \(TextFormat.duration(max(0, captureEnd.saturatingSubtracting(t.requestTime)))) after it, before the 30 s transaction timeout: the confirmation may have come after the capture was cut."
        }
        if t.outcome == "timeout" {
            detail += received
                ? " The local host, the client here, never confirmed it: after 30 s the peer's ATT transaction timed out and it may drop the link. A central app is not told."
                : " The peer, the client here, never confirmed it: after 30 s the local server's ATT transaction timed out."
        }
        return Finding(connectionID: c.id, captureID: captureID, severity: .warning, code: "indication-unconfirmed",
                       title: "Indication on handle \(hex(t.handle ?? 0, width: 4)) never confirmed",
                       detail: detail, evidence: [t.frame])
    }
}

/// Nearest-rank percentiles over sorted samples.
public enum Percentiles {
    public static func value(_ sorted: [Int64], _ p: Double) -> Int64 {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }
}
