import BLECore

/// Advertising physical channel PDUs of an air capture (Core v5.4 Vol 6 Part B 2.3).
///
/// ADV_IND, ADV_DIRECT_IND, ADV_NONCONN_IND, ADV_SCAN_IND and SCAN_RSP become advertising
/// reports as an HCI LE Advertising Report would give them (address typed by TxAdd, RSSI from
/// the pseudo-header); AUX_ADV_IND, AUX_SCAN_RSP and AUX_CHAIN_IND that name their advertiser
/// become extended reports. CONNECT_IND (AUX_CONNECT_REQ) opens a connection keyed by its
/// access address, seen as the central sees it: role central, peer = AdvA.
extension PacketDecoder {
    mutating func decodeAdvertisingPDU(_ packet: LinkLayerPacket, header: SnifferHeader, record: CaptureRecord) -> DecodedPacket {
        var d = PacketDraft(direction: .unknown, base: options.payloadBase(of: record),
                            frame: record.frameNumber, summaries: options.summaries)
        d.layer = .linkLayer
        d.problems = packet.problems
        let h = AdvertisingPDUHeader(octets: packet.header[0], packet.header[1])
        let secondary = header.channelIndex.map { $0 < 37 } ?? (header.pduKind == .auxiliaryAdvertising)
        var name = h.type.name
        if secondary {
            switch h.type {
            case .scanReq: name = "AUX_SCAN_REQ"
            case .connectInd: name = "AUX_CONNECT_REQ"
            case .advExtInd: name = AdvertisingPDUType.auxiliaryName(header.auxiliaryType)
            default: break
            }
        }
        if !packet.isAdvertising, h.type == .advExtInd, header.auxiliaryType == nil {
            // Only periodic advertising leaves the advertising access address (Vol 6 Part B 2.1.2).
            name = "AUX_SYNC_IND"
        }
        let pdu: AdvertisingChannelPDU
        do {
            pdu = try AdvertisingChannelPDU(type: h.type, decoding: packet.payload, baseOffset: packet.payloadOffset)
        } catch {
            d.problems.append(error)
            d.summary.set(name + " (malformed: " + error.reason + ")")
            return d.packet
        }
        let rssi = header.rssi
        switch pdu {
        case .advInd(let p), .advNonconnInd(let p), .advScanInd(let p), .scanRsp(let p):
            if p.data.count > AdvertisingIndication.maximumDataLength {
                d.fail(layer: .linkLayer, at: packet.payloadOffset &- d.base &+ 6, kind: .malformed,
                       "\(name): \(p.data.count) bytes of advertising data, at most 31 allowed")
            }
            let report = AdvertisingReport(address: p.advertiserAddress, addressType: h.txAddressType,
                                           eventType: pdu.legacyReportEventType ?? 0, isExtended: false,
                                           isScanResponse: h.type == .scanRsp, rssi: rssi, txPower: nil, data: p.data)
            d.summary.set(name + " " + Self.advertiser(report))
            d.events.append(.advertisingReport(report))
        case .advDirectInd(let p):
            let report = AdvertisingReport(address: p.advertiserAddress, addressType: h.txAddressType, eventType: 1,
                                           isExtended: false, isScanResponse: false, rssi: rssi, txPower: nil, data: [])
            d.summary.set(name + " " + Self.advertiser(report) + " -> "
                + LinkLayerFormat.address(p.targetAddress, h.rxAddressType))
            d.events.append(.advertisingReport(report))
        case .scanReq(let p):
            d.summary.set(name + " " + LinkLayerFormat.address(p.scannerAddress, h.txAddressType) + " -> "
                + LinkLayerFormat.address(p.advertiserAddress, h.rxAddressType))
        case .connectInd(let c):
            // Legacy advertising, CONNECT_IND included, is on LE 1M only (Core v5.4 Vol 6 Part B
            // 2.3); an AUX_CONNECT_REQ is on the secondary channel's PHY, which the connection then
            // uses (4.5, 2.3.4.4): the sniffer's PHY (0 LE 1M, 1 LE 2M, 2 LE Coded), as HCI numbers it.
            let phy: UInt8? = name != "AUX_CONNECT_REQ" ? 1 : header.phy.flatMap { $0 <= 2 ? $0 + 1 : nil }
            connectIndication(c, name: name, header: h, phy: phy, record: record,
                              llDataOffset: packet.payloadOffset &+ 12, into: &d)
        case .extended(let type, let p):
            extendedAdvertising(p, type: type, name: name, secondary: secondary, header: h, rssi: rssi, into: &d)
        case .unknown(_, let payload):
            d.summary.set(name + ", \(payload.count) bytes")
        }
        return d.packet
    }

