import BLECore

/// HCI command packets (Core v5.4 Vol 4 Part E 5.4.1, 7.1-7.8).
///
/// Wire layout: opcode u16 (OCF 10 bits, OGF 6 bits), parameter total length u8, parameters.
/// Every command emits `.command(HCICommandInfo)`; the parameters the analysis needs are
/// decoded for Disconnect, (Extended) Create Connection and its cancel, LE Connection Update,
/// LE Set (Extended) Scan Enable, LE Start Encryption, LE LTK Request Reply, LE Set Data Length
/// and LE Set PHY; commands whose first parameter is a connection handle get `connection`.
extension PacketDecoder {
    mutating func decodeCommand(_ payload: [UInt8], into d: inout PacketDraft) {
        d.layer = .hci
        guard payload.count >= 3 else {
            let cut = d.cutNote != nil
            if !cut {
                d.fail(layer: .hci, at: payload.count, kind: .truncated,
                       "HCI command header: need 3 bytes, have \(payload.count)")
            }
            d.summary.set("Sent HCI command" + (cut ? "" : " (malformed: header cut short)"))
            if payload.count >= 2 {
                let op = HCIOpcode(UInt16(payload[0]) | UInt16(payload[1]) << 8)
                d.summary.set("Sent " + op.name + (cut ? "" : " (malformed: no parameter length)"))
                d.events.append(.command(HCICommandInfo(opcode: op.rawValue, name: op.name)))
            }
            return
        }
        let opcode = HCIOpcode(UInt16(payload[0]) | UInt16(payload[1]) << 8)
        let name = opcode.name
        let used = d.checkDataLength(declared: Int(payload[2]), available: payload.count - 3, dataStart: 3,
                                     what: "command parameters")
        var r = ByteReader(payload[3..<(3 + used)], baseOffset: d.base &+ 3, layer: .hci)
        var info = HCICommandInfo(opcode: opcode.rawValue, name: name)
        var detail = ""
        var fields = HCIParameterFields.command(opcode.rawValue, r) ?? []
        do {
            detail = try commandParameters(opcode, &r, &info, &fields)
        } catch {
            detail = d.failure(error)
        }
        if let c = info.connection {
            d.connection = c
            pendingCommands[commandKey(opcode.rawValue)] = c
            if TransportClues.bredrOnlyCommands.contains(opcode.rawValue) {
                learnTransport(.bredr, handle: c.handle, clue: name, into: &d)
            } else if opcode.ogf == 0x08 {
                learnTransport(.le, handle: c.handle, clue: name, into: &d)
            }
        }
        d.summary.set("Sent " + name + detail)
        d.events.append(.command(info))
        if !fields.isEmpty {
            // The parameters for `timeline -v` / `--json` (stored as a link event of the command's name).
            d.events.append(.linkEvent(LinkEvent(name: name, connection: info.connection, status: nil, fields: fields)))
        }
    }

