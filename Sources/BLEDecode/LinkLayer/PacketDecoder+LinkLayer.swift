import BLECore

/// Air captures (LINKTYPE 251, 256, 272) into the same timeline as HCI captures.
///
/// A record's payload is the whole frame: sniffer pseudo-header (`SnifferHeader`), then the LE
/// packet (`LinkLayerPacket`). Advertising channel PDUs become advertising reports and, for
/// CONNECT_IND, a connection (`PacketDecoder+LinkLayerAdvertising`); data channel PDUs go
/// through the L2CAP reassembler and the ATT, SMP and LE signalling decoders of the HCI path,
/// or are LL Control PDUs (`PacketDecoder+LLControl`). Air connections have no HCI handle: the
/// tracker and reassembler get a synthetic one, the connection's ordinal (1, 2, …).
///
/// Never throws, never traps: damage goes into `problems` with absolute offsets and the packet
/// still comes back with a summary.
extension PacketDecoder {
    mutating func decodeLinkLayer(_ record: CaptureRecord) -> DecodedPacket {
        let base = options.payloadBase(of: record)
        let frame = record.payload[...]
        if record.originalLength > record.payload.count {
            // Cut by the capture (a snapshot length: `RecordCutter`): the sniffer header's lengths,
            // the PDU's Length field, the CRC and the PDU itself no longer add up, so nothing is
            // read from it rather than a shorter packet, an "encrypted" PDU or a bad CRC made up.
            let name = record.rawType == SnifferHeader.nordicLinkType ? "nRF Sniffer" : "LE LL"
            return DecodedPacket(summary: name + " packet, not decoded"
                                     + options.recordCutter.note(kept: record.payload.count, original: record.originalLength),
                                 layer: .linkLayer)
        }
        let header: SnifferHeader
        do {
            header = try SnifferHeader(linkType: record.rawType, decoding: frame, baseOffset: base)
        } catch {
            let name = record.rawType == SnifferHeader.nordicLinkType ? "nRF Sniffer" : "LE LL RF"
            return DecodedPacket(summary: name + " packet (malformed: " + error.reason + ")", layer: .linkLayer,
                                 problems: [error])
        }
        let packet: LinkLayerPacket
        do {
            packet = try LinkLayerPacket(decoding: frame.dropFirst(header.length), after: header, baseOffset: base &+ header.length)
        } catch {
            return DecodedPacket(summary: "LE LL packet (malformed: " + error.reason + ")", layer: .linkLayer,
                                 problems: [error])
        }
        var crcError: String?
        if header.crcValid == false {
            crcError = "the sniffer reports a CRC error"
        } else if header.crcValid == nil, let crcInit = packet.isAdvertising ? LinkLayerCRC.advertisingInit
                    : linkLayer.connections[packet.accessAddress]?.crcInit,
                  LinkLayerCRC.matches(packet, crcInit: crcInit) == false {
            // The sniffer gave no verdict (LINKTYPE 251; 256 without "CRC checked"): checked here
            // with the advertising CRC init or the CONNECT_IND's CRCInit (Core v5.4 Vol 6 Part B 3.1.1).
            crcError = "the CRC does not match the packet's bytes (CRC init " + hex(crcInit, width: 6) + ")"
        }
        if let crcError {
            // Contents unreliable: named, not interpreted (no state changes from noise).
            var problems = packet.problems
            problems.append(DecodeError(layer: .linkLayer, offset: base &+ header.length, kind: .malformed,
                                        reason: crcError))
            let what = packet.isAdvertising
                ? AdvertisingPDUType(packet.header[0]).name
                : "Data PDU on access address " + LinkLayerPacket.accessAddressString(packet.accessAddress)
            var decoded = DecodedPacket(summary: what + " (bad CRC)", layer: .linkLayer, problems: problems)
            if !packet.isAdvertising, var conn = linkLayer.connections[packet.accessAddress] {
                // It was still a turn on air: its time counts for the event counter and for
                // whose turn comes next, as when the receiver itself drops it (Vol 6 Part B 4.5.9).
                if header.eventCounter == nil { _ = conn.countEvent(timestamp: record.timestamp) }
                let sender = header.sender ?? conn.timedSender(timestamp: record.timestamp, eventCounter: header.eventCounter)
                conn.note(sender: sender, timestamp: record.timestamp, eventCounter: header.eventCounter)
                conn.lastFrame = record.frameNumber
                linkLayer.connections[packet.accessAddress] = conn
                decoded.connection = conn.ref
                if record.direction == .unknown { decoded.direction = sender.direction }
            }
            return decoded
        }
        // Periodic advertising (AUX_SYNC_IND and its chain, Core v5.4 Vol 6 Part B 2.3, 4.4.2.12)
        // is sent on the access address its SyncInfo gives, not 0x8E89BED6: when the sniffer says
        // the PDU is advertising, it is one, never data on a connection found in progress.
        if packet.isAdvertising || header.pduKind == .advertising || header.pduKind == .auxiliaryAdvertising {
            return decodeAdvertisingPDU(packet, header: header, record: record)
        }
        if header.pduKind == .isochronous {
            // CIS/BIS PDUs (Vol 6 Part B 2.6) are not decoded; they open no ACL connection.
            return DecodedPacket(summary: "Isochronous PDU on access address "
                                 + LinkLayerPacket.accessAddressString(packet.accessAddress)
                                 + ", \(packet.payload.count) bytes (not decoded)",
                                 layer: .linkLayer, problems: packet.problems)
        }
        return decodeDataPDU(packet, header: header, record: record)
    }