    /// CONNECT_IND: a new connection on its access address (an open one with the same access
    /// address ends, unseen).
    private mutating func connectIndication(_ c: ConnectIndication, name: String, header h: AdvertisingPDUHeader,
                                            phy: UInt8?, record: CaptureRecord, llDataOffset: Int,
                                            into d: inout PacketDraft) {
        for problem in c.parameterProblems {
            d.problems.append(DecodeError(layer: .linkLayer, offset: llDataOffset, kind: .malformed,
                                          reason: "\(name) LLData: \(problem)"))
        }
        if let old = linkLayer.connections[c.accessAddress], old.isOpen {
            _ = tracker.disconnectionComplete(handle: old.handle, status: .success)
            let discarded = reassembler.discard(handle: old.handle, why: "connection ended unseen")
            d.events.append(.linkEvent(LinkEvent(name: "LL connection ended unseen", connection: old.ref, status: nil, fields: [
                ("access_address", LinkLayerPacket.accessAddressString(c.accessAddress)),
                ("reason", "a new CONNECT_IND reuses the access address and no LL_TERMINATE_IND was seen"),
                ("partial_l2cap_pdus_discarded", String(discarded.count)),
            ])))
        }
        let handle = allocateAirHandle()
        let (ref, _) = tracker.connectionComplete(handle: handle, status: .success, transport: .le, at: d.base)
        // The first connection event starts no earlier than transmitWindowDelay + transmitWindowOffset
        // after the end of the CONNECT_IND (Core v5.4 Vol 6 Part B 4.5.3): the delay is 1.25 ms
        // after a CONNECT_IND, 2.5 ms after an AUX_CONNECT_REQ on LE 1M or 2M, 3.75 ms on LE Coded;
        // the PDU's own air time taken at LE 1M (1 µs a bit), never longer than it was.
        let delay: Int64 = name != "AUX_CONNECT_REQ" ? 1_250 : phy == 3 ? 3_750 : 2_500
        let firstAnchor = record.timestamp.saturatingAdding(Int64(8 * (1 + 4 + 2 + 34 + 3)) + delay + Int64(c.windowOffset) * 1_250)
        var conn = LinkLayerConnection(ref: ref, accessAddress: c.accessAddress, origin: .connectInd,
                                       interval: c.interval, frame: record.frameNumber, firstAnchor: firstAnchor)
        conn.crcInit = c.crcInit
        if let phy {
            conn.txPHY = phy
            conn.rxPHY = phy
        }
        for gone in linkLayer.store(conn) {
            _ = tracker.disconnectionComplete(handle: gone.handle, status: .success)
            _ = reassembler.discard(handle: gone.handle, why: "access address forgotten")
        }
        d.connection = ref
        d.summary.set(name + " " + LinkLayerFormat.address(c.initiatorAddress, h.txAddressType) + " -> "
            + LinkLayerFormat.address(c.advertiserAddress, h.rxAddressType)
            + ", Access Address: " + LinkLayerPacket.accessAddressString(c.accessAddress)
            + ", Interval: " + Fmt.interval(c.interval) + ", Latency: \(c.latency), Timeout: " + Fmt.timeout10ms(c.timeout)
            + ", Channels: \(c.usedChannels), Hop: \(c.hop)")
        d.events.append(.connectionComplete(ConnectionComplete(
            connection: ref, transport: .le, status: .success, role: 0, peerAddress: c.advertiserAddress,
            peerAddressType: h.rxAddressType, interval: c.interval, peripheralLatency: c.latency,
            supervisionTimeout: c.timeout, eventName: name)))
        if let phy {
            d.events.append(.linkEvent(LinkEvent(name: LinkLayerDecoder.connectionPHYEventName, connection: ref, status: .success,
                                                 fields: [("tx_phy", Fmt.phy(phy)), ("rx_phy", Fmt.phy(phy))])))
        }
    }


