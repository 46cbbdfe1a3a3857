import BLECore
import BLEDecode

/// The central's ATT bearer and ACL data path (Core v5.4 Vol 3 Part F 3.3; Vol 4 Part E 4.1
/// flow control).
extension CentralHost {
    static let attTimeout: Int64 = 30_000_000

    /// Sends an ATT PDU from the central. A request waits its turn (one outstanding per bearer)
    /// and completes with the response, an error, the 30 s timeout, or the link's end; other
    /// PDUs go straight to the ACL queue. `transmitted` runs when the controller takes the
    /// PDU's last fragment.
    public func send(_ pdu: [UInt8], on link: SimulatedLink, transmitted: (() -> Void)? = nil,
                     completion: ((ATTResult) -> Void)? = nil) {
        guard link.isUp, !pdu.isEmpty else { completion?(.disconnected); return }
        if ATTOpcode(pdu[0]).kind == .request {
            guard !link.bearerClosed else { completion?(.disconnected); return }
            let r = SimulatedLink.Request(pdu: pdu, transmitted: transmitted, completion: completion)
            if link.outstanding == nil { start(r, on: link) } else { link.requestQueue.append(r) }
        } else {
            if ATTOpcode(pdu[0]) == .handleValueIndication, let completion { link.indicationCompletions.append(completion) }
            enqueue(pdu, on: link, onSent: transmitted)
        }
    }

    private func start(_ r: SimulatedLink.Request, on link: SimulatedLink) {
        link.outstanding = r
        enqueue(r.pdu, on: link) { [self] in
            r.transmitted?()
            scheduler.cancel(link.outstandingTimeout)
            link.outstandingTimeout = scheduler.schedule(after: Self.attTimeout) { [self] in timeOut(link) }
        }
    }

    /// Core v5.4 Vol 3 Part F 3.3.3: the transaction failed, and no further request may be
    /// sent on this bearer.
    private func timeOut(_ link: SimulatedLink) {
        guard link.isUp, let r = link.outstanding else { return }
        link.outstanding = nil
        link.outstandingTimeout = nil
        link.bearerClosed = true
        link.attTimedOut = true
        let queued = link.requestQueue
        link.requestQueue = []
        r.completion?(.timeout)
        for q in queued { q.completion?(.disconnected) }
        if world.configuration.disconnectOnATTTimeout {
            disconnect(link, reason: 0x13, requestedByApp: false)
        }
    }

    /// Whether a write without response would go out now (CoreBluetooth's canSendWriteWithoutResponse):
    /// a free controller buffer and nothing queued for this link.
    public func canSendWriteWithoutResponse(_ link: SimulatedLink) -> Bool {
        let ready = link.isUp && freeBuffers > 0 && !txQueue[txHead...].contains { $0.link === link }
        if !ready { link.wantsWriteReady = true }
        return ready
    }

    /// Sets how the central's own GATT server answers the peripheral on this link.
    public func setServerAnswers(_ table: AnswerTable, for link: SimulatedLink) {
        serverAnswers[link.handle] = table
        serverCounts[link.handle] = [:]
    }

    // MARK: ACL out

    func enqueue(_ pdu: [UInt8], on link: SimulatedLink, onSent: (() -> Void)?) {
        let size = world.configuration.aclBufferSize
        guard trace.keepsRecords else {
            // The trace keeps no records: only the number of fragments matters (flow control).
            let count = HCIPacketBuilder.aclFragmentCount(payloadCount: pdu.count, fragmentSize: size)
            for i in 0..<count {
                let last = i == count - 1
                txQueue.append(TxFragment(link: link, bytes: [], pdu: last ? pdu : nil, onSent: last ? onSent : nil))
            }
            pumpTx()
            return
        }
        let fragments = HCIPacketBuilder.aclFragments(handle: link.handle, payload: pdu, fragmentSize: size, fromHost: true)
        for (i, f) in fragments.enumerated() {
            let last = i == fragments.count - 1
            txQueue.append(TxFragment(link: link, bytes: f, pdu: last ? pdu : nil, onSent: last ? onSent : nil))
        }
        pumpTx()
    }

