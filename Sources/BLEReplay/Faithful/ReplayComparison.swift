import BLEAnalysis
import BLECore
import BLEDecode

/// Where a replay first differed from the recording.
public struct Divergence: Sendable {
    /// `att-pdu`, `missing-pdu`, `extra-pdu`, `timing`, `outcome`, `disconnect-reason`,
    /// `disconnect-time`, `still-connected`, `ended-early`, `unmatched-request`.
    public var kind: String
    public var expected: String
    public var got: String
    /// Recorded packet id (frame number in the original capture).
    public var expectedPacketID: Int?
    /// Frame number in the simulated capture (`--write-capture`).
    public var gotFrame: Int?
    /// Microseconds since the connection's start (`TimeLabel.intoConnection`).
    public var time: Int64
}

/// The verdict on one recorded connection after a faithful replay.
public struct ConnectionVerdict: Sendable {
    public var connectionID: Int64
    public var handle: UInt16
    public var peer: String
    /// `connection`, `mid-capture connection`, `cancelled attempt`, `failed attempt`.
    public var kind: String
    public var reproduced: Bool
    public var recordedPDUs: Int
    public var simulatedPDUs: Int
    public var recordedEnd: String
    public var simulatedEnd: String
    /// The peripheral model's ending rule, as Docs/replay.md words it.
    public var endingRule: String?
    /// The local device was the peripheral on this link: `endingRule` then tells how the remote
    /// central or the local peripheral ended it, not "the peripheral" (`PeerBehaviour.Ending`).
    public var localPeripheral = false
    /// The simulated link ended with another reason than the recorded one (or one ended and
    /// the other did not): a fault changed the ending, and `endingRule` is the recording's only.
    public var endedOtherwise = false
    public var divergence: Divergence?
    /// Largest gap between a recorded PDU's time and its replay (µs, from the connection's start).
    public var maxTimingError: Int64
    public var notes: [String]
    /// On a sniffer's capture: the recorded end is the one `diagnose` infers from the air
    /// (`connection-timeout-on-air`), not one a controller reported (`RecordedConnection.disconnectInferred`).
    public var endInferred = false
    /// On a sniffer's capture that does not show how the link ended (`RecordedConnection.endNotShown`):
    /// the link's last packet, up to which the recording covers it and the replay is compared.
    public var comparedUpTo: Int? = nil
    /// The finding that says how the air shows the end (`AirEnding`), on a sniffer's capture.
    public var airFinding: String? = nil
    /// On any capture: the Connection Complete that gave the link's handle to a new link, its own
    /// end not in the capture (`AirEnding.Kind.handleReused`); `comparedUpTo` is then its last packet.
    public var endNotInCapture: Int? = nil
    /// Set when the connection did not reproduce and the capture itself lacks records inside it
    /// (`CaptureGap`): which packet and why. Never counted as reproduced.
    public var captureGap: String? = nil

    /// Reproduced, or not settled by the capture (a capture gap): what a check may accept.
    public var settled: Bool { reproduced || captureGap != nil }
    /// How long the simulated connection lasted, virtual µs (0 for an attempt): JUnit's testcase `time`.
    public var duration: Int64 = 0
}

/// Compares a simulated link with the recorded connection it replays: the same ATT PDUs in the
/// same order, each within 1 ms of its recorded time; the same transaction outcomes; the same
/// disconnect reason within 1 ms (Docs/replay.md "What reproduced means").
public enum ReplayComparison {
    public static let tolerance: Int64 = 1_000

