import BLECore

/// HCI event packets (Core v5.4 Vol 4 Part E 5.4.4, 7.7).
///
/// Wire layout: event code u8, parameter total length u8, parameters. A disagreement between
/// the length field and the bytes present is a problem; the bytes that are there are still
/// decoded. LE Meta (0x3E) sub-events are in `LEMetaEventDecoder.swift`.
extension PacketDecoder {
    mutating func decodeEvent(_ payload: [UInt8], into d: inout PacketDraft) {
        d.layer = .hci
        guard payload.count >= 2 else {
            if d.cutNote != nil { return d.summary.set("Rcvd HCI event") }
            d.fail(layer: .hci, at: payload.count, kind: .truncated,
                   "HCI event header: need 2 bytes, have \(payload.count)")
            d.summary.set("Rcvd HCI event (malformed: header cut short)")
            return
        }
        let code = payload[0]
        let used = d.checkDataLength(declared: Int(payload[1]), available: payload.count - 2, dataStart: 2,
                                     what: "event parameters")
        var r = ByteReader(payload[2..<(2 + used)], baseOffset: d.base &+ 2, layer: .hci)
        let name = HCINames.event(code)
        // One buffer for the whole summary: parameters append to it in place.
        d.summary.reserveCapacity(72)
        d.summary += "Rcvd "
        d.summary += code == 0xFF ? "Vendor event" : name
        do {
            try eventParameters(code, name, &r, &d)
        } catch {
            let detail = d.failure(error)
            d.summary += detail
        }
        if let c = d.connection {
            if TransportClues.bredrOnlyEvents.contains(code) {
                learnTransport(.bredr, handle: c.handle, clue: name, into: &d)
            } else if code == 0x3E {
                learnTransport(.le, handle: c.handle, clue: "LE Meta event", into: &d)
            }
        }
    }