    /// ADV_EXT_IND and the AUX_* PDUs: a report when the PDU names its advertiser and carries
    /// the advertising data (AUX_ADV_IND, AUX_SCAN_RSP, AUX_CHAIN_IND).
    private mutating func extendedAdvertising(_ p: ExtendedAdvertisingPayload, type: AdvertisingPDUType, name: String,
                                              secondary: Bool, header h: AdvertisingPDUHeader, rssi: Int8?,
                                              into d: inout PacketDraft) {
        var summary = name
        if let a = p.advertiserAddress { summary += " " + LinkLayerFormat.address(a, h.txAddressType) }
        if let sid = p.advertisingSID { summary += ", SID \(sid)" }
        if let channel = p.auxChannel { summary += ", AuxPtr channel \(channel)" }
        let carriesData = secondary && type == .advExtInd && name != "AUX_SYNC_IND"
        // An AuxPtr on a PDU that carries data: the data goes on in AUX_CHAIN_IND PDUs (Core v5.4
        // Vol 6 Part B 2.3.4.4, 4.4.2.8), joined as a controller joins them for its host: every
        // PDU a report, the last with the whole data (`ExtendedAdvertisingFragments`).
        let continues: UInt8 = p.auxPointer != nil ? 1 : 0
        if carriesData, let a = p.advertiserAddress {
            let isScanResponse = name == "AUX_SCAN_RSP"
            var report = AdvertisingReport(address: a, addressType: h.txAddressType,
                                           eventType: p.reportEventType(isScanResponse: isScanResponse), isExtended: true,
                                           isScanResponse: isScanResponse, rssi: rssi, txPower: p.txPower, data: p.data)
            report.dataStatus = continues
            if let adi = p.adi {
                linkLayer.setChain(continues == 1 ? .init(address: a, addressType: h.txAddressType,
                                                          eventType: report.eventType & ~0x60, isScanResponse: isScanResponse) : nil,
                                   adi: adi)
                let key = ExtendedAdvertisingFragments.Key(controller: Self.airChainController, address: a,
                                                           addressType: h.txAddressType, sid: UInt8(adi >> 12))
                advertisingFragments.discard(key)
                report = advertisingFragments.add(report, key: key)
            }
            summary = name + " " + Self.advertiser(report)
            d.events.append(.advertisingReport(report))
        } else if carriesData, p.advertiserAddress == nil, let adi = p.adi, let chain = linkLayer.chains[adi] {
            // AUX_CHAIN_IND: the advertiser is the one whose chain has this ADI.
            var report = AdvertisingReport(address: chain.address, addressType: chain.addressType,
                                           eventType: chain.eventType | (continues == 1 ? 0x20 : 0), isExtended: true,
                                           isScanResponse: chain.isScanResponse, rssi: rssi, txPower: p.txPower, data: p.data)
            report.dataStatus = continues
            if continues == 0 { linkLayer.setChain(nil, adi: adi) }
            report = advertisingFragments.add(report, key: .init(controller: Self.airChainController, address: chain.address,
                                                                 addressType: chain.addressType, sid: UInt8(adi >> 12)))
            summary = name + " " + Self.advertiser(report) + (continues == 1 ? ", \(p.data.count) bytes, more to come" : "")
            d.events.append(.advertisingReport(report))
        } else if !p.data.isEmpty {
            summary += ", \(p.data.count) bytes of data"
        }
        d.summary.set(summary)
    }

    /// The fragments of air capture chains are keyed apart from any HCI controller's.
    static let airChainController = UInt16.max

    /// `7D:43:82:42:23:16 (random) rssi -60 "Name"`.
    private static func advertiser(_ r: AdvertisingReport) -> String {
        var s = Fmt.address(r.address) + " (" + r.addressType.name + ")"
        if let rssi = r.rssi { s += " rssi \(rssi)" }
        if let name = r.parsed.localName { s += " \"" + name + "\"" }
        return s
    }
}