    public static func compare(_ c: RecordedConnection, link: SimulatedLink?, unmatched: [ReplayWorld.UnmatchedRequest],
                               endingRule: String?) -> ConnectionVerdict {
        // Which side the local host was (ATT PDUs are logged as from it or from the peer).
        let localPeripheral = c.role == "peripheral"
        let kind = !c.isEstablished ? (c.status == 0x02 ? "cancelled attempt" : "failed attempt")
            : (c.beganBeforeCapture ? "mid-capture connection" : "connection")
        var v = ConnectionVerdict(connectionID: c.id, handle: c.handle, peer: c.peerLabel, kind: kind, reproduced: true,
                                  recordedPDUs: c.pdus.count, simulatedPDUs: link?.log.count ?? 0,
                                  recordedEnd: c.controllerClosing.map { closedText($0.note, at: "packet \($0.packetID)", time: $0.time, connection: c.id) }
                                      ?? endText(reason: c.disconnect?.reason, time: c.disconnect?.time, connection: c.id, statusOnly: c.isEstablished ? nil : c.status),
                                  simulatedEnd: "", endingRule: endingRule, divergence: nil, maxTimingError: 0, notes: [])
        v.localPeripheral = localPeripheral
        if let air = c.airEnding { airEnding(air, of: c, into: &v) }
        guard c.isEstablished else {
            v.simulatedEnd = v.recordedEnd
            v.notes.append("the central gave up on this attempt (status \(hex(c.status)) \(HCIStatusCode(c.status).name)); nothing of the peripheral to replay")
            return v
        }
        guard let link else {
            v.reproduced = false
            v.simulatedEnd = "never connected"
            v.divergence = Divergence(kind: "missing-connection", expected: "connection at \(TimeLabel.capture(c.offset))",
                                      got: "no link", expectedPacketID: c.completePacketID, gotFrame: nil, time: 0)
            return v
        }
        v.simulatedEnd = link.controllerClosed.map { closedText($0.note, at: "simulated frame \($0.frame)", time: link.endedAt.map(link.relative) ?? 0, connection: c.id) }
            ?? endText(reason: link.endReason, time: link.endedAt.map(link.relative), connection: c.id, statusOnly: nil)
        if let last = v.comparedUpTo, link.endReason == nil, link.controllerClosed == nil {
            v.simulatedEnd = "still connected after packet \(last), where the recording stops showing the link"
        }
        v.endedOtherwise = link.endReason?.rawValue != c.disconnect?.reason.rawValue || (link.controllerClosed == nil) != (c.controllerClosing == nil)
        v.duration = max(0, link.endedAt.map(link.relative) ?? c.end)
        if c.smpPackets > 0 { v.notes.append("\(c.smpPackets) SMP packets (pairing) are not simulated; only ATT and the link are compared") }
        if c.transport == .bredr {
            v.notes.append("a BR/EDR link (GATT over BR/EDR, ATT on PSM 0x001F): its ATT and its ending are compared, not its other L2CAP traffic (profiles, signalling)")
        }
        if c.pdus.contains(where: { $0.bearer != nil }), c.transport == .le {
            let bearers = Set(c.pdus.compactMap(\.bearer)).sorted().map { hex($0, width: 4) }.joined(separator: ", ")
            v.notes.append("Enhanced ATT bearers \(bearers): compared per bearer (each its own sequence of transactions and its own ATT timeout); the L2CAP signalling that opened them is not")
        }
        if c.beganBeforeCapture { v.notes.append("the capture starts mid-connection: replayed from its first packet, parameters and MTU before it unknown") }
        if c.role == "peripheral" {
            v.notes.append("the local device was the peripheral (GATT server) on this link: the remote central's requests are replayed as recorded and the local server's recorded answers compared; to run your own GATT server against this recorded central, create a CBPeripheralManager in CoreBluetoothReplay (Docs/peripheral.md); a --central script plays the remote central against the recorded local GATT server (\"server\": \"local\", the default on a capture with only such links)")
        }

        // 1. The ATT exchange, PDU by PDU. A late PDU is the first divergence, and the PDUs
        // after it are still timed for `maxTimingError` as long as they are the recorded ones
        // (a fault that delays answers shifts every later PDU: the largest shift is the figure).
        let recorded = c.pdus
        let simulated = link.log
        for i in 0..<max(recorded.count, simulated.count) {
            let r = i < recorded.count ? recorded[i] : nil
            let s = i < simulated.count ? simulated[i] : nil
            let timingOnly = v.divergence != nil
            if let r, let s {
                // Long PDUs compare by length and digest, never read back (`PDUBytes`).
                if r.fromCentral != s.fromCentral || r.data != s.data || r.bearer != s.bearer {
                    if timingOnly { break }
                    v.divergence = Divergence(kind: "att-pdu", expected: describe(r.bytes, fromCentral: r.fromCentral, bearer: r.bearer, localPeripheral: localPeripheral),
                                              got: describe(s.bytes, fromCentral: s.fromCentral, bearer: s.bearer, localPeripheral: localPeripheral), expectedPacketID: r.packetID,
                                              gotFrame: s.frame, time: r.time)
                    break
                }
                let error = s.time.saturatingSubtracting(r.time).saturatingMagnitude
                v.maxTimingError = max(v.maxTimingError, error)
                if error > tolerance, !timingOnly {
                    v.divergence = Divergence(kind: "timing", expected: "\(describe(r.bytes, fromCentral: r.fromCentral, bearer: r.bearer, localPeripheral: localPeripheral)) at \(TimeLabel.intoConnection(r.time, c.id))",
                                              got: "at \(TimeLabel.intoConnection(s.time, c.id))", expectedPacketID: r.packetID,
                                              gotFrame: s.frame, time: r.time)
                }
            } else if timingOnly {
                break
            } else if let r {
                var got = "nothing (\(link.isUp ? "no such PDU" : "link ended \(v.simulatedEnd)"))"
                if let unanswered = unansweredRequest(before: i, in: recorded) {
                    got += ": the recording shows it sent while the same side's \(ATTOpcode(unanswered.data.first ?? 0).name) (packet \(unanswered.packetID)) "
                        + "had no answer (diagnose: att-request-while-outstanding); ATT allows one request at a time on a bearer (Core v5.4 Vol 3 "
                        + "Part F 3.3.2), so either the capture lacks the answer (a packet it missed) or the recorded side broke that rule: "
                        + "the replayed side waits for the answer and never sends this request"
                }
                v.divergence = Divergence(kind: "missing-pdu", expected: describe(r.bytes, fromCentral: r.fromCentral, bearer: r.bearer, localPeripheral: localPeripheral),
                                          got: got,
                                          expectedPacketID: r.packetID, gotFrame: nil, time: r.time)
                break
            } else if let s {
                v.divergence = Divergence(kind: "extra-pdu", expected: "nothing more", got: describe(s.bytes, fromCentral: s.fromCentral, bearer: s.bearer, localPeripheral: localPeripheral),
                                          expectedPacketID: nil, gotFrame: s.frame, time: s.time)
                break
            }
        }
        // 2. Transaction outcomes.
        if v.divergence == nil {
            // Step 1 found the same PDUs in the same order on both sides: decode each once, and
            // only those a transaction is made of (notifications and commands are most of them).
            var a = TransactionMatcher(), b = TransactionMatcher()
            // The matcher reads the opcode and the decoded PDU, not the bytes: a long PDU is read
            // back only to be decoded, and only its first bytes are passed on (issue 17).
            for (r, s) in zip(recorded, simulated) where opensOrClosesTransaction(r.data.held) {
                let held = r.data.held
                let decoded = matcherReads(held) ? try? ATTPDU(decoding: r.bytes[...]) : nil
                a.add(stored(r.packetID, r.time, r.fromCentral, held, r.bearer, decoded))
                b.add(stored(s.frame, s.time, s.fromCentral, s.data.held, s.bearer, decoded))
            }
            a.finish(disconnectedAt: c.disconnect?.time ?? c.controllerClosing?.time, captureEnd: c.end)
            b.finish(disconnectedAt: link.endedAt.map(link.relative), captureEnd: c.end)
            // Equal fields give equal texts; only fields that differ need their texts compared.
            for (x, y) in zip(a.transactions, b.transactions) where !(x.opcode == y.opcode && x.handle == y.handle && x.outcome == y.outcome && x.errorCode == y.errorCode) {
                let (xt, yt) = (outcomeText(x), outcomeText(y))
                guard xt != yt else { continue }
                v.divergence = Divergence(kind: "outcome", expected: xt, got: yt, expectedPacketID: x.requestPacketID,
                                          gotFrame: y.requestPacketID, time: 0)
                break
            }
        }
        // 3. How it ended.
        if v.divergence == nil {
            if let closing = c.controllerClosing {
                // Ended with its controller: so must the replay's link, at the recorded instant.
                if let ended = link.endedAt, link.controllerClosed != nil {
                    if link.relative(ended).saturatingSubtracting(closing.time).saturatingMagnitude > tolerance {
                        v.divergence = Divergence(kind: "disconnect-time", expected: v.recordedEnd, got: v.simulatedEnd,
                                                  expectedPacketID: closing.packetID, gotFrame: link.controllerClosed?.frame, time: closing.time)
                    }
                } else {
                    v.divergence = Divergence(kind: link.isUp ? "still-connected" : "disconnect-reason", expected: v.recordedEnd,
                                              got: link.isUp ? "still connected" : v.simulatedEnd, expectedPacketID: closing.packetID,
                                              gotFrame: nil, time: closing.time)
                }
            } else if let d = c.disconnect {
                if let reason = link.endReason, let ended = link.endedAt {
                    let t = link.relative(ended)
                    if reason != d.reason {
                        v.divergence = Divergence(kind: "disconnect-reason", expected: v.recordedEnd, got: v.simulatedEnd,
                                                  expectedPacketID: d.packetID, gotFrame: nil, time: d.time)
                    } else if t.saturatingSubtracting(d.time).saturatingMagnitude > tolerance {
                        v.divergence = Divergence(kind: "disconnect-time", expected: v.recordedEnd, got: v.simulatedEnd,
                                                  expectedPacketID: d.packetID, gotFrame: nil, time: d.time)
                    }
                } else {
                    v.divergence = Divergence(kind: "still-connected", expected: v.recordedEnd, got: "still connected",
                                              expectedPacketID: d.packetID, gotFrame: nil, time: d.time)
                }
            } else if let last = v.comparedUpTo {
                // The recording covers the link up to its last packet only: the replay's link must
                // not end before it; what it does after is not in the capture.
                if !link.isUp, let ended = link.endedAt, link.relative(ended) < c.end.saturatingSubtracting(tolerance) {
                    v.divergence = Divergence(kind: "ended-early", expected: "the link up to packet \(last) (\(TimeLabel.intoConnection(c.end, c.id))), its last in the capture",
                                              got: v.simulatedEnd, expectedPacketID: last, gotFrame: link.controllerClosed?.frame,
                                              time: link.relative(ended))
                }
            } else if !link.isUp, let closed = link.controllerClosed {
                v.divergence = Divergence(kind: "ended-early", expected: "still connected when the capture ended",
                                          got: v.simulatedEnd, expectedPacketID: nil, gotFrame: closed.frame, time: link.endedAt.map(link.relative) ?? 0)
            } else if !link.isUp {
                v.divergence = Divergence(kind: "ended-early", expected: "still connected when the capture ended",
                                          got: v.simulatedEnd, expectedPacketID: nil, gotFrame: nil, time: link.endedAt.map(link.relative) ?? 0)
            }
        }
        if v.divergence == nil, let u = unmatched.first(where: { $0.link == ObjectIdentifier(link) }) {
            v.divergence = Divergence(kind: "unmatched-request", expected: "a request the recording answered",
                                      got: describe(u.pdu, fromCentral: true, localPeripheral: localPeripheral), expectedPacketID: nil, gotFrame: nil,
                                      time: link.relative(u.time))
        }
        v.reproduced = v.divergence == nil
        return v
    }

