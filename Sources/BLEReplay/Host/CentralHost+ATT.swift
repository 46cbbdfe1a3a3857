import BLECore
import BLEDecode

/// The central's ATT bearers and ACL data path (Core v5.4 Vol 3 Part F 3.3; Vol 4 Part E 4.1
/// flow control).
extension CentralHost {
    static let attTimeout: Int64 = 30_000_000

    /// Sends an ATT PDU from the central on `bearer` (nil: the fixed channel 0x0004; else an
    /// Enhanced ATT bearer or the BR/EDR ATT channel, `ATTClientBearer`). A request waits its turn
    /// (one outstanding per bearer) and completes with the response, an error, the 30 s timeout,
    /// or the link's end; other PDUs go straight to the ACL queue. `transmitted` runs when the
    /// controller takes the PDU's last fragment.
    public func send(_ pdu: [UInt8], on link: SimulatedLink, bearer: UInt16? = nil, transmitted: (() -> Void)? = nil,
                     completion: ((ATTResult) -> Void)? = nil) {
        guard link.isUp, !pdu.isEmpty else { completion?(.disconnected); return }
        if ATTOpcode(pdu[0]).kind == .request {
            var b = link.clientBearers[bearer] ?? ATTClientBearer()
            guard !b.closed else { completion?(.disconnected); return }
            let r = ATTClientBearer.Request(pdu: pdu, transmitted: transmitted, completion: completion)
            if b.outstanding == nil {
                link.clientBearers[bearer] = b
                start(r, on: link, bearer: bearer)
            } else {
                b.queue.append(r)
                link.clientBearers[bearer] = b
            }
        } else {
            if ATTOpcode(pdu[0]) == .handleValueIndication, let completion { link.indicationCompletions.append((bearer, completion)) }
            enqueue(pdu, on: link, bearer: bearer, onSent: transmitted)
        }
    }

    private func start(_ r: ATTClientBearer.Request, on link: SimulatedLink, bearer: UInt16?) {
        link.clientBearers[bearer, default: ATTClientBearer()].outstanding = r
        enqueue(r.pdu, on: link, bearer: bearer) { [self] in
            r.transmitted?()
            scheduler.cancel(link.clientBearers[bearer]?.timeout)
            link.clientBearers[bearer]?.timeout = scheduler.schedule(after: Self.attTimeout) { [self] in
                timeOut(link, bearer: bearer)
            }
        }
    }

    /// Core v5.4 Vol 3 Part F 3.3.3: the transaction failed, and no further request may be sent
    /// on this bearer. On the fixed channel the host then disconnects (outside a faithful
    /// replay); an Enhanced ATT bearer's timeout closes that bearer only: the link and its other
    /// bearers go on (3.3.3 names the bearer; Part G 5.4: each bearer is its own sequential
    /// channel).
    private func timeOut(_ link: SimulatedLink, bearer: UInt16?) {
        guard link.isUp, var b = link.clientBearers[bearer], let r = b.outstanding else { return }
        b.outstanding = nil
        b.timeout = nil
        b.closed = true
        let queued = b.queue
        b.queue = []
        link.clientBearers[bearer] = b
        let fixed = bearer == nil || link.transport == .bredr
        if fixed { link.attTimedOut = true }
        r.completion?(.timeout)
        for q in queued { q.completion?(.disconnected) }
        if fixed, world.configuration.disconnectOnATTTimeout {
            disconnect(link, reason: 0x13, requestedByApp: false)
        }
    }

    /// Whether a write without response would go out now (CoreBluetooth's canSendWriteWithoutResponse):
    /// a free controller buffer and nothing queued for this link.
    public func canSendWriteWithoutResponse(_ link: SimulatedLink) -> Bool {
        let ready = link.isUp && freeBuffers > 0 && !txQueue[txHead...].contains { $0.link === link }
        if !ready { waitForWriteReady(link) }
        return ready
    }

    /// Asks for `linkIsReadyToSendWriteWithoutResponse` at the next buffer return that leaves
    /// the link nothing queued.
    func waitForWriteReady(_ link: SimulatedLink) {
        guard !link.wantsWriteReady else { return }
        link.wantsWriteReady = true
        writeReadyWaiting.append(link)
    }

    /// Sets how the central's own GATT server answers the peripheral on this link.
    public func setServerAnswers(_ table: AnswerTable, for link: SimulatedLink) {
        serverAnswers[link.handle] = table
        serverCounts[link.handle] = [:]
    }

    // MARK: ACL out

