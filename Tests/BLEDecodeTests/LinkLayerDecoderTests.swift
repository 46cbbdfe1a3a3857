import BLECore
import Testing
@testable import BLEDecode

/// The stateful part of air-capture decoding: connections by access address, L2CAP over the
/// LL, retransmissions, encryption, instants, direction inference.
@Suite("Link-layer decoding")
struct LinkLayerDecoderTests {
    typealias B = AirFrameBuilder
    /// Exchange MTU Request (client Rx MTU 247) in an L2CAP B-frame on CID 4.
    static let mtuRequest: [UInt8] = [0x03, 0x00, 0x04, 0x00, 0x02, 0xF7, 0x00]
    static let mtuResponse: [UInt8] = [0x03, 0x00, 0x04, 0x00, 0x03, 0x9C, 0x00]

    @Test("ADV_IND is an advertising report with the sniffer's RSSI")
    func advertisingReport() throws {
        var b = B()
        b.add(B.nordic(B.advertising(0x00, B.advA + [0x05, 0x09, 0x4C, 0x6F, 0x63, 0x6B])))
        let p = b.decode()[0]
        #expect(p.summary == "ADV_IND CA:FE:13:37:00:01 (random) rssi -60 \"Lock\"")
        guard case .advertisingReport(let r)? = p.events.first else { Issue.record("no report"); return }
        #expect(r.address.description == "CA:FE:13:37:00:01" && r.addressType == .random && r.eventType == 0)
        #expect(r.rssi == -60 && !r.isScanResponse && r.parsed.localName == "Lock")
    }

    /// Core v5.4 Vol 6 Part B 3.1.1: CRC init 0x555555 on the advertising physical channel, the
    /// CONNECT_IND's CRCInit on the connection.
    @Test("a sniffer that gives no CRC verdict (LINKTYPE 251, 256 without 'CRC checked'): the CRC is checked, a corrupted packet named, not decoded",
          arguments: [UInt16(251), 256])
    func crcCheckedWithoutVerdict(linkType: UInt16) {
        func frame(_ ll: [UInt8]) -> [UInt8] {
            guard linkType == 256 else { return ll }
            // RF channel 5, signal valid, no CRC checked flag.
            var b: [UInt8] = [5, 0xCE, 0x80, 0x00, 0, 0, 0, 0]
            b.append(le16: 0x0003)
            return b + ll
        }
        func corrupted(_ ll: [UInt8], at i: Int) -> [UInt8] {
            var c = ll
            c[i] ^= 0x06   // a bit error the CRC catches; the bytes still parse
            return c
        }
        var b = B()
        let adv = B.advertising(0x00, B.advA + [0x05, 0x09, 0x4C, 0x6F, 0x63, 0x6B])
        b.add(frame(corrupted(adv, at: 6 + 6 + 1)), linkType: linkType)
        b.add(frame(B.advertising(0x05, txRandom: false, rxRandom: true, B.connectInd())), linkType: linkType)
        let request = B.data(0b10, Self.mtuRequest)
        b.add(frame(request), linkType: linkType, gap: 6_000)
        // The peripheral's response with a bit error: Exchange MTU Response 0x03 reads 0x05.
        let response = B.data(0b10, Self.mtuResponse, nesn: 1)
        b.add(frame(corrupted(response, at: 4 + 2 + 4)), linkType: linkType, gap: 400)
        b.add(frame(B.data(0b01, [], sn: 1, nesn: 0)), linkType: linkType, gap: 29_600)
        b.add(frame(response), linkType: linkType, gap: 400)
        // The central's Empty PDU garbled: its turn still counts, the next PDU is the peripheral's.
        b.add(frame(corrupted(B.data(0b01, [], sn: 0, nesn: 0), at: 4)), linkType: linkType, gap: 29_600)
        b.add(frame(B.data(0b01, [], sn: 0, nesn: 1)), linkType: linkType, gap: 400)
        let p = b.decode()
        #expect(p[0].summary == "ADV_IND (bad CRC)" && p[0].events.isEmpty)
        #expect(p[0].problems.map(\.reason) == ["the CRC does not match the packet's bytes (CRC init 0x555555)"])
        #expect(p[1].problems.isEmpty && p[2].attEvents.count == 1 && p[2].problems.isEmpty)
        #expect(p[3].summary == "Data PDU on access address 0x9A328370 (bad CRC)" && p[3].attEvents.isEmpty)
        #expect(p[3].problems.map(\.reason) == ["the CRC does not match the packet's bytes (CRC init 0x332211)"])
        #expect(p[5].attEvents.count == 1 && p[5].problems.isEmpty)
        #expect(p[3].connection == p[2].connection && p[3].direction == .received)
        #expect(p[6].summary.hasSuffix("(bad CRC)") && p[6].direction == .sent && p[7].direction == .received)
    }