    /// When `pdus[index]` is a request, the same side's previous request on its bearer when no
    /// response (or Error Response) to it comes in between: a recording that is inconsistent (a
    /// client sends one request at a time, Core v5.4 Vol 3 Part F 3.3.2), where a replay whose
    /// side waits for the answer never sends the next one. Nil otherwise.
    static func unansweredRequest(before index: Int, in pdus: [RecordedPDU]) -> RecordedPDU? {
        let r = pdus[index]
        guard ATTOpcode(r.data.first ?? 0).kind == .request else { return nil }
        for j in stride(from: index - 1, through: 0, by: -1) {
            let p = pdus[j]
            guard p.bearer == r.bearer else { continue }
            let kind = ATTOpcode(p.data.first ?? 0).kind
            if p.fromCentral != r.fromCentral, kind == .response { return nil }
            if p.fromCentral == r.fromCentral, kind == .request { return p }
        }
        return nil
    }

    /// The recorded end of a link on a sniffer's capture (`AirEnding`), as `diagnose` says it:
    /// an inferred disconnect said as inferred, or the capture not showing how the link ended,
    /// in which case the verdict is "reproduced up to" the link's last packet.
    static func airEnding(_ air: AirEnding, of c: RecordedConnection, into v: inout ConnectionVerdict) {
        let last = "packet \(air.lastPacketID) (\(TimeLabel.intoConnection(c.end, c.id)))"
        switch air.kind {
        case .inferredDisconnect(let reason):
            guard let d = c.disconnect else { return }
            v.endInferred = true
            v.airFinding = AirEnding.timeoutOnAirCode
            v.recordedEnd = endText(reason: d.reason, time: d.time, connection: c.id, statusOnly: nil) + " (inferred on air)"
            v.endingRule = v.endingRule.map { $0 + " (inferred on air)" }
            v.notes.append("the recorded end is inferred, not reported (diagnose: \(AirEnding.timeoutOnAirCode)): "
                           + (reason.rawValue == 0x3E ? "the peripheral answered none of the central's packets and the central gave up"
                                                      : "the peripheral went silent and the central's packets stop after the supervision timeout")
                           + "; the central's controller then reports \(hex(reason.rawValue)) \(reason.name) (Core v5.4 Vol 6 Part B 4.5.2), "
                           + "placed at the link's last packet \(air.lastPacketID) as diagnose and report place it; no LL_TERMINATE_IND, and no HCI in an air capture")
        case .encryptedTermination(let packet, let sender):
            v.airFinding = AirEnding.encryptedTerminationCode
            notShown(&v, air, recordedEnd: "not in the capture: most likely \(sender)'s LL_TERMINATE_IND at packet \(packet) (inferred: encrypted, its reason not in the capture); the link's last packet is \(last)",
                     rule: "not known: the capture does not show how the link ended (its reason encrypted)",
                     why: "diagnose: \(AirEnding.encryptedTerminationCode): most likely \(sender)'s LL_TERMINATE_IND at packet \(packet), encrypted, its reason not in the capture",
                     last: last)
        case .handleReused(let packet):
            v.endNotInCapture = packet
            notShown(&v, air, recordedEnd: "not in the capture: ended by packet \(packet) at the latest, where a Connection Complete gave its handle "
                         + "\(hex(c.handle, width: 4)) to a new link; its Disconnection Complete is missing, so no reason; its last packet is \(last)",
                     why: "its handle was given to a new link at packet \(packet), its Disconnection Complete not in the capture", last: last)
        case .notShown(let finding):
            v.airFinding = finding
            notShown(&v, air, recordedEnd: "not in the capture: its last packet is \(air.lastPacketID) (\(TimeLabel.intoConnection(c.end, c.id))), with no LL_TERMINATE_IND"
                         + (c.beganBeforeCapture ? ": the sniffer caught packets of a link it never followed" : ": the link ended where the sniffer could not see it, or the sniffer lost it"),
                     why: finding.map { "diagnose: \($0)" }, last: last)
        }
    }

