import BLECore

/// LL Control PDUs of an air capture (Core v5.4 Vol 6 Part B 2.4.2, procedures in 5.1).
///
/// Every LL Control PDU is a link event named by its opcode, with its fields. On top:
/// LL_TERMINATE_IND ends the connection (a Disconnection Complete with its error code);
/// LL_CONNECTION_UPDATE_IND is a connection update, and LL_PHY_UPDATE_IND an "LE PHY Update
/// Complete" link event as the central's HCI would report it, at the instant (the sniffer's event
/// counter, or one counted from the packets' times, `LinkLayerConnection.countEvent`; when seen
/// on a connection found in progress); the encryption start procedure (LL_ENC_REQ …
/// LL_START_ENC_REQ, 5.1.3.1) gives an Encryption Change when encryption starts, or with the
/// error code when the peripheral rejects LL_ENC_REQ (LL_REJECT_IND, LL_REJECT_EXT_IND, or
/// LL_UNKNOWN_RSP as 0x1A Unsupported Remote Feature). Other rejections carry their error code
/// as the link event's status.
extension PacketDecoder {
    mutating func decodeLLControl(_ payload: ArraySlice<UInt8>, offset: Int, eventCounter: UInt16?,
                                  _ conn: inout LinkLayerConnection, into d: inout PacketDraft) {
        let (decoded, problem) = LLControlPDU.decode(payload, baseOffset: offset)
        if let problem { d.problems.append(problem) }
        guard let pdu = decoded else {
            let name = payload.first.map { LLControlOpcode($0).name } ?? "LL Control PDU"
            d.summary.set(d.prefix + name + " (malformed: " + (problem?.reason ?? "no opcode") + ")")
            return
        }
        d.summary.set(d.prefix + pdu.summary)
        if let problem { d.summary += " (malformed: " + problem.reason + ")" }
        var status: HCIStatusCode?
        switch pdu {
        case .terminateInd(let code):
            terminate(&conn, reason: code, into: &d)
        case .connectionUpdateInd(let p):
            let update = LinkLayerConnection.PendingUpdate(instant: p.instant, interval: p.interval, latency: p.latency,
                                                           timeout: p.timeout)
            if let counter = eventCounter, Int16(bitPattern: counter &- p.instant) < 0, conn.isOpen {
                conn.pendingUpdate = update
            } else {
                conn.interval = p.interval
                d.events.append(.connectionUpdate(ConnectionUpdate(
                    connection: conn.ref, status: .success, interval: p.interval, peripheralLatency: p.latency,
                    supervisionTimeout: p.timeout)))
            }
        case .phyUpdateInd(let p):
            // A PHY field is a bit (0x01 LE 1M, 0x02 LE 2M, 0x04 LE Coded); 0 leaves it unchanged.
            let tx = Self.hciPHY(p.centralToPeripheral) ?? conn.txPHY
            let rx = Self.hciPHY(p.peripheralToCentral) ?? conn.rxPHY
            if p.centralToPeripheral == 0 && p.peripheralToCentral == 0 {
                break
            } else if let counter = eventCounter, Int16(bitPattern: counter &- p.instant) < 0, conn.isOpen {
                conn.pendingPHY = LinkLayerConnection.PendingPHY(instant: p.instant, tx: tx, rx: rx)
            } else {
                Self.phyUpdated(&conn, tx: tx, rx: rx, into: &d)
            }
        case .encReq:
            let refresh = conn.wasEncrypted || conn.encryption == .on
            conn.encryption = .requested(isRefresh: refresh)
            conn.encryptionReported = false
        case .startEncReq, .startEncRsp:
            startEncryption(&conn, into: &d)
        case .pauseEncRsp:
            if d.direction == .sent { conn.encryption = .off }
        case .rejectInd(let code):
            if case .requested = conn.encryption {
                encryptionFailed(&conn, code, into: &d)
            } else {
                status = code
            }
        case .rejectExtInd(let op, let code):
            if op == .encReq || conn.isEncryptionRequested {
                encryptionFailed(&conn, code, into: &d)
            } else {
                status = code
            }
        case .unknownRsp(let type):
            if type == .encReq, conn.isEncryptionRequested {
                encryptionFailed(&conn, .unsupportedRemoteFeature, into: &d)
            }
        default:
            break
        }
        d.events.append(.linkEvent(LinkEvent(name: pdu.opcode.name, connection: conn.ref, status: status,
                                             fields: pdu.fields)))
    }

    /// LL_TERMINATE_IND: the connection ends with `reason` (a repeat on a closed connection is
    /// only a link event). Seen from the central, an LL_TERMINATE_IND the central sends with a
    /// reason a host gives (HCI Disconnect, Core v5.4 Vol 4 Part E 7.1.6: 0x05, 0x13-0x15, 0x1A,
    /// 0x29, 0x3B) is its host's Disconnect: it is recorded as that command, so the connection
    /// counts as closed locally, as in an HCI capture of the central.
    private mutating func terminate(_ conn: inout LinkLayerConnection, reason: HCIStatusCode, into d: inout PacketDraft) {
        guard conn.isOpen else { return }
        conn.isOpen = false
        conn.pendingUpdate = nil
        conn.pendingPHY = nil
        if d.direction == .sent, [0x05, 0x13, 0x14, 0x15, 0x1A, 0x29, 0x3B].contains(reason.rawValue) {
            d.events.append(.command(HCICommandInfo(opcode: 0x0406, name: "Disconnect (LL_TERMINATE_IND from the central)",
                                                    connection: conn.ref, reason: reason)))
        }
        d.events.append(.disconnectionComplete(DisconnectionComplete(
            connection: conn.ref, handle: conn.handle, status: .success, reason: reason)))
        _ = tracker.disconnectionComplete(handle: conn.handle, status: .success)
        d.problems += reassembler.discard(handle: conn.handle, why: "LL_TERMINATE_IND")
    }

    /// LL_START_ENC_REQ or LL_START_ENC_RSP: from here on non-empty PDUs are encrypted.
    private func startEncryption(_ conn: inout LinkLayerConnection, into d: inout PacketDraft) {
        let refresh: Bool
        if case .requested(let r) = conn.encryption { refresh = r } else { refresh = conn.wasEncrypted }
        conn.encryption = .on
        conn.wasEncrypted = true
        guard !conn.encryptionReported else { return }
        conn.encryptionReported = true
        d.events.append(.encryptionChange(EncryptionChange(connection: conn.ref, status: .success,
                                                           enabled: refresh ? nil : true, isKeyRefresh: refresh)))
    }

    /// The peripheral refused to start encryption.
    private func encryptionFailed(_ conn: inout LinkLayerConnection, _ code: HCIStatusCode, into d: inout PacketDraft) {
        conn.encryption = .off
        conn.encryptionReported = true
        d.events.append(.encryptionChange(EncryptionChange(connection: conn.ref, status: code, enabled: false,
                                                           isKeyRefresh: false)))
    }
}

extension PacketDecoder {
    /// The HCI PHY value (1, 2, 3) of a one-bit LL PHY field; nil for 0 (unchanged) or several bits.
    static func hciPHY(_ bits: UInt8) -> UInt8? {
        switch bits {
        case 0x01: 1
        case 0x02: 2
        case 0x04: 3
        default: nil
        }
    }
}

extension LinkLayerConnection {
    var isEncryptionRequested: Bool {
        if case .requested = encryption { return true }
        return false
    }
}