    /// Core v5.4 Vol 6 Part B 2.1.2, 4.4.2.12: periodic advertising uses the access address of its
    /// SyncInfo, not 0x8E89BED6.
    @Test("periodic advertising on its own access address: an advertising PDU when the sniffer says so, no connection")
    func periodicAdvertisingAccessAddress() {
        // AUX_SYNC_IND: Extended Header Length 3, AdvMode 0, flags ADI, ADI 0x1123; 2 bytes of data.
        let sync: [UInt8] = [0x03, 0x08, 0x23, 0x11, 0x01, 0xFF]
        var ll: [UInt8] = []
        ll.append(le32: 0x6A3F_1C52)
        ll += [0x07, UInt8(sync.count)] + sync + [0, 0, 0]
        // nRF Sniffer header version 3, packet id 0x02 (advertising PDU): CRC OK, aux type 2, channel 12.
        var v3: [UInt8] = [0x4B]
        v3.append(le16: UInt16(10 + ll.count))
        v3 += [0x03, 0x00, 0x00, 0x02, 0x0A, 0x01 | 2 << 1, 12, 0x3C, 0x00, 0x00, 0, 0, 0, 0]
        var b = B()
        b.add(v3 + ll)
        // LINKTYPE 256, PDU type 1 (auxiliary advertising), CRC checked and valid; RF channel 14 = index 12.
        var rf: [UInt8] = [14, 0xCE, 0x80, 0x00, 0, 0, 0, 0]
        rf.append(le16: 0x0001 | 0x0002 | 1 << 7 | 0x0400 | 0x0800)
        b.add(rf + ll, linkType: 256)
        for p in b.decode() {
            #expect(p.summary == "AUX_SYNC_IND, SID 1, 2 bytes of data", "\(p.summary)")
            #expect(!p.events.contains { if case .connectionFoundInProgress = $0 { true } else { false } })
            #expect(p.connection == nil)
        }
    }

    @Test("LINKTYPE 251: the LE packet alone, no pseudo-header (no RSSI, no direction)")
    func plainLinkType() {
        var b = B()
        b.add(B.advertising(0x02, B.advA + [0x02, 0x01, 0x06]), linkType: 251)
        let p = b.decode()[0]
        #expect(p.summary == "ADV_NONCONN_IND CA:FE:13:37:00:01 (random)" && p.problems.isEmpty)
        guard case .advertisingReport(let r)? = p.events.first else { Issue.record("no report"); return }
        #expect(r.eventType == 3 && r.rssi == nil)
    }

    @Test("AUX_ADV_IND on a secondary channel is an extended report; AUX_CONNECT_REQ opens a connection")
    func auxiliaryAdvertising() {
        // Extended Header Length 9, AdvMode 1 | flags AdvA, ADI | AdvA | ADI | Flags AD
        let aux = B.advertising(0x07, [0x49, 0x09] + B.advA + [0x23, 0x41, 0x02, 0x01, 0x06])
        var b = B()
        // RF channel 5 = data channel 4; flags: signal valid, PDU type 1 (auxiliary advertising)
        b.add([5, 0xCE, 0x80, 0, 0, 0, 0, 0, 0x82, 0x00] + aux, linkType: 256)
        b.add(B.nordic(B.advertising(0x05, txRandom: false, rxRandom: true, B.connectInd()), channel: 4))
        let p = b.decode()
        #expect(p[0].summary == "AUX_ADV_IND CA:FE:13:37:00:01 (random) rssi -50")
        guard case .advertisingReport(let r)? = p[0].events.first else { Issue.record("no report"); return }
        #expect(r.isExtended && r.eventType == 0x01 && r.data == [0x02, 0x01, 0x06])
        #expect(p[1].summary.hasPrefix("AUX_CONNECT_REQ 5C:F3:70:73:3E:F4 (public) -> CA:FE:13:37:00:01 (random)"))
        #expect(p[1].events.contains { if case .connectionComplete = $0 { true } else { false } })
    }