    /// A link whose end the capture does not show: the recording covers it up to its last packet,
    /// where the comparison stops (`comparedUpTo`); `why` is said in the note, in parentheses.
    static func notShown(_ v: inout ConnectionVerdict, _ air: AirEnding, recordedEnd: String,
                         rule: String = "not known: the capture does not show how the link ended", why: String?, last: String) {
        v.comparedUpTo = air.lastPacketID
        v.recordedEnd = recordedEnd
        v.endingRule = rule
        v.notes.append("the capture does not show how the link ended" + (why.map { " (\($0))" } ?? "") + ": compared up to its last \(last)")
    }

    /// A link that ended with its controller (`ControllerClosing`), as `diagnose` words it:
    /// `ended with its controller: the controller was reset at packet 6 (HCI Reset completed with
    /// the link up) at t+… into conn 1: no Disconnection Complete, so no HCI reason`.
    static func closedText(_ note: String, at: String, time: Int64, connection: Int64) -> String {
        "ended with its controller: " + ControllerClosing.what(note, at: at) + " at \(TimeLabel.intoConnection(time, connection)): "
            + ControllerClosing.noReason
    }

    static func endText(reason: HCIStatusCode?, time: Int64?, connection: Int64, statusOnly: UInt8?) -> String {
        if let statusOnly { return "LE Connection Complete status \(hex(statusOnly)) \(HCIStatusCode(statusOnly).name)" }
        guard let reason else { return "still connected" }
        return "disconnected \(hex(reason.rawValue)) \(reason.name) at \(TimeLabel.intoConnection(time ?? 0, connection))"
    }

