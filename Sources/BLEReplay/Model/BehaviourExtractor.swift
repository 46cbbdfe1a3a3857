import BLEAnalysis
import BLECore
import BLEDecode

/// Splits a recorded connection into the peripheral's behaviour and the recorded central's
/// script, anchoring every spontaneous action to the event it followed (Docs/replay.md
/// "Anchoring rules"):
///
/// - an answer (response, error, confirmation) is stored against the exact request bytes it
///   answered, with its latency;
/// - a notification or indication is anchored to the subscription (the enabling CCCD write) of
///   its characteristic, else to the connection start; a Service Changed indication (2A05, Core
///   v5.4 Vol 3 Part G 7.1) always to the connection start: its subscription belongs to the
///   central's system, not its app, and persists across connections for a bonded client
///   (Vol 3 Part G 3.3.3.3), so an app that never writes that CCCD still receives it;
/// - the peripheral's other PDUs and its ending are anchored to the last PDU it received;
/// - the central's actions are anchored to its own latest event: its previous send, the answer
///   to one of its requests, or that request's 30 s ATT timeout.
public struct BehaviourExtractor: Sendable {
    /// CCCD handle -> characteristic value handle, from the GATT database.
    public var cccdOwners: [UInt16: UInt16]
    /// Value handles of Service Changed (2A05) characteristics, from the GATT database.
    public var serviceChangedHandles: Set<UInt16>

    public init(gatt: GATTDatabase?) {
        var owners: [UInt16: UInt16] = [:]
        if let gatt {
            for d in gatt.descriptors where d.uuid == BluetoothUUID(uint16: 0x2902) {
                if let c = gatt.characteristic(owning: d.handle) { owners[d.handle] = c.valueHandle }
            }
        }
        cccdOwners = owners
        serviceChangedHandles = Set((gatt?.characteristics ?? []).filter { $0.uuid == BluetoothUUID(uint16: 0x2A05) }.map(\.valueHandle))
    }

    static let attTimeout: Int64 = 30_000_000

    private struct Pending {
        var bytes: PDUBytes
        var time: Int64
        var step: Int
        var timeoutNoted = false
        /// Which identical request (or indication) this is, 1-based, on the link: its answer's
        /// place in the answer table (`AnswerTable.record(request:occurrence:_:)`).
        var occurrence = 1
    }

    /// A link's transactions waiting for their answer, one per ATT bearer (Core v5.4 Vol 3 Part F
    /// 3.3.2; Part G 5.4: each Enhanced ATT bearer is sequential on its own), in one direction.
    private struct PendingPerBearer {
        var items: [UInt16?: Pending] = [:]
        /// The bearers in a fixed order (a Dictionary has none): the fixed channel first.
        var bearers: [UInt16?] { items.keys.sorted { ($0 ?? 0) < ($1 ?? 0) } }
    }