    func enqueue(_ pdu: [UInt8], on link: SimulatedLink, bearer: UInt16? = nil, onSent: (() -> Void)?) {
        let size = world.configuration.aclBufferSize
        guard trace.keepsRecords else {
            // The trace keeps no records: only the number of fragments matters (flow control).
            let framing = HCIPacketBuilder.attFramingOverhead(bearer: bearer, transport: link.transport)
            let count = HCIPacketBuilder.aclFragmentCount(payloadCount: pdu.count + framing, fragmentSize: size)
            for i in 0..<count {
                let last = i == count - 1
                txQueue.append(TxFragment(link: link, bytes: [], pdu: last ? pdu : nil, bearer: bearer, onSent: last ? onSent : nil))
            }
            pumpTx()
            return
        }
        let fragments = HCIPacketBuilder.attFragments(handle: link.handle, pdu: pdu, bearer: bearer, transport: link.transport,
                                                      fragmentSize: size, fromHost: true)
        for (i, f) in fragments.enumerated() {
            let last = i == fragments.count - 1
            txQueue.append(TxFragment(link: link, bytes: f, pdu: last ? pdu : nil, bearer: bearer, onSent: last ? onSent : nil))
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
            let frame = trace.append(f.bytes, kind: .acl, direction: .sent, at: now, controller: f.link.controller)
            let link = f.link
            link.packetsInFlight += 1
            link.packetsSent += 1
            if link.peerStoppedReading {
                // Never acknowledged: the buffer stays taken until the link ends, and the peer
                // hears nothing (FaultSpec.Kind.stopReading).
                link.stuckPackets += 1
                if let pdu = f.pdu {
                    link.log.append(LoggedPDU(time: link.relative(now), fromCentral: true, data: logged(pdu), frame: frame, bearer: f.bearer))
                    f.onSent?()
                }
                continue
            }
            // The buffer returns capture the link alone (its host is its world's), so that the
            // link is the closure's context: capturing the host too made a context of two for
            // each packet, and one waits on every link up (issue 17).
            if link.packetsSent <= link.recordedCompletions.count {
                // The recorded controller's buffer return for this packet (faithful replay).
                let at = link.establishedAt &+ world.completionTimes[Int(link.recordedCompletions.lowerBound) + link.packetsSent - 1]
                scheduler.schedule(at: max(now, at)) { [link] in link.peripheral.world.host.packetCompleted(link) }
            } else if link.completionEvent == nil {
                link.completionEvent = scheduler.schedule(at: link.nextConnectionEvent(after: now)) { [link] in
                    link.peripheral.world.host.packetsCompleted(link)
                }
            }
            if let pdu = f.pdu {
                link.log.append(LoggedPDU(time: link.relative(now), fromCentral: true, data: logged(pdu), frame: frame, bearer: f.bearer))
                f.onSent?()
                // From an app's server, as the recorded central names attributes (LocalHandleMap).
                link.peripheral.receive(link.localServer?.towardRecorded(pdu) ?? pdu, on: link, bearer: f.bearer)
            }
        }
        if txHead > 64, txHead * 2 > txQueue.count {
            txQueue.removeFirst(txHead)
            txHead = 0
        }
    }

    /// One packet's buffer back when the recorded controller returned it.
    private func packetCompleted(_ link: SimulatedLink) {
        guard link.isUp, link.packetsInFlight > link.stuckPackets else { return }
        trace.event(HCIPacketBuilder.numberOfCompletedPackets(handle: link.handle, count: 1), at: now, controller: link.controller)
        freeBuffers += 1
        link.packetsInFlight -= 1
        buffersReturned()
    }

    /// Number Of Completed Packets at the connection event after the packets went out.
    private func packetsCompleted(_ link: SimulatedLink) {
        link.completionEvent = nil
        let acknowledged = link.packetsInFlight - link.stuckPackets
        guard link.isUp, acknowledged > 0 else { return }
        trace.event(HCIPacketBuilder.numberOfCompletedPackets(handle: link.handle, count: acknowledged), at: now, controller: link.controller)
        freeBuffers += acknowledged
        link.packetsInFlight = link.stuckPackets
        buffersReturned()
    }

    /// Tells the links that asked (`canSendWriteWithoutResponse`) that a write would go out now,
    /// in link order. Only when some link asked: visiting every link at each buffer return made
    /// a capture of many links quadratic (issue 17).
    private func buffersReturned() {
        pumpTx()
        guard !writeReadyWaiting.isEmpty else { return }
        for l in links where l.wantsWriteReady && freeBuffers > 0 && !txQueue[txHead...].contains(where: { $0.link === l }) {
            l.wantsWriteReady = false
            observer?.centralHost(self, linkIsReadyToSendWriteWithoutResponse: l)
        }
        linksVisitedForWriteReady += linkCount
        writeReadyWaiting.removeAll { !$0.wantsWriteReady || !$0.isUp }
    }