    // MARK: data channel PDUs

    /// A data physical channel PDU (Core v5.4 Vol 6 Part B 2.4).
    mutating func decodeDataPDU(_ packet: LinkLayerPacket, header: SnifferHeader, record: CaptureRecord) -> DecodedPacket {
        let base = options.payloadBase(of: record)
        var events: [DecodedEvent] = []
        var conn: LinkLayerConnection
        if let known = linkLayer.connections[packet.accessAddress] {
            conn = known
        } else {
            let handle = allocateAirHandle()
            let (c, _) = tracker.connectionForACL(handle: handle, transportHint: .le, at: base)
            conn = LinkLayerConnection(ref: c.ref, accessAddress: packet.accessAddress, origin: .foundInProgress,
                                       interval: nil, frame: record.frameNumber)
            events.append(.connectionFoundInProgress(c.ref, transport: .le))
        }
        conn.lastFrame = record.frameNumber
        // Counted before the sender is noted: the count compares with the previous packet.
        let eventCounter = header.eventCounter ?? conn.countEvent(timestamp: record.timestamp)

        let sender: LinkLayerRole
        if let known = header.sender {
            sender = known
            conn.note(sender: known, timestamp: record.timestamp, eventCounter: header.eventCounter)
        } else {
            let pending = (central: reassembler.states[ACLReassembler.Key(handle: conn.handle, direction: .sent)] != nil,
                           peripheral: reassembler.states[ACLReassembler.Key(handle: conn.handle, direction: .received)] != nil)
            sender = conn.inferSender(header: DataChannelHeader(octets: packet.header), payload: packet.payload,
                                      timestamp: record.timestamp, eventCounter: header.eventCounter, pendingL2CAP: pending)
            if !conn.inferenceReported {
                conn.inferenceReported = true
                events.append(.linkEvent(LinkEvent(name: "LL direction inferred", connection: conn.ref, status: nil, fields: [
                    ("access_address", LinkLayerPacket.accessAddressString(packet.accessAddress)),
                    ("reason", "the sniffer does not record who sent each PDU: the first PDU of each connection event is taken as the central's, then the sides alternate"),
                ])))
            }
        }
        var d = PacketDraft(direction: sender.direction, base: base, frame: record.frameNumber, summaries: options.summaries)
        d.layer = .linkLayer
        d.connection = conn.ref
        d.events = events
        d.problems = packet.problems
        applyPendingUpdate(&conn, eventCounter: eventCounter, into: &d)

        let dh = DataChannelHeader(octets: packet.header)
        decodeDataPayload(packet, dh, header: header, eventCounter: eventCounter, sender: sender,
                          frame: record.frameNumber, &conn, into: &d)
        for gone in linkLayer.store(conn) {
            _ = tracker.disconnectionComplete(handle: gone.handle, status: .success)
            _ = reassembler.discard(handle: gone.handle, why: "access address forgotten")
        }
        var decoded = d.packet
        if record.direction == .unknown { decoded.direction = sender.direction }
        return decoded
    }