    /// Hands queued fragments to the controller while it has buffers.
    func pumpTx() {
        while freeBuffers > 0, txHead < txQueue.count {
            let f = txQueue[txHead]
            txHead += 1
            guard f.link.isUp else { continue }
            freeBuffers -= 1
            let frame = trace.append(f.bytes, kind: .acl, direction: .sent, at: now)
            let link = f.link
            link.packetsInFlight += 1
            link.packetsSent += 1
            if link.packetsSent <= link.recordedCompletions.count {
                // The recorded controller's buffer return for this packet (faithful replay).
                let at = link.establishedAt &+ link.recordedCompletions[link.packetsSent - 1]
                scheduler.schedule(at: max(now, at)) { [self] in packetCompleted(link) }
            } else if link.completionEvent == nil {
                link.completionEvent = scheduler.schedule(at: link.nextConnectionEvent(after: now)) { [self] in
                    packetsCompleted(link)
                }
            }
            if let pdu = f.pdu {
                link.log.append(LoggedPDU(time: link.relative(now), fromCentral: true, bytes: pdu, frame: frame))
                f.onSent?()
                link.peripheral.receive(pdu, on: link)
            }
        }
        if txHead > 64, txHead * 2 > txQueue.count {
            txQueue.removeFirst(txHead)
            txHead = 0
        }
    }

    /// One packet's buffer back when the recorded controller returned it.
    private func packetCompleted(_ link: SimulatedLink) {
        guard link.isUp, link.packetsInFlight > 0 else { return }
        trace.event(HCIPacketBuilder.numberOfCompletedPackets(handle: link.handle, count: 1), at: now)
        freeBuffers += 1
        link.packetsInFlight -= 1
        buffersReturned()
    }

    /// Number Of Completed Packets at the connection event after the packets went out.
    private func packetsCompleted(_ link: SimulatedLink) {
        link.completionEvent = nil
        guard link.isUp, link.packetsInFlight > 0 else { return }
        trace.event(HCIPacketBuilder.numberOfCompletedPackets(handle: link.handle, count: link.packetsInFlight), at: now)
        freeBuffers += link.packetsInFlight
        link.packetsInFlight = 0
        buffersReturned()
    }

    private func buffersReturned() {
        pumpTx()
        for l in links where l.wantsWriteReady && freeBuffers > 0 && !txQueue[txHead...].contains(where: { $0.link === l }) {
            l.wantsWriteReady = false
            observer?.centralHost(self, linkIsReadyToSendWriteWithoutResponse: l)
        }
    }

    // MARK: ATT in