    /// `central -> Write Request, Handle: 0x0021 [0100]`; on another bearer than the fixed channel
    /// `central (bearer 0x0041) -> ...`. `fromCentral` is the local host's side; on a link where
    /// the local device was the peripheral (`localPeripheral`) that side is named `local
    /// peripheral` and the other `remote central`.
    public static func describe(_ bytes: [UInt8], fromCentral: Bool, bearer: UInt16? = nil, localPeripheral: Bool = false) -> String {
        let on = bearer.map { " (bearer \(hex($0, width: 4)))" } ?? ""
        let side = localPeripheral ? (fromCentral ? "local peripheral" : "remote central") : (fromCentral ? "central" : "peripheral")
        let who = side + on + " -> "
        guard let pdu = try? ATTPDU(decoding: bytes[...]) else { return who + "malformed ATT \(hexString(bytes))" }
        var s = who + pdu.summary
        if let value = pdu.value, !value.isEmpty { s += " [\(hexString(value.prefix(32)))\(value.count > 32 ? "…" : "")]" }
        if let e = pdu.errorCode { s += " (\(e))" }
        return s
    }

    /// Whether a PDU takes part in a transaction (a request, response, indication or
    /// confirmation, Core v5.4 Vol 3 Part F 3.3): the only ones `TransactionMatcher` looks at.
    static func opensOrClosesTransaction(_ bytes: [UInt8]) -> Bool {
        switch ATTOpcode(bytes.first ?? 0).kind {
        case .request, .response, .indication, .confirmation: true
        case .command, .notification, .unknown: false
        }
    }