    /// Decodes the parameters of one event; appends detail to `d.summary`.
    private mutating func eventParameters(_ code: UInt8, _ name: String, _ r: inout ByteReader,
                                          _ d: inout PacketDraft) throws(DecodeError) {
        switch code {
        case 0x3E:
            try decodeLEMeta(&r, &d)

        case 0x0E:
            // Num_HCI_Command_Packets u8, Command_Opcode u16, Return_Parameters (7.7.14).
            // Nearly every command's return parameters start with Status; NOP (0x0000) has none.
            // A vendor command's (OGF 0x3F, 5.4.1) are the vendor's: its first byte is no HCI status.
            try r.skip(1, "Num_HCI_Command_Packets")
            let opcode = HCIOpcode(try r.readUInt16(.little, "Command_Opcode"))
            let c = pendingCommands.removeValue(forKey: commandKey(opcode.rawValue))
            d.connection = c
            if opcode.isVendorSpecific { return vendorCommandComplete(opcode, r, c, &d) }
            let status: HCIStatusCode? = opcode == .noOperation ? nil : r.peekUInt8().map { HCIStatusCode($0) }
            let opName = opcode.name
            d.summary += " (" + opName + ")"
            if let status, status != .success { d.summary += " status " + Fmt.status(status) }
            d.events.append(.commandResult(HCICommandResult(opcode: opcode.rawValue, name: opName, status: status,
                                                            isCommandStatus: false, connection: c)))
            // HCI_Reset resets the Link Manager and Link Layer (Core v5.4 Vol 4 Part E 7.3.2): the
            // controller keeps no link, and no Disconnection Complete reports them.
            if opcode.rawValue == 0x0C03, status == .success { closeControllerLinks(ControllerCloser.hciReset.rawValue, into: &d) }
            if let fields = HCIParameterFields.returnParameters(opcode.rawValue, r) {
                // The return parameters for `timeline -v`; a failure is already an error row.
                d.events.append(.linkEvent(LinkEvent(name: "Command Complete (" + opName + ")", connection: c,
                                                     status: status, fields: fields, recordsError: false)))
            }

        case 0x0F:
            // Status u8, Num_HCI_Command_Packets u8, Command_Opcode u16 (7.7.15)
            let status = HCIStatusCode(try r.readUInt8("Status"))
            try r.skip(1, "Num_HCI_Command_Packets")
            let opcode = HCIOpcode(try r.readUInt16(.little, "Command_Opcode"))
            let c = pendingCommands.removeValue(forKey: commandKey(opcode.rawValue))
            d.connection = c
            if opcode == .disconnect, status != .success, let c { tracker.disconnectRefused(handle: c.handle) }
            let opName = opcode.name
            d.summary += " (" + opName + ")"
            if status != .success { d.summary += " status " + Fmt.status(status) }
            d.events.append(.commandResult(HCICommandResult(opcode: opcode.rawValue, name: opName, status: status,
                                                            isCommandStatus: true, connection: c)))

        case 0x05:
            // Status u8, Connection_Handle u16, Reason u8 (7.7.5)
            let status = HCIStatusCode(try r.readUInt8("Status"))
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            let reason = HCIStatusCode(try r.readUInt8("Reason"))
            if tracker.connection(handle) == nil, status == .success,
               let cis = isochronous.disconnected(controller: controller, handle: handle) {
                // A CIS ended (Vol 4 Part E 7.7.5 applies to CIS handles too): not an LE
                // connection's end, so no disconnection event.
                d.connection = cis.acl
                d.summary += " CIS handle " + Fmt.h4(handle) + " reason " + Fmt.status(reason)
                // Its reason is an error of the ACL unless a host ended it (0x13, 0x16): a CIS
                // lost (0x08) or refused is named and counted.
                d.events.append(.linkEvent(LinkEvent(name: "CIS Disconnection Complete", connection: cis.acl,
                                                     status: reason, fields: [("CIS handle", Fmt.h4(handle))],
                                                     recordsError: !HCINames.hostEndings.contains(reason))))
                return
            }
            // A link begun before the capture that ends with no ACL seen still gets its row.
            if status == .success { _ = eventConnection(handle, into: &d) }
            let closed = tracker.disconnectionComplete(handle: handle, status: status)
            if let closed, status == .success {
                d.problems += reassembler.discard(handle: handle, controller: controller, why: "disconnection")
                if closed.transport == .bredr { channels.remove(connection: closed.ref.index) }
                leChannels.remove(connection: closed.ref.index)
            }
            d.connection = closed?.ref
            if status != .success { d.summary += " status " + Fmt.status(status) }
            if closed == nil { d.summary += " handle " + Fmt.h4(handle) + " (unknown)" }
            d.summary += " reason " + Fmt.status(reason)
            d.events.append(.disconnectionComplete(DisconnectionComplete(connection: closed?.ref, handle: handle,
                                                                         status: status, reason: reason)))
            // The fields for `timeline -v`; the reason or failure is already an error row.
            d.events.append(.linkEvent(LinkEvent(name: name, connection: closed?.ref, status: status,
                                                 fields: [("handle", Fmt.h4(handle)), ("reason", Fmt.status(reason))],
                                                 recordsError: false)))

        case 0x04:
            // Connection Request: BD_ADDR, Class_Of_Device u24, Link_Type u8 (7.7.4): the peer
            // pages; the local device starts as the peripheral of the ACL it accepts.
            let peer = try r.readAddress("BD_ADDR")
            try r.skip(3, "Class_Of_Device")
            let linkType = try r.readUInt8("Link_Type")
            d.summary += " peer " + Fmt.address(peer)
            if linkType == 0x01 { noteBREDRRole(peer, 1) }

        case 0x12:
            // Role Change: Status u8, BD_ADDR, New_Role u8 (7.7.18; 0x00 central, 0x01 peripheral).
            // Before Connection Complete it is the role the link starts with.
            let status = HCIStatusCode(try r.readUInt8("Status"))
            let peer = try r.readAddress("BD_ADDR")
            let role = try r.readUInt8("New_Role")
            d.summary += (status == .success ? "" : " status " + Fmt.status(status)) + " peer " + Fmt.address(peer) +
                (role == 0 ? " central" : role == 1 ? " peripheral" : " role " + Fmt.h2(role))
            // A link already up (a later switch) is not tracked by address: left as it began.
            if status == .success, role <= 1, pendingBREDRCreates.contains(peer) || bredrRoles[peer] != nil {
                noteBREDRRole(peer, role)
            }

        case 0x03:
            // Status u8, Connection_Handle u16, BD_ADDR, Link_Type u8, Encryption_Enabled u8 (7.7.3)
            let status = HCIStatusCode(try r.readUInt8("Status"))
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            let peer = try r.readAddress("BD_ADDR")
            let linkType = try r.readUInt8("Link_Type")
            d.summary += status == .success ? "" : " status " + Fmt.status(status)
            d.summary += " handle " + Fmt.h4(handle) + " peer " + Fmt.address(peer)
            // Fields for `timeline -v`; Encryption_Enabled read leniently (the summary never needed it).
            var fields: [(String, String)] = [
                ("handle", Fmt.h4(handle)), ("bd_addr", Fmt.address(peer)),
                ("link_type", Fmt.h2(linkType) + (linkType == 0 ? " SCO" : linkType == 1 ? " ACL" : linkType == 2 ? " eSCO" : "")),
            ]
            if let enc = r.peekUInt8() { fields.append(("encryption_enabled", Fmt.h2(enc) + (enc == 0 ? " off" : " on"))) }
            guard linkType == 0x01 else {
                d.summary += linkType == 0 ? " (SCO)" : " (link type " + Fmt.h2(linkType) + ")"
                d.events.append(.linkEvent(LinkEvent(name: name, connection: nil, status: status, fields: fields,
                                                     recordsError: false)))
                return
            }
            // The local role (7.7.3 does not say it): a Role Change before completion, else
            // central when the host paged (Create Connection), peripheral when the peer did
            // (Connection Request), else unknown.
            let created = pendingBREDRCreates.remove(peer) != nil
            let role: UInt8? = bredrRoles.removeValue(forKey: peer) ?? (created ? 0 : nil)
            let (ref, replaced) = tracker.connectionComplete(handle: handle, status: status, transport: .bredr,
                                                             at: d.base)
            noteReplaced(replaced, by: ref, handle: handle, &d)
            d.connection = ref
            d.events.append(.connectionComplete(ConnectionComplete(
                connection: ref, transport: .bredr, status: status, role: role, peerAddress: peer,
                peerAddressType: .public, interval: 0, peripheralLatency: 0, supervisionTimeout: 0,
                eventName: name)))
            // A failure is already an error row through the connection.
            d.events.append(.linkEvent(LinkEvent(name: name, connection: ref, status: status, fields: fields,
                                                 recordsError: false)))

        case 0x08, 0x59:
            // Status u8, Connection_Handle u16, Encryption_Enabled u8 [v2: Encryption_Key_Size u8]
            // (7.7.8, 7.7.8.a)
            let status = HCIStatusCode(try r.readUInt8("Status"))
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            let enabled = try r.readUInt8("Encryption_Enabled")
            d.connection = eventConnection(handle, status: status, into: &d)
            if status != .success { d.summary += " status " + Fmt.status(status) }
            d.summary += " handle " + Fmt.h4(handle) + (enabled != 0 ? " on" : " off")
            if code == 0x59, let size = r.peekUInt8() { d.summary += " key size \(size)" }
            d.events.append(.encryptionChange(EncryptionChange(connection: d.connection, status: status,
                                                               enabled: enabled != 0, isKeyRefresh: false)))

        case 0x30:
            // Status u8, Connection_Handle u16 (7.7.39)
            let status = HCIStatusCode(try r.readUInt8("Status"))
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            d.connection = eventConnection(handle, status: status, into: &d)
            if status != .success { d.summary += " status " + Fmt.status(status) }
            d.summary += " handle " + Fmt.h4(handle)
            d.events.append(.encryptionChange(EncryptionChange(connection: d.connection, status: status,
                                                               enabled: nil, isKeyRefresh: true)))

        case 0x10:
            // Hardware_Code u8 (7.7.16)
            let hw = try r.readUInt8("Hardware_Code")
            d.summary += " code " + Fmt.h2(hw)
            d.events.append(.hardwareError(code: hw))

        case 0x13:
            // Num_Handles u8, then per handle: Connection_Handle u16, Num_Completed_Packets u16
            // (7.7.19)
            let n = Int(try r.readUInt8("Num_Handles"))
            if r.remaining != n * 4 {
                d.problems.append(r.error("Num_Handles \(n) needs \(n * 4) bytes, event has \(r.remaining)"))
            }
            // No link event: one comes every few ACL packets, and a row each would cost the import
            // (issue 12) what the summary already says (the handles and counts, first four).
            var single: ConnectionRef?
            for i in 0..<n {
                let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
                let count = try r.readUInt16(.little, "Num_Completed_Packets")
                let ref = eventConnection(handle, into: &d)
                if i == 0 { single = ref }
                if i < 4 { d.summary += (i == 0 ? " " : ", ") + Fmt.h4(handle) + ": \(count)" }
            }
            if n > 4 { d.summary += ", …" }
            if n == 1 { d.connection = single }

        case 0x1A:
            // Link_Type u8 (7.7.26)
            let link = try r.readUInt8("Link_Type")
            d.summary += link == 1 ? " (ACL)" : link == 0 ? " (SCO)" : " (link type " + Fmt.h2(link) + ")"

        case 0x0C:
            // Status u8, Connection_Handle u16, Version u8, Company_Identifier u16,
            // Subversion u16 (7.7.12)
            let status = HCIStatusCode(try r.readUInt8("Status"))
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            d.connection = eventConnection(handle, status: status, into: &d)
            if status != .success { d.summary += " status " + Fmt.status(status) }
            d.summary += " handle " + Fmt.h4(handle)
            var fields: [(String, String)] = []
            if status == .success {
                let version = try r.readUInt8("Version")
                let company = try r.readUInt16(.little, "Company_Identifier")
                let sub = try r.readUInt16(.little, "Subversion")
                fields = [("version", Fmt.h2(version)), ("company", Fmt.h4(company)), ("subversion", Fmt.h4(sub))]
            }
            d.events.append(.linkEvent(LinkEvent(name: name, connection: d.connection, status: status, fields: fields)))

        case 0x38:
            // Connection_Handle u16, Link_Supervision_Timeout u16 in baseband slots of 0.625 ms
            // (7.7.46): a BR/EDR link's timeout, changed by the central's Write Link Supervision
            // Timeout (7.3.42). The link-loss diagnosis reads it from the link event.
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            d.connection = eventConnection(handle, into: &d)
            d.summary += " handle " + Fmt.h4(handle)
            let slots = try r.readUInt16(.little, "Link_Supervision_Timeout")
            let ms = LinkSupervisionTimeout.milliseconds(slots: slots)
            d.summary += ", timeout \(slots) slots (\(ms) ms)"
            d.events.append(.linkEvent(LinkEvent(name: name, connection: d.connection, status: nil,
                                                 fields: [("timeout_slots", "\(slots)"), ("timeout_ms", ms)])))

        case 0x57:
            // Connection_Handle u16 (7.7.75)
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            d.connection = eventConnection(handle, into: &d)
            d.summary += " handle " + Fmt.h4(handle)
            d.events.append(.linkEvent(LinkEvent(name: name, connection: d.connection, status: nil, fields: [])))

        case 0xFF:
            // Vendor-specific: kept whole (the bytes are in the packet row); its sub-event named
            // as an Android host reads it (`vendorEventDetail`).
            d.summary += vendorEventDetail(r)

        default:
            if HCINames.eventsWithStatusThenHandle.contains(code) {
                let status = HCIStatusCode(try r.readUInt8("Status"))
                let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
                d.connection = eventConnection(handle, status: status, into: &d)
                if status != .success { d.summary += " status " + Fmt.status(status) }
                d.summary += " handle " + Fmt.h4(handle)
            } else if HCINames.eventsWithHandleFirst.contains(code) {
                let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
                d.connection = eventConnection(handle, into: &d)
                d.summary += " handle " + Fmt.h4(handle)
            }
        }
    }