    /// A PDU from the peripheral reaches the central's host.
    func deliver(_ pdu: [UInt8], on link: SimulatedLink) {
        guard link.isUp, !pdu.isEmpty else { return }
        var frame = 0
        if trace.keepsRecords {
            for f in HCIPacketBuilder.aclFragments(handle: link.handle, payload: pdu, fragmentSize: 27, fromHost: false) {
                frame = trace.append(f, kind: .acl, direction: .received, at: now)
            }
        } else {
            // Only the frame numbers are kept: count the fragments instead of building them.
            frame = trace.skip(HCIPacketBuilder.aclFragmentCount(payloadCount: pdu.count, fragmentSize: 27))
        }
        link.log.append(LoggedPDU(time: link.relative(now), fromCentral: false, bytes: pdu, frame: frame))
        let op = ATTOpcode(pdu[0])
        switch op.kind {
        case .response:
            guard let r = link.outstanding, answers(pdu, request: r.pdu) else { return }
            scheduler.cancel(link.outstandingTimeout)
            link.outstandingTimeout = nil
            link.outstanding = nil
            if op == .exchangeMTUResponse, pdu.count >= 3, r.pdu.count >= 3 {
                updateMTU(link, client: Int(r.pdu[1]) | Int(r.pdu[2]) << 8, server: Int(pdu[1]) | Int(pdu[2]) << 8)
            }
            if let next = link.requestQueue.first {
                link.requestQueue.removeFirst()
                start(next, on: link)
            }
            if op == .errorResponse, case .errorResponse(let e)? = try? ATTPDU(decoding: pdu[...]) {
                r.completion?(.error(e))
            } else {
                r.completion?(.response(pdu))
            }
        case .notification:
            observer?.centralHost(self, link: link, didReceiveValue: pdu)
        case .indication:
            answerAsServer(pdu, on: link)
            observer?.centralHost(self, link: link, didReceiveValue: pdu)
        case .request:
            if let server = link.localServer { server.received(pdu) } else { answerAsServer(pdu, on: link) }
        case .confirmation:
            if !link.indicationCompletions.isEmpty { link.indicationCompletions.removeFirst()(.response(pdu)) }
        case .command, .unknown:
            link.localServer?.received(pdu)
        }
    }

    /// Whether a response PDU answers the outstanding request.
    private func answers(_ response: [UInt8], request: [UInt8]) -> Bool {
        let op = ATTOpcode(response[0])
        if op == .errorResponse { return response.count < 2 || response[1] == request[0] }
        return ATTOpcode(request[0]).responseOpcode == op
    }

    func updateMTU(_ link: SimulatedLink, client: Int, server: Int) {
        let mtu = max(23, min(client, server))
        link.mtuExchanged = true
        guard mtu != link.mtu else { return }
        link.mtu = mtu
        observer?.centralHost(self, link: link, didUpdateMTU: mtu)
    }

    /// The central's GATT server: the recorded answer to this exact request when there is one,
    /// else a confirmation for an indication, our MTU for an MTU exchange, and an error otherwise.
    private func answerAsServer(_ pdu: [UInt8], on link: SimulatedLink) {
        var counts = serverCounts[link.handle] ?? [:]
        counts[pdu, default: 0] += 1
        serverCounts[link.handle] = counts
        let op = ATTOpcode(pdu[0])
        var response: [UInt8]?
        var latency: Int64 = 0
        var order = Scheduler.unordered
        if let recorded = serverAnswers[link.handle]?.answer(to: pdu, occurrence: counts[pdu]!) {
            guard let r = recorded.response else { return }
            response = r
            latency = recorded.latency
            order = recorded.packetID ?? order
        } else if op == .handleValueIndication {
            response = [ATTOpcode.handleValueConfirmation.rawValue]
        } else if op == .exchangeMTURequest {
            response = ATTPDU.exchangeMTUResponse(ATTExchangeMTUResponse(serverRxMTU: world.configuration.clientRxMTU)).encoded()
        } else {
            let discovery: Set<ATTOpcode> = [.readByGroupTypeRequest, .readByTypeRequest, .findInformationRequest, .findByTypeValueRequest]
            let code: ATTErrorCode = discovery.contains(op) ? .attributeNotFound : .requestNotSupported
            let handle = (try? ATTPDU(decoding: pdu[...]))?.attributeHandle ?? 0
            response = ATTPDU.errorResponse(ATTErrorResponse(requestOpcode: op, attributeHandle: handle, errorCode: code)).encoded()
        }
        guard let response else { return }
        scheduler.schedule(after: latency, order: order) { [self] in
            guard link.isUp else { return }
            if op == .exchangeMTURequest, pdu.count >= 3, response.count >= 3, response[0] == ATTOpcode.exchangeMTUResponse.rawValue {
                updateMTU(link, client: Int(response[1]) | Int(response[2]) << 8, server: Int(pdu[1]) | Int(pdu[2]) << 8)
            }
            enqueue(response, on: link, onSent: nil)
        }
    }
}