    /// Everything after the header: retransmissions, Empty PDUs, ciphertext, L2CAP, LL Control.
    private mutating func decodeDataPayload(_ packet: LinkLayerPacket, _ dh: DataChannelHeader, header: SnifferHeader,
                                            eventCounter: UInt16?, sender: LinkLayerRole, frame: Int, _ conn: inout LinkLayerConnection,
                                            into d: inout PacketDraft) {
        let payload = packet.payload
        if let original = conn.retransmissionOriginal(sender: sender, header: dh, payload: payload, frame: frame) {
            var what = Self.llidName(dh.llid)
            if dh.llid == DataChannelHeader.control, let op = payload.first { what = LLControlOpcode(op).name }
            d.summary.set(d.prefix + "Retransmission of frame \(original) (" + what + ", \(payload.count) bytes)")
            return
        }
        if dh.isEmptyPDU {
            d.summary.set(d.prefix + "Empty PDU")
            return
        }
        if dh.llid == 0 {
            d.fail(layer: .linkLayer, at: packet.payloadOffset &- d.base &- packet.header.count, kind: .malformed,
                   "LLID 0b00 is reserved on an ACL connection")
            d.summary.set(d.prefix + "Data PDU with reserved LLID 0b00, \(payload.count) bytes")
            return
        }
        let key = ACLReassembler.Key(handle: conn.handle, direction: sender.direction)
        if !isPlaintext(dh.llid, payload, header: header, conn: conn, key: key) {
            d.summary.set(d.prefix + "Encrypted " + Self.llidName(dh.llid) + ", \(payload.count) bytes (ciphertext)")
            if conn.encryption == .unknown {
                d.summary += ", or not a valid PDU"
            }
            // Named where the link is known to be encrypted (or the sniffer says so): on a link found
            // in progress such a payload may as well be noise on a stray access address.
            if !conn.ciphertextReported, conn.encryption == .on || header.encrypted {
                conn.ciphertextReported = true
                d.events.append(.linkEvent(LinkEvent(name: LinkLayerDecoder.ciphertextEventName, connection: conn.ref,
                                                     status: nil, fields: [
                    ("reason", "the sniffer did not decrypt the link: from this PDU on, its L2CAP (ATT, SMP) and LL Control payloads are not known"),
                ])))
            }
            return
        }
        switch dh.llid {
        case DataChannelHeader.control:
            decodeLLControl(payload, offset: packet.payloadOffset, eventCounter: eventCounter, &conn, into: &d)
        default:
            decodeL2CAPFragment(packet, isStart: dh.llid == DataChannelHeader.start, key: key, conn: conn, into: &d)
        }
    }

    /// Whether a non-empty PDU's payload is plaintext (see `LinkLayerConnection.looksLikePlaintext`).
    private func isPlaintext(_ llid: UInt8, _ payload: ArraySlice<UInt8>, header: SnifferHeader,
                             conn: LinkLayerConnection, key: ACLReassembler.Key) -> Bool {
        switch conn.encryption {
        case .off, .requested:
            return true
        case .on, .unknown:
            if header.decrypted { return true }
            if header.encrypted { return false }
            var remaining: Int?
            if let state = reassembler.states[key], let expected = state.expected { remaining = expected - state.pending.bytes.count }
            return LinkLayerConnection.looksLikePlaintext(llid: llid, payload: payload, pendingRemaining: remaining)
        }
    }