    /// Decodes the parameters of the commands the analysis needs; returns summary detail. `fields`
    /// gets the decoded parameters of the connection-making commands for `timeline -v`.
    private mutating func commandParameters(_ opcode: HCIOpcode, _ r: inout ByteReader,
                                            _ info: inout HCICommandInfo,
                                            _ fields: inout [(String, String)]) throws(DecodeError) -> String {
        switch opcode.rawValue {
        case HCIOpcode.disconnect.rawValue:
            // Connection_Handle u16, Reason u8 (7.1.6)
            let handle = try r.readUInt16(.little, "Disconnect Connection_Handle") & 0x0FFF
            let reason = HCIStatusCode(try r.readUInt8("Disconnect Reason"))
            info.reason = reason
            info.connection = tracker.disconnectRequested(handle: handle, reason: reason)
            return " handle " + Fmt.h4(handle) + " reason " + Fmt.status(reason)

        case HCIOpcode.createConnection.rawValue:
            // BD_ADDR, Packet_Type u16, Page_Scan_Repetition_Mode u8, Reserved u8,
            // Clock_Offset u16, Allow_Role_Switch u8 (7.1.5)
            let peer = try r.readAddress("Create Connection BD_ADDR")
            info.peerAddress = peer
            if pendingBREDRCreates.count > 64 { pendingBREDRCreates.removeAll() }
            pendingBREDRCreates.insert(peer)
            return " peer " + Fmt.address(peer)

        case HCIOpcode.leCreateConnection.rawValue:
            // LE_Scan_Interval u16, LE_Scan_Window u16, Initiator_Filter_Policy u8,
            // Peer_Address_Type u8, Peer_Address, Own_Address_Type u8, Connection_Interval_Min u16,
            // Connection_Interval_Max u16, Max_Latency u16, Supervision_Timeout u16,
            // Min_CE_Length u16, Max_CE_Length u16 (7.8.12)
            let scanInterval = try r.readUInt16(.little, "LE_Scan_Interval")
            let scanWindow = try r.readUInt16(.little, "LE_Scan_Window")
            let filter = try r.readUInt8("Initiator_Filter_Policy")
            let type = AddressType(rawValue: try r.readUInt8("Peer_Address_Type"))
            let peer = try r.readAddress("Peer_Address")
            let own = try r.readUInt8("Own_Address_Type")
            let iMin = try r.readUInt16(.little, "Connection_Interval_Min")
            let iMax = try r.readUInt16(.little, "Connection_Interval_Max")
            let latency = try r.readUInt16(.little, "Max_Latency")
            let timeout = try r.readUInt16(.little, "Supervision_Timeout")
            fields = HCIConnectionFields.scanTime("scan_interval", scanInterval)
                + HCIConnectionFields.scanTime("scan_window", scanWindow)
                + [("initiator_filter_policy", Fmt.h2(filter)), ("peer_address_type", type.name),
                   ("peer_address", Fmt.address(peer)), ("own_address_type", HCIConnectionFields.ownAddressType(own))]
                + HCIConnectionFields.requested(intervalMin: iMin, intervalMax: iMax, latency: latency, timeout: timeout)
            if r.remaining >= 4 {
                let ceMin = try r.readUInt16(.little, "Min_CE_Length")
                let ceMax = try r.readUInt16(.little, "Max_CE_Length")
                fields += HCIConnectionFields.scanTime("min_ce_length", ceMin) + HCIConnectionFields.scanTime("max_ce_length", ceMax)
            }
            let params = " interval " + Fmt.intervalRange(iMin, iMax) + " latency \(latency) timeout " + Fmt.timeout10ms(timeout)
            if filter != 0 {
                info.usesFilterAcceptList = true
                return " (filter accept list)" + params
            }
            info.peerAddress = peer
            info.peerAddressType = type
            return " peer " + Fmt.address(peer) + " (" + type.name + ")" + params

        case HCIOpcode.leExtendedCreateConnection.rawValue, HCIOpcode.leExtendedCreateConnectionV2.rawValue:
            // [v2: Advertising_Handle u8, Subevent u8,] Initiator_Filter_Policy u8,
            // Own_Address_Type u8, Peer_Address_Type u8, Peer_Address, Initiating_PHYs u8, … (7.8.66)
            if opcode == .leExtendedCreateConnectionV2 {
                let adv = try r.readUInt8("Advertising_Handle")
                let subevent = try r.readUInt8("Subevent")
                fields += [("advertising_handle", Fmt.h2(adv)), ("subevent", Fmt.h2(subevent))]
            }
            let filter = try r.readUInt8("Initiator_Filter_Policy")
            let own = try r.readUInt8("Own_Address_Type")
            let type = AddressType(rawValue: try r.readUInt8("Peer_Address_Type"))
            let peer = try r.readAddress("Peer_Address")
            fields += [("initiator_filter_policy", Fmt.h2(filter)), ("own_address_type", HCIConnectionFields.ownAddressType(own)),
                       ("peer_address_type", type.name), ("peer_address", Fmt.address(peer))]
            if filter != 0 {
                info.usesFilterAcceptList = true
            } else {
                info.peerAddress = peer
                info.peerAddressType = type
            }
            let head = filter != 0 ? " (filter accept list)" : " peer " + Fmt.address(peer) + " (" + type.name + ")"
            return head + (try leExtendedCreateConnectionPHYs(&r, &fields))

        case 0x2064:
            // LE Create CIS: CIS_Count u8, then per CIS: CIS_Connection_Handle u16,
            // ACL_Connection_Handle u16 (7.8.99)
            let n = Int(try r.readUInt8("CIS_Count"))
            var pairs: [String] = []
            for i in 0..<n {
                let cis = try r.readUInt16(.little, "CIS_Connection_Handle[\(i)]") & 0x0FFF
                let acl = try r.readUInt16(.little, "ACL_Connection_Handle[\(i)]") & 0x0FFF
                let ref = tracker.ref(acl)
                isochronous.proposed(controller: controller, handle: cis, acl: ref)
                tracker.handleNamed(cis)
                if n == 1 { info.connection = ref }
                if i < 4 { pairs.append(Fmt.h4(cis) + " on " + Fmt.h4(acl)) }
            }
            return " CIS " + pairs.joined(separator: ", ") + (n > 4 ? ", …" : "")

        case 0x2011, 0x2012:
            // LE Add Device To / Remove Device From Filter Accept List: Address_Type u8,
            // Address (7.8.16, 7.8.17). Type 0xFF is anonymous advertisements (no address).
            let type = try r.readUInt8("Address_Type")
            let address = try r.readAddress("Address")
            if type == 0xFF { return " anonymous advertisers" }
            info.peerAddress = address
            info.peerAddressType = AddressType(rawValue: type)
            return " " + Fmt.address(address) + " (" + AddressType(rawValue: type).name + ")"

        case HCIOpcode.leCreateConnectionCancel.rawValue:
            // No parameters (7.8.13). The pending attempt ends with status 0x02.
            leCreateCancelPending = true
            return ""

        case HCIOpcode.leConnectionUpdate.rawValue:
            // Connection_Handle u16, Connection_Interval_Min u16, Connection_Interval_Max u16,
            // Max_Latency u16, Supervision_Timeout u16, Min_CE_Length u16, Max_CE_Length u16 (7.8.18)
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            info.connection = tracker.ref(handle)
            let iMin = try r.readUInt16(.little, "Connection_Interval_Min")
            let iMax = try r.readUInt16(.little, "Connection_Interval_Max")
            let latency = try r.readUInt16(.little, "Max_Latency")
            let timeout = try r.readUInt16(.little, "Supervision_Timeout")
            fields = [("handle", Fmt.h4(handle))]
                + HCIConnectionFields.requested(intervalMin: iMin, intervalMax: iMax, latency: latency, timeout: timeout)
            return " handle " + Fmt.h4(handle) + " interval " + Fmt.intervalRange(iMin, iMax)
                + " latency \(latency) timeout " + Fmt.timeout10ms(timeout)

        case HCIOpcode.leSetScanEnable.rawValue:
            // LE_Scan_Enable u8, Filter_Duplicates u8 (7.8.11)
            let enable = try r.readUInt8("LE_Scan_Enable")
            let dup = try r.readUInt8("Filter_Duplicates")
            return (enable != 0 ? " enable" : " disable") + (dup != 0 && enable != 0 ? " (filter duplicates)" : "")

        case HCIOpcode.leSetExtendedScanEnable.rawValue:
            // Enable u8, Filter_Duplicates u8, Duration u16 (10 ms), Period u16 (1.28 s) (7.8.65)
            let enable = try r.readUInt8("Enable")
            let dup = try r.readUInt8("Filter_Duplicates")
            let duration = try r.readUInt16(.little, "Duration")
            var s = enable != 0 ? " enable" : " disable"
            if enable != 0 && dup != 0 { s += " (filter duplicates)" }
            if enable != 0 && duration != 0 { s += " duration " + Fmt.timeout10ms(duration) }
            return s

        case HCIOpcode.leStartEncryption.rawValue:
            // Connection_Handle u16, Random_Number 8, Encrypted_Diversifier u16,
            // Long_Term_Key 16 (7.8.24)
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            info.connection = tracker.ref(handle)
            try r.skip(10, "Random_Number/Encrypted_Diversifier")
            let ltk = try r.readBytes(16, "Long_Term_Key")
            return " handle " + Fmt.h4(handle) + (options.keepKeys ? " LTK " + Fmt.bytes(ltk.reversed()) : "")

        case HCIOpcode.leLongTermKeyRequestReply.rawValue:
            // Connection_Handle u16, Long_Term_Key 16 (7.8.25)
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            info.connection = tracker.ref(handle)
            let ltk = try r.readBytes(16, "Long_Term_Key")
            return " handle " + Fmt.h4(handle) + (options.keepKeys ? " LTK " + Fmt.bytes(ltk.reversed()) : "")

        case HCIOpcode.leSetDataLength.rawValue:
            // Connection_Handle u16, TX_Octets u16, TX_Time u16 (7.8.33)
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            info.connection = tracker.ref(handle)
            let octets = try r.readUInt16(.little, "TX_Octets")
            let time = try r.readUInt16(.little, "TX_Time")
            return " handle " + Fmt.h4(handle) + " tx \(octets) octets \(time) µs"

        case HCIOpcode.leSetPHY.rawValue:
            // Connection_Handle u16, All_PHYs u8, TX_PHYs u8, RX_PHYs u8, PHY_Options u16 (7.8.49)
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            info.connection = tracker.ref(handle)
            let all = try r.readUInt8("All_PHYs")
            let tx = try r.readUInt8("TX_PHYs")
            let rx = try r.readUInt8("RX_PHYs")
            var s = " handle " + Fmt.h4(handle)
            s += all & 1 == 0 ? " tx " + Fmt.phys(tx) : " tx any"
            s += all & 2 == 0 ? " rx " + Fmt.phys(rx) : " rx any"
            return s

        default:
            if opcode.isVendorSpecific { return vendorCommandDetail(opcode, r) }
            if HCINames.commandsWithHandleFirst.contains(opcode.rawValue), r.remaining >= 2 {
                let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
                info.connection = tracker.ref(handle)
                return " handle " + Fmt.h4(handle)
            }
            return ""
        }
    }
}

extension HCINames {
    /// Commands whose first parameter is a Connection_Handle (Core v5.4 Vol 4 Part E 7.1-7.8).
    static let commandsWithHandleFirst: Set<UInt16> = [
        0x040F, 0x0411, 0x0413, 0x0415, 0x041B, 0x041C, 0x041D, 0x041F, 0x0420,
        0x0801, 0x0803, 0x0804, 0x0807, 0x0809, 0x080C, 0x080D, 0x0810, 0x0811,
        0x0C08, 0x0C27, 0x0C28, 0x0C2D, 0x0C36, 0x0C37, 0x0C53, 0x0C5F, 0x0C7B, 0x0C7C,
        0x1401, 0x1402, 0x1403, 0x1405, 0x1406, 0x1407, 0x1408,
        0x2015, 0x2016, 0x201B, 0x2020, 0x2021, 0x2030,
        0x2054, 0x2055, 0x2056, 0x2057, 0x205A, 0x205B, 0x205C, 0x206D,
        0x2076, 0x2077, 0x2078, 0x2079, 0x207A, 0x207E,
    ]
}