    /// - Parameter databaseAnswers: false when nothing will answer from the database: the value
    ///   history and the answers split by encryption are then not kept (`ModelBuilder.build`).
    public func extract(_ c: RecordedConnection, databaseAnswers: Bool = true) -> (peer: PeerBehaviour, central: RecordedCentral) {
        var steps: [RecordedCentral.Step] = []
        var peerAnswers = AnswerTable(), centralAnswers = AnswerTable()
        var peerActions: [AnchoredPDU] = []
        var localAnchor: (anchor: Anchor, time: Int64) = (.linkStart, 0)
        var peerAnchors: [(time: Int64, anchor: Anchor)] = [(0, .linkStart)]
        var peerCounts: [ATTMatchKey: Int] = [:]
        var subscriptionCounts: [UInt16: Int] = [:]
        var subscriptions: [UInt16: (anchor: Anchor, time: Int64)] = [:]
        // Per bearer: the local host's request and indication waiting for the peer's answer, and
        // the peer's request and indication waiting for the local host's.
        var pendingLocal = PendingPerBearer()
        var pendingLocalIndication = PendingPerBearer()
        var pendingPeer = PendingPerBearer()
        var pendingPeerIndication = PendingPerBearer()
        // How many times each request (or indication) was sent, per sending side, over every bearer.
        var localSent: [PDUBytes: Int] = [:]
        var peerSent: [PDUBytes: Int] = [:]
        var lastPeerPDU: Int64 = 0
        var longRead = LongRead()
        var valueHistory = ValueHistory()
        // Encryption state when each request was sent (PeerBehaviour.plainAnswers/encryptedAnswers).
        let encryptedAt = c.security.first { if case .encryptionChange(0, true) = $0.kind { return true } else { return false } }?.time
        var plainAnswers = AnswerTable(), encryptedAnswers = AnswerTable()
        var securityTrigger: Int64?
        func recordPeer(_ q: Pending, _ answer: RecordedAnswer) {
            peerAnswers.record(request: q.bytes, occurrence: q.occurrence, answer)
            if let e = encryptedAt, q.time >= e {
                encryptedAnswers.record(request: q.bytes, answer)
            } else {
                plainAnswers.record(request: q.bytes, answer)
                if securityTrigger == nil, let r = answer.response, r.count >= 5, r[0] == ATTOpcode.errorResponse.rawValue,
                   [0x05, 0x0C, 0x0F].contains(r[4]) { securityTrigger = q.time.saturatingAdding(answer.latency) }
            }
        }
        func recordCentral(_ q: Pending, _ answer: RecordedAnswer) {
            centralAnswers.record(request: q.bytes, occurrence: q.occurrence, answer)
        }
        let silence = RecordedAnswer(response: nil, latency: 0, packetID: nil)

        /// The ATT timeouts of the local host's requests that expired before `t`, on every bearer,
        /// in the order they expired: the central's next action may be anchored to one.
        func noteTimeouts(before t: Int64) {
            let expired = pendingLocal.bearers.filter { b in
                guard let p = pendingLocal.items[b] else { return false }
                return !p.timeoutNoted && p.time.saturatingAdding(Self.attTimeout) <= t
            }.sorted { (pendingLocal.items[$0]!.time, $0 ?? 0) < (pendingLocal.items[$1]!.time, $1 ?? 0) }
            for b in expired {
                guard var p = pendingLocal.items[b] else { continue }
                p.timeoutNoted = true
                pendingLocal.items[b] = p
                let at = p.time.saturatingAdding(Self.attTimeout)
                if at >= localAnchor.time { localAnchor = (.timedOut(p.step), at) }
            }
        }

        var events: [(time: Int64, packet: Int, pdu: RecordedPDU?)] = c.pdus.map { ($0.time, $0.packetID, $0) }
        if let d = c.localDisconnect { events.append((d.time, d.packetID, nil)) }
        events.sort { ($0.time, $0.packet) < ($1.time, $1.packet) }

        for e in events {
            noteTimeouts(before: e.time)
            guard let p = e.pdu else {
                let reason = c.localDisconnect?.reason ?? 0x13
                steps.append(.init(action: .disconnect(reason: reason), anchor: localAnchor.anchor,
                                   delay: e.time.saturatingSubtracting(localAnchor.time), offset: e.time, packetID: e.packet))
                localAnchor = (.sent(steps.count - 1), e.time)
                continue
            }
            // The PDU as the model holds it (`PDUBytes`): a long one is not read back here.
            let bytes = p.data
            let op = ATTOpcode(bytes[0])
            let bearer = p.bearer
            if p.fromCentral {
                let key = ATTMatchKey(pdu: bytes)
                peerCounts[key, default: 0] += 1
                peerAnchors.append((p.time, .received(key, peerCounts[key]!)))
                switch op.kind {
                case .response:
                    if let q = pendingPeer.items.removeValue(forKey: bearer) {
                        recordCentral(q, RecordedAnswer(response: bytes, latency: p.time.saturatingSubtracting(q.time), packetID: p.packetID))
                    }
                case .confirmation:
                    if let q = pendingPeerIndication.items.removeValue(forKey: bearer) {
                        recordCentral(q, RecordedAnswer(response: bytes, latency: p.time.saturatingSubtracting(q.time), packetID: p.packetID))
                    }
                default:
                    if op == .writeCommand { valueHistory.wrote(bytes, at: p.time) }
                    steps.append(.init(action: .send(bytes), anchor: localAnchor.anchor, delay: p.time.saturatingSubtracting(localAnchor.time),
                                       offset: p.time, packetID: p.packetID, bearer: bearer))
                    let index = steps.count - 1
                    localAnchor = (.sent(index), p.time)
                    if op.kind == .request || op.kind == .indication {
                        localSent[bytes, default: 0] += 1
                        let q = Pending(bytes: bytes, time: p.time, step: index, occurrence: localSent[bytes]!)
                        // One outstanding per bearer (Core v5.4 Vol 3 Part F 3.3.2); an indication the
                        // peer had not confirmed when the local server sent the next never was (3.4.7.2).
                        if op.kind == .request {
                            if let old = pendingLocal.items.updateValue(q, forKey: bearer) { recordPeer(old, silence) }
                        } else if let old = pendingLocalIndication.items.updateValue(q, forKey: bearer) {
                            recordPeer(old, silence)
                        }
                    }
                    if let (cccd, enabled) = subscriptionWrite(bytes) {
                        let valueHandle = valueHandle(forCCCD: cccd)
                        if enabled {
                            subscriptionCounts[cccd, default: 0] += 1
                            subscriptions[valueHandle] = (.subscribed(cccd: cccd, subscriptionCounts[cccd]!), p.time)
                        } else {
                            subscriptions[valueHandle] = nil
                        }
                    }
                }
            } else {
                lastPeerPDU = p.time
                switch op.kind {
                case .response where pendingLocal.items[bearer] != nil:
                    let q = pendingLocal.items.removeValue(forKey: bearer)!
                    recordPeer(q, RecordedAnswer(response: bytes, latency: p.time.saturatingSubtracting(q.time), packetID: p.packetID))
                    longRead.answered(q.bytes, bytes, occurrence: q.occurrence)
                    valueHistory.answered(q.bytes, bytes, at: p.time, bearer: bearer)
                    if p.time >= localAnchor.time { localAnchor = (.completed(q.step), p.time) }
                case .confirmation where pendingLocalIndication.items[bearer] != nil:
                    let q = pendingLocalIndication.items.removeValue(forKey: bearer)!
                    recordPeer(q, RecordedAnswer(response: bytes, latency: p.time.saturatingSubtracting(q.time), packetID: p.packetID))
                    if p.time >= localAnchor.time { localAnchor = (.completed(q.step), p.time) }
                case .notification, .indication:
                    valueHistory.sent(bytes, at: p.time, bearer: bearer)
                    let handle = ATTMatchKey.attributeHandle(bytes)
                    if let h = handle, !serviceChangedHandles.contains(h), let s = subscriptions[h] {
                        peerActions.append(AnchoredPDU(anchor: s.anchor, delay: p.time.saturatingSubtracting(s.time), offset: p.time, data: bytes,
                                                       packetID: p.packetID, bearer: bearer))
                    } else {
                        peerActions.append(AnchoredPDU(anchor: .linkStart, delay: p.time, offset: p.time, data: bytes, packetID: p.packetID,
                                                       bearer: bearer))
                    }
                    if op.kind == .indication {
                        // A server sends no further indication on a bearer until the last is confirmed
                        // (Core v5.4 Vol 3 Part F 3.4.7.2); one still unconfirmed when the next comes never was.
                        peerSent[bytes, default: 0] += 1
                        let q = Pending(bytes: bytes, time: p.time, step: 0, occurrence: peerSent[bytes]!)
                        if let old = pendingPeerIndication.items.updateValue(q, forKey: bearer) { recordCentral(old, silence) }
                    }
                default:
                    let last = peerAnchors.last!
                    peerActions.append(AnchoredPDU(anchor: last.anchor, delay: p.time.saturatingSubtracting(last.time), offset: p.time, data: bytes,
                                                   packetID: p.packetID, bearer: bearer))
                    if op.kind == .request {
                        peerSent[bytes, default: 0] += 1
                        let q = Pending(bytes: bytes, time: p.time, step: 0, occurrence: peerSent[bytes]!)
                        if let old = pendingPeer.items.updateValue(q, forKey: bearer) { recordCentral(old, silence) }
                    }
                }
            }
        }
        // Requests never answered stay unanswered; an indication the recorded central never
        // confirmed stays unconfirmed in the replay; so does one of the local GATT server that the
        // peer, as its client, never confirmed.
        for b in pendingLocal.bearers { recordPeer(pendingLocal.items[b]!, silence) }
        for b in pendingPeer.bearers { recordCentral(pendingPeer.items[b]!, silence) }
        for b in pendingPeerIndication.bearers { recordCentral(pendingPeerIndication.items[b]!, silence) }
        for b in pendingLocalIndication.bearers { recordPeer(pendingLocalIndication.items[b]!, silence) }

        let params = c.parameters ?? .typical
        func parameters(at t: Int64) -> ConnectionParameters {
            c.parameterUpdates.last(where: { $0.offset <= t })?.parameters ?? params
        }
        func peerAnchor(atOrBefore t: Int64) -> (time: Int64, anchor: Anchor) {
            peerAnchors.last(where: { $0.time <= t }) ?? (0, .linkStart)
        }
        var ending = PeerBehaviour.Ending.stillConnected
        var endingOffset: Int64?
        var terminationDelay = params.interval.saturatingMultiplied(by: 2)
        var terminationReason = HCIStatusCode(0x16)
        if let d = c.disconnect {
            if let local = c.localDisconnect, local.time <= d.time {
                ending = .centralTerminated
                terminationDelay = d.time.saturatingSubtracting(local.time)
                terminationReason = d.reason
            } else if d.reason.rawValue == 0x08 {
                var silence = d.time.saturatingSubtracting(parameters(at: d.time).supervisionTimeout)
                var detection: Int64?
                if c.parameters == nil || silence < lastPeerPDU {
                    silence = max(lastPeerPDU, min(d.time, silence))
                    detection = d.time.saturatingSubtracting(silence)
                }
                let a = peerAnchor(atOrBefore: silence)
                ending = .linkLoss(anchor: a.anchor, delay: silence.saturatingSubtracting(a.time), detection: detection)
                endingOffset = silence
            } else {
                let a = peerAnchor(atOrBefore: d.time)
                ending = .terminated(reason: d.reason, anchor: a.anchor, delay: d.time.saturatingSubtracting(a.time))
                endingOffset = d.time
            }
        } else if let closing = c.controllerClosing {
            ending = .controllerClosed(closing)
        }
        let latencies = peerAnswers.latencies.sorted()
        let peer = PeerBehaviour(
            connectionID: c.id, answers: peerAnswers, actions: peerActions, ending: ending, endingOffset: endingOffset,
            terminationDelay: terminationDelay, terminationReason: terminationReason, parameters: params,
            parameterUpdates: c.parameterUpdates.map { ($0.offset, $0.parameters) }, serverRxMTU: c.serverRxMTU,
            typicalLatency: latencies.isEmpty ? params.interval.saturatingMultiplied(by: 2) : latencies[latencies.count / 2],
            disconnectUnfinished: c.disconnect == nil && c.localDisconnect != nil)
        var peerWithLongReads = peer
        // In one step: each field set on its own made a box of its own (PeerBehaviour+Occasional.swift).
        peerWithLongReads.updateOccasional {
            $0.longReads = longRead.values
            if databaseAnswers {
                valueHistory.finish()
                $0.valueHistory = valueHistory
                $0.plainAnswers = plainAnswers
                $0.encryptedAnswers = encryptedAnswers
            }
            $0.security = SecurityOutcome(c.security, trigger: securityTrigger)
            $0.linkEvents = c.linkEvents
        }
        return (peerWithLongReads, RecordedCentral(connectionID: c.id, steps: steps, answers: centralAnswers))
    }