    @Test("CONNECT_IND opens a connection seen from the central; data on its access address belongs to it")
    func connectAndATT() throws {
        var b = B.connected()
        b.add(B.nordic(B.data(0b10, Self.mtuRequest), sender: .central, channel: 3, eventCounter: 1))
        b.add(B.nordic(B.data(0b10, Self.mtuResponse, sn: 0, nesn: 1), sender: .peripheral, channel: 3, eventCounter: 1))
        b.add(B.nordic(B.data(0b01, []), sender: .central, channel: 9, eventCounter: 2))
        let p = b.decode()
        guard case .connectionComplete(let c)? = p[0].events.first else { Issue.record("no connection"); return }
        #expect(c.connection == ConnectionRef(index: 1, handle: 1) && c.status == .success && c.role == 0)
        #expect(c.peerAddress.description == "CA:FE:13:37:00:01" && c.peerAddressType == .random)
        #expect(c.interval == 24 && c.peripheralLatency == 0 && c.supervisionTimeout == 400 && c.eventName == "CONNECT_IND")
        #expect(p[0].summary == "CONNECT_IND 5C:F3:70:73:3E:F4 (public) -> CA:FE:13:37:00:01 (random), Access Address: 0x9A328370, Interval: 30 ms, Latency: 0, Timeout: 4000 ms, Channels: 37, Hop: 7")
        #expect(p[1].summary == "Sent Exchange MTU Request, Client Rx MTU: 247" && p[1].layer == .att)
        #expect(p[1].attEvents.map(\.direction) == [.sent] && p[1].connection == c.connection)
        #expect(p[2].summary == "Rcvd Exchange MTU Response, Server Rx MTU: 156")
        #expect(p[2].attEvents.map(\.direction) == [.received])
        #expect(p[3].summary == "Sent Empty PDU" && p[3].events.isEmpty && p[3].problems.isEmpty)
    }

    @Test("an L2CAP PDU in three fragments completes on the last")
    func fragments() {
        var b = B.connected()
        // SMP Pairing Public Key: L2CAP length 65, CID 6, code 0x0C, 64 bytes of key
        let pdu: [UInt8] = [0x41, 0x00, 0x06, 0x00, 0x0C] + [UInt8](repeating: 0x5A, count: 64)
        b.add(B.nordic(B.data(0b10, Array(pdu[0..<27])), sender: .peripheral))
        b.add(B.nordic(B.data(0b01, Array(pdu[27..<54]), sn: 1, nesn: 1), sender: .peripheral))
        b.add(B.nordic(B.data(0b01, Array(pdu[54...]), sn: 0), sender: .peripheral))
        let p = b.decode()
        #expect(p[1].summary == "Rcvd L2CAP Fragment Start (27 of 69 bytes)")
        #expect(p[2].summary == "Rcvd L2CAP Fragment (54 of 69 bytes)")
        #expect(p[3].smpEvents.map(\.code) == [.pairingPublicKey] && p[3].problems.isEmpty)
    }

    @Test("a PDU sent again before any acknowledgement counts once; an acknowledged repeat is new")
    func retransmissions() {
        var b = B.connected()
        b.add(B.nordic(B.data(0b10, Self.mtuRequest, sn: 0), sender: .central))
        b.add(B.nordic(B.data(0b01, [], sn: 0, nesn: 0), sender: .peripheral))           // NESN 0: not acknowledged
        b.add(B.nordic(B.data(0b10, Self.mtuRequest, sn: 0), sender: .central))           // the same PDU again
        b.add(B.nordic(B.data(0b01, [], sn: 1, nesn: 1), sender: .peripheral))           // acknowledged now
        b.add(B.nordic(B.data(0b10, Self.mtuRequest, sn: 0), sender: .central))           // a sniffer that logs SN 0 always
        let p = b.decode()
        #expect(p[1].attEvents.count == 1)
        #expect(p[3].attEvents.isEmpty && p[3].summary == "Sent Retransmission of frame 2 (L2CAP start fragment, 7 bytes)")
        #expect(p[5].attEvents.count == 1)
    }