    /// One PDU as the matcher takes it (packet or frame, time, from the central, bytes, bearer, decoded).
    static func stored(_ packet: Int, _ time: Int64, _ fromCentral: Bool, _ bytes: [UInt8], _ bearer: UInt16?,
                       _ decoded: ATTPDU?) -> StoredATTPDU {
        StoredATTPDU(packetID: packet, timestamp: time, direction: fromCentral ? .sent : .received, opcode: ATTOpcode(bytes[0]),
                     pdu: decoded, bytes: bytes, bearer: bearer)
    }

    /// Whether `TransactionMatcher` reads the decoded PDU: a request's or indication's handle,
    /// an Error Response's request opcode and code; of other responses and of confirmations only
    /// the opcode, which it has without decoding.
    static func matcherReads(_ bytes: [UInt8]) -> Bool {
        let op = ATTOpcode(bytes[0])
        switch op.kind {
        case .request, .indication: return true
        case .response: return op == .errorResponse
        case .command, .notification, .confirmation, .unknown: return false
        }
    }

    /// The transactions of a PDU sequence (packet or frame, time, from the central, bytes, ATT
    /// bearer, decoded), paired per ATT bearer as the analysis pairs them (`TransactionMatcher`).
    static func transactions(_ pdus: [(Int, Int64, Bool, [UInt8], UInt16?, ATTPDU?)], end: Int64?, captureEnd: Int64) -> [ATTTransaction] {
        var m = TransactionMatcher()
        for (packet, time, fromCentral, bytes, bearer, decoded) in pdus { m.add(stored(packet, time, fromCentral, bytes, bearer, decoded)) }
        m.finish(disconnectedAt: end, captureEnd: captureEnd)
        return m.transactions
    }

    /// `Write Request 0x0021: ok`, as a divergence names a transaction's outcome.
    static func outcomeText(_ t: ATTTransaction) -> String {
        let handle = t.handle.map { " \(hex($0, width: 4))" } ?? ""
        let error = t.errorCode.map { " \($0)" } ?? ""
        return "\(t.opcode.name)\(handle): \(t.outcome.rawValue)\(error)"
    }

    static func outcomes(_ pdus: [(Int, Int64, Bool, [UInt8])], end: Int64?, captureEnd: Int64) -> [(text: String, packet: Int)] {
        outcomes(onBearers: pdus.map { ($0.0, $0.1, $0.2, $0.3, nil) }, end: end, captureEnd: captureEnd)
    }

    /// The transactions' outcomes as divergences name them, paired per ATT bearer.
    static func outcomes(onBearers pdus: [(Int, Int64, Bool, [UInt8], UInt16?)], end: Int64?, captureEnd: Int64) -> [(text: String, packet: Int)] {
        transactions(pdus.map { ($0.0, $0.1, $0.2, $0.3, $0.4, try? ATTPDU(decoding: $0.3[...])) }, end: end, captureEnd: captureEnd)
            .map { (outcomeText($0), $0.requestPacketID) }
    }
}