    /// A Write Request or Write Command of 0x0000-0x0003 (two bytes) to a CCCD: (handle, enabled).
    /// Only handles the GATT database knows as CCCDs count; when it knows none, any such write does
    /// (and the characteristic is taken to be the handle before it).
    public func subscriptionWrite(_ data: PDUBytes) -> (cccd: UInt16, enabled: Bool)? {
        data.count == 5 ? subscriptionWrite(data.held) : nil
    }

    public func subscriptionWrite(_ bytes: [UInt8]) -> (cccd: UInt16, enabled: Bool)? {
        guard bytes.count == 5, bytes[0] == 0x12 || bytes[0] == 0x52, bytes[4] == 0, bytes[3] <= 3 else { return nil }
        let handle = UInt16(bytes[1]) | UInt16(bytes[2]) << 8
        guard cccdOwners.isEmpty || cccdOwners[handle] != nil else { return nil }
        return (handle, bytes[3] != 0)
    }

    /// The characteristic value handle a CCCD configures.
    public func valueHandle(forCCCD handle: UInt16) -> UInt16 { cccdOwners[handle] ?? (handle &- 1) }
}

/// Long attribute values as the recording read them (Core v5.4 Vol 3 Part G 4.8.3): a Read
/// Response, then Read Blob Responses at consecutive offsets of the same handle, with no other
/// request answered between them (a Read Blob after a Read By Type continues the value that read
/// returned, Vol 3 Part G 4.8.2, not an earlier Read Request's). Kept per Read
/// Request occurrence, so a replay whose MTU differs from the recorded one serves the value the
/// peripheral held, cut at its own MTU (PeerSession), instead of the recorded first part.
struct LongRead {
    var request: [UInt8]?
    var occurrence = 0
    var handle: UInt16 = 0
    var value: [UInt8] = []
    /// Read Request bytes -> occurrence (1-based) -> the whole value.
    var values: [[UInt8]: [Int: [UInt8]]] = [:]