    @Test("LL_TERMINATE_IND ends the connection; packets after it stay on it")
    func terminate() {
        var b = B.connected()
        b.add(B.nordic(B.data(0b11, [0x02, 0x13]), sender: .central))
        b.add(B.nordic(B.data(0b01, [], nesn: 1), sender: .peripheral))
        b.add(B.nordic(B.data(0b11, [0x02, 0x16], sn: 1), sender: .peripheral))
        var decoder = PacketDecoder(options: DecoderOptions(payloadOffsetInRecord: 16))
        let p = b.records.map { decoder.decode($0) }
        // Sent by the central with a host's reason: the central's host asked for it.
        guard case .command(let c)? = p[1].events.first, case .disconnectionComplete(let d)? = p[1].events.dropFirst().first else {
            Issue.record("no command and disconnection"); return
        }
        #expect(c.opcode == 0x0406 && c.reason == .remoteUserTerminatedConnection && c.connection?.index == 1)
        #expect(d.reason == .remoteUserTerminatedConnection && d.status == .success && d.handle == 1)
        #expect(p[1].summary == "Sent LL_TERMINATE_IND, Error Code: Remote User Terminated Connection (0x13)")
        #expect(p[2].connection?.index == 1 && p[2].events.isEmpty)
        // A second LL_TERMINATE_IND on the closed connection is a link event only.
        #expect(p[3].events.allSatisfy { if case .linkEvent = $0 { true } else { false } })
        #expect(decoder.finish().isEmpty)
        #expect(decoder.connectionsSeen == 1)

        // Sent by the peripheral: the peer ended it, no local command.
        var peer = B.connected()
        peer.add(B.nordic(B.data(0b11, [0x02, 0x13]), sender: .peripheral))
        let q = peer.decode()
        #expect(q[1].events.count == 2)
        #expect(!q[1].events.contains { if case .command = $0 { true } else { false } })
    }

    @Test("encryption: Encryption Change at LL_START_ENC_REQ, then ciphertext is not decoded")
    func encryption() {
        var b = B.connected()
        b.add(B.nordic(B.data(0b11, [0x03] + [UInt8](repeating: 0, count: 22)), sender: .central))
        b.add(B.nordic(B.data(0b11, [0x04] + [UInt8](repeating: 1, count: 12), nesn: 1), sender: .peripheral))
        b.add(B.nordic(B.data(0b11, [0x05], sn: 1, nesn: 1), sender: .peripheral))
        // Ciphertext: an "L2CAP header" that matches nothing, and 4 MIC bytes.
        b.add(B.nordic(B.data(0b10, [0x91, 0xE2, 0x3A, 0x7C, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77], sn: 1, nesn: 0),
                       sender: .central))
        // Plaintext after encryption (a sniffer that logs what it decrypted, or its own transmissions).
        b.add(B.nordic(B.data(0b10, Self.mtuResponse, sn: 0, nesn: 0), sender: .peripheral))
        // The nRF Sniffer says encrypted, MIC not checked OK: ciphertext even when it looks like ATT.
        b.add(B.nordic(B.data(0b10, Self.mtuRequest, sn: 0, nesn: 1), sender: .central, flags: 0x05))
        let p = b.decode()
        guard case .encryptionChange(let e)? = p[3].events.first else { Issue.record("no encryption change"); return }
        #expect(e.status == .success && e.enabled == true && !e.isKeyRefresh)
        #expect(p[4].summary == "Sent Encrypted L2CAP start fragment, 11 bytes (ciphertext)" && p[4].attEvents.isEmpty)
        #expect(p[5].attEvents.count == 1)
        #expect(p[6].attEvents.isEmpty)
        // The first ciphertext is named once per connection: what the link carries from there is unknown.
        let named = p.indices.filter { p[$0].linkEvents.contains { $0.name == LinkLayerDecoder.ciphertextEventName } }
        #expect(named == [4])
    }