    // MARK: ATT in

    /// A PDU from the peripheral reaches the central's host, on `bearer` (`ATTClientBearer`).
    func deliver(_ pdu: [UInt8], on link: SimulatedLink, bearer: UInt16? = nil) {
        guard link.isUp, !pdu.isEmpty else { return }
        var frame = 0
        if trace.keepsRecords {
            for f in HCIPacketBuilder.attFragments(handle: link.handle, pdu: pdu, bearer: bearer, transport: link.transport,
                                                   fragmentSize: 27, fromHost: false) {
                frame = trace.append(f, kind: .acl, direction: .received, at: now, controller: link.controller)
            }
        } else {
            // Only the frame numbers are kept: count the fragments instead of building them.
            let framing = HCIPacketBuilder.attFramingOverhead(bearer: bearer, transport: link.transport)
            frame = trace.skip(HCIPacketBuilder.aclFragmentCount(payloadCount: pdu.count + framing, fragmentSize: 27))
        }
        link.log.append(LoggedPDU(time: link.relative(now), fromCentral: false, data: logged(pdu), frame: frame, bearer: bearer))
        let op = ATTOpcode(pdu[0])
        switch op.kind {
        case .response:
            guard var b = link.clientBearers[bearer], let r = b.outstanding, Self.answers(pdu, request: r.pdu) else { return }
            scheduler.cancel(b.timeout)
            b.timeout = nil
            b.outstanding = nil
            let next = b.queue.isEmpty ? nil : b.queue.removeFirst()
            link.clientBearers[bearer] = b
            if op == .exchangeMTUResponse, pdu.count >= 3, r.pdu.count >= 3 {
                updateMTU(link, client: Int(r.pdu[1]) | Int(r.pdu[2]) << 8, server: Int(pdu[1]) | Int(pdu[2]) << 8)
            }
            if let next { start(next, on: link, bearer: bearer) }
            if op == .errorResponse, case .errorResponse(let e)? = try? ATTPDU(decoding: pdu[...]) {
                r.completion?(.error(e))
            } else {
                r.completion?(.response(pdu))
            }
        case .notification:
            observer?.centralHost(self, link: link, didReceiveValue: pdu)
        case .indication:
            answerAsServer(pdu, on: link, bearer: bearer)
            observer?.centralHost(self, link: link, didReceiveValue: pdu)
        case .request:
            // An app playing the local server (CBPeripheralManager) answers on the fixed channel.
            if let server = link.localServer { server.received(pdu) } else { answerAsServer(pdu, on: link, bearer: bearer) }
        case .confirmation:
            if let i = link.indicationCompletions.firstIndex(where: { $0.bearer == bearer }) {
                link.indicationCompletions.remove(at: i).completion(.response(pdu))
            }
        case .command, .unknown:
            link.localServer?.received(pdu)
        }
    }

    /// A PDU as the link's log keeps it: one of the recording's long PDUs by reference (issue 17).
    func logged(_ pdu: [UInt8]) -> PDUBytes {
        guard pdu.count > PDUBytes.inlineLimit, let source = world.pduSource else { return PDUBytes(pdu) }
        return source.reference(to: pdu)
    }

    /// Whether a response PDU answers the outstanding request (Core v5.4 Vol 3 Part F 3.4.1.1:
    /// an Error Response names the request's opcode).
    static func answers(_ response: [UInt8], request: [UInt8]) -> Bool {
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
    private func answerAsServer(_ pdu: [UInt8], on link: SimulatedLink, bearer: UInt16?) {
        // Counted in place: a copy taken out and put back copied the whole table per PDU.
        let key = PDUBytes.key(pdu)
        serverCounts[link.handle, default: [:]][key, default: 0] += 1
        let occurrence = serverCounts[link.handle]![key]!
        let op = ATTOpcode(pdu[0])
        var response: [UInt8]?
        var latency: Int64 = 0
        var order = Scheduler.unordered
        if let recorded = serverAnswers[link.handle]?.answer(to: key, occurrence: occurrence) {
            guard let r = recorded.response else { return }
            response = r.bytes
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
            enqueue(response, on: link, bearer: bearer, onSent: nil)
        }
    }
}