    /// `occurrence`: which identical request this answers (1-based). A long PDU (`PDUBytes`) is
    /// read back only when its value can be part of a long value (512 bytes at most).
    mutating func answered(_ request: PDUBytes, _ response: PDUBytes, occurrence: Int) {
        guard request.count >= 3, let op = request.first, let r = response.first else { return }
        let handle = UInt16(request[1]) | UInt16(request[2]) << 8
        if op == ATTOpcode.readRequest.rawValue {
            // A first part over 512 bytes never grows into a long value (Core v5.4 Vol 3 Part F
            // 3.2.9): no Read Blob Response can follow it, as if the read were not a long one.
            let extendable = r == ATTOpcode.readResponse.rawValue && response.count - 1 <= 512
            self.request = extendable ? request.bytes : nil
            self.occurrence = occurrence
            self.handle = handle
            value = extendable ? Array(response.bytes.dropFirst()) : []
        } else if op != ATTOpcode.readBlobRequest.rawValue || handle != self.handle {
            // Another request between the Read Request and a Read Blob of its handle (a Read By
            // Type that read the value anew, a Read Multiple, another handle's long read): the
            // Read Blob that follows continues that, not the Read Request's value.
            self.request = nil
        } else if request.count >= 5, let read = self.request {
            let offset = Int(request[3]) | Int(request[4]) << 8
            guard r == ATTOpcode.readBlobResponse.rawValue, offset == value.count, value.count + response.count - 1 <= 512 else { return }
            let part = response.bytes.dropFirst()
            guard !part.isEmpty, value.count + part.count <= 512 else { return }
            value += part
            values[read, default: [:]][occurrence] = value
        }
    }
}