    @Test("LL_REJECT_EXT_IND to LL_ENC_REQ: Encryption Change with the error code")
    func encryptionRejected() {
        var b = B.connected()
        b.add(B.nordic(B.data(0b11, [0x03] + [UInt8](repeating: 0, count: 22)), sender: .central))
        b.add(B.nordic(B.data(0b11, [0x11, 0x03, 0x06], nesn: 1), sender: .peripheral))
        b.add(B.nordic(B.data(0b11, [0x11, 0x16, 0x0C], sn: 1, nesn: 1), sender: .peripheral))
        let p = b.decode()
        guard case .encryptionChange(let e)? = p[2].events.first else { Issue.record("no encryption change"); return }
        #expect(e.status == .pINOrKeyMissing && e.enabled == false)
        #expect(p[2].linkEvents.map(\.status) == [nil])
        // Any other rejection carries its code as the link event's status.
        #expect(p[3].linkEvents.map(\.status) == [.commandDisallowed])
    }

    @Test("LL_CONNECTION_UPDATE_IND applies at its instant: the sniffer's event counter, else when seen in progress")
    func connectionUpdate() {
        // WinSize 1, WinOffset 0, Interval 36, Latency 2, Timeout 300, Instant 10
        let update: [UInt8] = [0x00, 0x01, 0x00, 0x00, 0x24, 0x00, 0x02, 0x00, 0x2C, 0x01, 0x0A, 0x00]
        var b = B.connected()
        b.add(B.nordic(B.data(0b11, update), sender: .central, eventCounter: 4))
        b.add(B.nordic(B.data(0b01, []), sender: .central, eventCounter: 9))
        b.add(B.nordic(B.data(0b01, []), sender: .central, eventCounter: 10))
        let p = b.decode()
        let updates = p.map { $0.events.compactMap { if case .connectionUpdate(let u) = $0 { u } else { nil } } }
        #expect(updates[1].isEmpty && updates[2].isEmpty)
        #expect(updates[3].map(\.interval) == [36] && updates[3].first?.peripheralLatency == 2
                && updates[3].first?.supervisionTimeout == 300)