    /// A successful Connection Complete on a handle that was still open: the capture missed
    /// the Disconnection Complete. The old connection ends here (`linkReplaced`) and its pending
    /// data is dropped.
    /// HCI Reset completed (Core v5.4 Vol 4 Part E 7.3.2): every link of this controller ended
    /// here without a Disconnection Complete. Its reassembly and channels go with it.
    mutating func noteReplaced(_ old: ConnectionTracker.Connection?, by new: ConnectionRef, handle: UInt16, _ d: inout PacketDraft) {
        guard let old else { return }
        // The event is well formed (tshark agrees): what it shows about the capture, a missing
        // Disconnection Complete, is the old link's end (`linkReplaced`), not a decode problem.
        d.events.append(.linkReplaced(old.ref, by: new))
        d.problems += reassembler.discard(handle: handle, controller: controller, why: "handle reused")
        if old.transport == .bredr { channels.remove(connection: old.ref.index) }
        leChannels.remove(connection: old.ref.index)
    }
}

extension HCINames {
    /// Events starting with Status u8, Connection_Handle u16 (Core v5.4 Vol 4 Part E 7.7).
    static let eventsWithStatusThenHandle: Set<UInt8> = [
        0x06, 0x09, 0x0B, 0x0D, 0x14, 0x1C, 0x1D, 0x21, 0x23, 0x2E,
    ]
    /// Events starting with Connection_Handle u16.
    /// Disconnection reasons that are a host's own choice (Core v5.4 Vol 1 Part F 2.19, 2.22).
    static let hostEndings: Set<HCIStatusCode> = [HCIStatusCode(0x13), HCIStatusCode(0x16)]

    static let eventsWithHandleFirst: Set<UInt8> = [0x11, 0x1B, 0x1E, 0x39]
}