    /// LLID 0b10 / 0b01 payloads through the shared reassembler to the L2CAP dispatch.
    private mutating func decodeL2CAPFragment(_ packet: LinkLayerPacket, isStart: Bool, key: ACLReassembler.Key,
                                              conn: LinkLayerConnection, into d: inout PacketDraft) {
        let payload = packet.payload
        if !isStart, reassembler.states[key] == nil {
            d.problems.append(DecodeError(layer: .l2cap, offset: packet.payloadOffset, kind: .truncated,
                                          reason: "L2CAP continuation fragment (\(payload.count) bytes) with no start fragment pending (missed by the sniffer?)"))
            d.summary.set(d.prefix + "L2CAP Fragment, \(payload.count) bytes (no start fragment seen)")
            return
        }
        let outcome = reassembler.add(payload, dataOffset: packet.payloadOffset, source: d.source, key: key, isStart: isStart,
                                      isTruncated: packet.isTruncated, problems: &d.problems)
        switch outcome {
        case .complete(let frame):
            let tracked = ConnectionTracker.Connection(ref: conn.ref, transport: .le, origin: .event,
                                                       openedAt: packet.payloadOffset)
            dispatchL2CAP(frame, connection: tracked, into: &d)
        case .needMore(let start, let received, let expected):
            d.summary.set(d.prefix + (start ? "L2CAP Fragment Start" : "L2CAP Fragment")
                + (expected.map { " (\(received) of \($0) bytes)" } ?? " (\(received) bytes)"))
        case .dropped:
            d.summary.set(d.prefix + (isStart ? "L2CAP Fragment Start" : "L2CAP Fragment") + ", \(payload.count) bytes (dropped)")
        }
    }

    /// Connection and PHY updates waiting for their instant apply on the first packet at or
    /// after it (the event counter is the sniffer's, or counted from the packets' times).
    private func applyPendingUpdate(_ conn: inout LinkLayerConnection, eventCounter: UInt16?,
                                    into d: inout PacketDraft) {
        guard let counter = eventCounter else { return }
        if let pending = conn.pendingUpdate, Int16(bitPattern: counter &- pending.instant) >= 0 {
            conn.pendingUpdate = nil
            conn.interval = pending.interval
            d.events.append(.connectionUpdate(ConnectionUpdate(
                connection: conn.ref, status: .success, interval: pending.interval,
                peripheralLatency: pending.latency, supervisionTimeout: pending.timeout)))
        }
        if let pending = conn.pendingPHY, Int16(bitPattern: counter &- pending.instant) >= 0 {
            conn.pendingPHY = nil
            Self.phyUpdated(&conn, tx: pending.tx, rx: pending.rx, into: &d)
        }
    }

    /// The PHYs change: a link event as the HCI LE PHY Update Complete event names it
    /// (Core v5.4 Vol 4 Part E 7.7.65.12), seen from the central.
    static func phyUpdated(_ conn: inout LinkLayerConnection, tx: UInt8, rx: UInt8, into d: inout PacketDraft) {
        conn.txPHY = tx
        conn.rxPHY = rx
        d.events.append(.linkEvent(LinkEvent(name: "LE PHY Update Complete", connection: conn.ref, status: .success,
                                             fields: [("tx_phy", Fmt.phy(tx)), ("rx_phy", Fmt.phy(rx))])))
    }

    /// A handle for a new air connection: its ordinal, skipping handles still open.
    mutating func allocateAirHandle() -> UInt16 {
        var handle = UInt16(truncatingIfNeeded: tracker.count % Int(Self.maximumConnectionHandle) + 1)
        var tries = 0
        while tracker.connection(handle) != nil, tries < Int(Self.maximumConnectionHandle) {
            handle = handle % Self.maximumConnectionHandle + 1
            tries += 1
        }
        return handle
    }

    /// `L2CAP start fragment`, `LL Control PDU`, … by LLID.
    static func llidName(_ llid: UInt8) -> String {
        switch llid {
        case DataChannelHeader.start: "L2CAP start fragment"
        case DataChannelHeader.continuation: "L2CAP continuation fragment"
        case DataChannelHeader.control: "LL Control PDU"
        default: "LLID 0b00 PDU"
        }
    }
}