        // A connection found in progress: where its event counter started is not known.
        var rf = B()
        rf.add(B.rf(B.data(0b11, update), sender: .central), linkType: 256)
        #expect(rf.decode()[0].events.contains { if case .connectionUpdate = $0 { true } else { false } })
    }

    /// Core v5.4 Vol 6 Part B 4.5.1 (the event counter grows by one each connection event),
    /// 4.5.3 (the first event 1.25 ms + transmitWindowOffset after the CONNECT_IND), 5.1.1.
    @Test("LINKTYPE 256 records no event counter: it is counted from the times, missed events included, so an update applies at its instant",
          arguments: [LinkLayerRole.central, nil])
    func connectionUpdateCountedEvents(sender: LinkLayerRole?) {
        // WinSize 1, WinOffset 0, Interval 40 (50 ms), Latency 0, Timeout 500, Instant 10
        let update: [UInt8] = [0x00, 0x01, 0x00, 0x00, 0x28, 0x00, 0x00, 0x00, 0xF4, 0x01, 0x0A, 0x00]
        let interval: Int64 = 30_000   // B.connectInd(): 30 ms, WinOffset 3 (3.75 ms)
        var b = B()
        b.add(B.rf(B.advertising(0x05, txRandom: false, rxRandom: true, B.connectInd()), rfChannel: 0), linkType: 256)
        b.add(B.rf(B.data(0b01, []), sender: sender), linkType: 256, gap: 5_500)                 // event 0
        b.add(B.rf(B.data(0b01, [], nesn: 1), sender: sender?.peer), linkType: 256, gap: 400)
        b.add(B.rf(B.data(0b11, update, sn: 1, nesn: 1), sender: sender), linkType: 256, gap: 4 * interval - 400)  // 4
        b.add(B.rf(B.data(0b01, [], sn: 1, nesn: 0), sender: sender?.peer), linkType: 256, gap: 400)
        // Events 5-8 missed by the sniffer; event 9, then 10 (the instant) 30 ms later.
        b.add(B.rf(B.data(0b01, [], nesn: 0), sender: sender), linkType: 256, gap: 5 * interval - 400 + 20)  // 9
        b.add(B.rf(B.data(0b01, [], sn: 1, nesn: 1), sender: sender), linkType: 256, gap: interval - 20)       // 10
        let p = b.decode()
        let updated = p.indices.filter { i in p[i].events.contains { if case .connectionUpdate = $0 { true } else { false } } }
        #expect(updated == [6])
    }

    /// Core v5.4 Vol 6 Part B 4.5.3: transmitWindowDelay is 1.25 ms after a CONNECT_IND, 2.5 ms
    /// after an AUX_CONNECT_REQ (LE 1M or 2M), so the same gap is event 1 after the one and event 0
    /// after the other.
    @Test("the first connection event after an AUX_CONNECT_REQ starts 2.5 ms after it, not 1.25 ms",
          arguments: [true, false])
    func auxConnectRequestWindowDelay(aux: Bool) {
        // InitA, AdvA, AA, CRCInit, WinSize 5 (6.25 ms), WinOffset 0, Interval 6 (7.5 ms), Latency 0,
        // Timeout 100, all channels, Hop 7.
        var connect = B.initA + B.advA
        connect.append(le32: B.accessAddress)
        connect += [0x11, 0x22, 0x33, 0x05, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x64, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 0x07]
        // WinSize 1, WinOffset 0, Interval 12, Latency 0, Timeout 100, Instant 1
        let update: [UInt8] = [0x00, 0x01, 0x00, 0x00, 0x0C, 0x00, 0x00, 0x00, 0x64, 0x00, 0x01, 0x00]
        var b = B()
        // RF channel 5 is data channel index 4: a secondary advertising channel, so type 0b0101 is AUX_CONNECT_REQ.
        b.add(B.rf(B.advertising(0x05, txRandom: false, rxRandom: true, connect), rfChannel: aux ? 5 : 0), linkType: 256)
        // Late in the transmit window of event 0: 0.352 ms (the PDU) + 2.5 ms + 6.4 ms after it.
        b.add(B.rf(B.data(0b11, update), sender: .central), linkType: 256, gap: 352 + 2_500 + 6_400)
        b.add(B.rf(B.data(0b01, [], sn: 1, nesn: 1), sender: .central), linkType: 256, gap: 7_500)
        let p = b.decode()
        #expect(p[0].summary.hasPrefix(aux ? "AUX_CONNECT_REQ" : "CONNECT_IND"))
        let updated = p.indices.filter { i in p[i].events.contains { if case .connectionUpdate = $0 { true } else { false } } }
        // After a CONNECT_IND the same packet is 9.25 ms after the earliest start of event 0: event 1, the instant.
        #expect(updated == (aux ? [2] : [1]))
    }

    @Test("LL_PHY_UPDATE_IND: an LE PHY Update Complete link event at its instant, an unchanged side kept")
    func phyUpdate() {
        var b = B.connected()
        // PHY_C_TO_P 2M, PHY_P_TO_C unchanged, Instant 8
        b.add(B.nordic(B.data(0b11, [0x18, 0x02, 0x00, 0x08, 0x00]), sender: .central, eventCounter: 5))
        b.add(B.nordic(B.data(0b01, []), sender: .central, eventCounter: 8))
        let p = b.decode()
        #expect(p[1].linkEvents.map(\.name) == ["LL_PHY_UPDATE_IND"])
        #expect(p[2].linkEvents.map(\.name) == ["LE PHY Update Complete"])
        #expect(p[2].linkEvents.first.map { $0.fields.map { "\($0.0)=\($0.1)" } } == ["tx_phy=2M", "rx_phy=1M"])
    }

    @Test("data on an unknown access address: a connection found in progress, encryption unknown")
    func foundInProgress() {
        var b = B()
        b.add(B.nordic(B.data(0b10, Self.mtuRequest, aa: 0x1234_5678), sender: .central))
        b.add(B.nordic(B.data(0b10, [0x91, 0xE2, 0x3A, 0x7C, 0x11], sn: 1, aa: 0x1234_5678), sender: .central))
        let p = b.decode()
        guard case .connectionFoundInProgress(let ref, let transport)? = p[0].events.first else {
            Issue.record("not found in progress"); return
        }
        #expect(ref.index == 1 && transport == .le && p[0].attEvents.count == 1)
        #expect(p[1].summary == "Sent Encrypted L2CAP start fragment, 5 bytes (ciphertext), or not a valid PDU")
        // Not named as the link turning unreadable: it may be noise on a stray access address.
        #expect(p[1].linkEvents.isEmpty)
    }

    @Test("without a direction from the sniffer: central first in each event, then alternating, said once")
    func inferredDirection() {
        var b = B()
        b.add(B.rf(B.advertising(0x05, txRandom: false, rxRandom: true, B.connectInd()), rfChannel: 0), linkType: 256)
        b.add(B.rf(B.data(0b10, Self.mtuRequest)), linkType: 256, gap: 30_000)
        b.add(B.rf(B.data(0b10, Self.mtuResponse, nesn: 1)), linkType: 256, gap: 300)
        b.add(B.rf(B.data(0b01, [], sn: 1, nesn: 1)), linkType: 256, gap: 30_000)
        let p = b.decode()
        #expect(p[1].attEvents.map(\.direction) == [.sent] && p[2].attEvents.map(\.direction) == [.received])
        #expect(p[3].summary == "Sent Empty PDU")
        #expect(p[1].linkEvents.map(\.name) == ["LL direction inferred"] && p[2].linkEvents.isEmpty)
    }

    @Test("a CONNECT_IND reusing an open access address ends the old connection, unseen")
    func reusedAccessAddress() {
        var b = B.connected()
        b.add(B.nordic(B.data(0b10, Array(Self.mtuRequest[0..<5])), sender: .central))
        b.add(B.nordic(B.advertising(0x05, txRandom: false, rxRandom: true, B.connectInd())))
        let p = b.decode()
        #expect(p[2].linkEvents.map(\.name) == ["LL connection ended unseen", "Connection PHY"])
        #expect(p[2].linkEvents.first?.connection?.index == 1 && p[2].connection?.index == 2)
    }

    @Test("isochronous PDUs (LINKTYPE 256 PDU types 4-6) are named, not taken for a connection")
    func isochronous() {
        var b = B()
        // flags: signal valid, PDU type 4 (connected isochronous, central to peripheral), CRC checked and valid
        b.add([5, 0xCE, 0x80, 0, 0, 0, 0, 0, 0x02, 0x0E] + B.data(0b00, [0x01, 0x02], aa: 0x1234_5678), linkType: 256)
        let p = b.decode()[0]
        #expect(p.summary == "Isochronous PDU on access address 0x12345678, 2 bytes (not decoded)")
        #expect(p.events.isEmpty && p.connection == nil)
    }

    @Test("a CRC error from the sniffer: named, not interpreted")
    func badCRC() {
        var b = B()
        b.add(B.rf(B.advertising(0x05, B.connectInd()), rfChannel: 0, crcValid: false), linkType: 256)
        let p = b.decode()[0]
        #expect(p.summary == "CONNECT_IND (bad CRC)" && p.events.isEmpty)
        #expect(p.problems.map(\.reason) == ["the sniffer reports a CRC error"])
    }

    @Test("problem offsets point into the file")
    func offsets() {
        var b = B.connected()
        b.add(B.nordic(B.data(0b00, [0x01]), sender: .central))
        let p = b.decode()
        let second = b.records[1]
        // file offset + 16 (pcap record header) + 17 (nRF header) + 4 (access address) = PDU header
        #expect(p[1].problems.map(\.offset) == [second.fileOffset + 16 + 17 + 4])
        #expect(p[1].summary == "Sent Data PDU with reserved LLID 0b00, 1 bytes")
    }

    @Test("every prefix of every frame decodes without trapping")
    func prefixes() {
        var b = B.connected()
        b.add(B.nordic(B.data(0b10, Self.mtuRequest), sender: .central))
        b.add(B.nordic(B.data(0b11, [0x0C, 0x09, 0x59, 0x00, 0x34, 0x12]), sender: .peripheral))
        b.add(B.rf(B.data(0b11, [0x02, 0x13]), sender: .central), linkType: 256)
        for record in b.records {
            for n in 0..<record.payload.count {
                var decoder = PacketDecoder()
                var cut = record
                cut.payload = Array(record.payload[0..<n])
                let p = decoder.decode(cut)
                #expect(!p.problems.isEmpty || !p.summary.isEmpty, "prefix \(n)")
            }
        }
    }
}
