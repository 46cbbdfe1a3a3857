import BLECore

/// LE Meta event sub-events (Core v5.4 Vol 4 Part E 7.7.65).
///
/// Wire layout: Subevent_Code u8, then the sub-event's parameters. Connection completes feed
/// the tracker; advertising reports (several per event) become one `.advertisingReport` each.
extension PacketDecoder {
    mutating func decodeLEMeta(_ r: inout ByteReader, _ d: inout PacketDraft) throws(DecodeError) {
        guard let sub = r.peekUInt8() else {
            throw r.error("no LE sub-event code", kind: .truncated)
        }
        try r.skip(1)
        let name = HCINames.leSubevent(sub)
        d.summary += " (" + name + ")"
        switch sub {
        case 0x01, 0x0A, 0x29:
            try leConnectionComplete(sub, name, &r, &d)

        case 0x02:
            // Num_Reports u8; per report: Event_Type u8, Address_Type u8, Address,
            // Data_Length u8, Data, RSSI i8 (7.7.65.2)
            let n = Int(try r.readUInt8("Num_Reports"))
            for i in 0..<n {
                let type = try r.readUInt8("Event_Type[\(i)]")
                let addrType = AddressType(rawValue: try r.readUInt8("Address_Type[\(i)]"))
                let addr = try r.readAddress("Address[\(i)]")
                let len = Int(try r.readUInt8("Data_Length[\(i)]"))
                let data = try r.readBytes(len, "Data[\(i)]")
                let rssi = try r.readInt8("RSSI[\(i)]")
                let report = AdvertisingReport(address: addr, addressType: addrType, eventType: UInt16(type),
                                               isExtended: false, isScanResponse: type == 0x04,
                                               rssi: rssi == 127 ? nil : rssi, txPower: nil, data: Array(data))
                if n == 1 { d.summary.append { Self.summarize(report, into: &$0) } }
                d.events.append(.advertisingReport(report))
            }
            if n != 1 { d.summary += " \(n) reports" }

        case 0x0B:
            // Num_Reports u8; per report: Event_Type u8, Address_Type u8, Address,
            // Direct_Address_Type u8, Direct_Address, RSSI i8 (7.7.65.11)
            let n = Int(try r.readUInt8("Num_Reports"))
            for i in 0..<n {
                let type = try r.readUInt8("Event_Type[\(i)]")
                let addrType = AddressType(rawValue: try r.readUInt8("Address_Type[\(i)]"))
                let addr = try r.readAddress("Address[\(i)]")
                try r.skip(7, "Direct_Address_Type/Direct_Address[\(i)]")
                let rssi = try r.readInt8("RSSI[\(i)]")
                let report = AdvertisingReport(
                    address: addr, addressType: addrType, eventType: UInt16(type), isExtended: false,
                    isScanResponse: false, rssi: rssi == 127 ? nil : rssi, txPower: nil, data: [])
                if n == 1 { d.summary.append { Self.summarize(report, into: &$0) } }
                d.events.append(.advertisingReport(report))
            }
            if n != 1 { d.summary += " \(n) reports" }

        case 0x0D:
            // Num_Reports u8; per report: Event_Type u16, Address_Type u8, Address,
            // Primary_PHY u8, Secondary_PHY u8, Advertising_SID u8, TX_Power i8, RSSI i8,
            // Periodic_Advertising_Interval u16, Direct_Address_Type u8, Direct_Address,
            // Data_Length u8, Data (7.7.65.13)
            let n = Int(try r.readUInt8("Num_Reports"))
            for i in 0..<n {
                let type = try r.readUInt16(.little, "Event_Type[\(i)]")
                let addrType = AddressType(rawValue: try r.readUInt8("Address_Type[\(i)]"))
                let addr = try r.readAddress("Address[\(i)]")
                try r.skip(2, "Primary_PHY/Secondary_PHY[\(i)]")
                let sid = try r.readUInt8("Advertising_SID[\(i)]")
                let tx = try r.readInt8("TX_Power[\(i)]")
                let rssi = try r.readInt8("RSSI[\(i)]")
                try r.skip(9, "Periodic_Advertising_Interval/Direct_Address[\(i)]")
                let len = Int(try r.readUInt8("Data_Length[\(i)]"))
                let data = try r.readBytes(len, "Data[\(i)]")
                var report = AdvertisingReport(
                    address: addr, addressType: addrType, eventType: type, isExtended: true,
                    isScanResponse: type & 0x0008 != 0, rssi: rssi == 127 ? nil : rssi,
                    txPower: tx == 127 ? nil : tx, data: Array(data))
                report.dataStatus = UInt8((type >> 5) & 0x3)
                report = advertisingFragments.add(report, key: .init(controller: controller, address: addr,
                                                                    addressType: addrType, sid: sid))
                if n == 1 {
                    d.summary.append { Self.summarize(report, into: &$0) }
                    switch report.dataStatus {
                    case 0: break
                    case 1: d.summary += " (incomplete, more data to come)"
                    case 2: d.summary += " (incomplete, truncated)"
                    default: d.summary += " (data status 0b11, reserved)"
                    }
                }
                d.events.append(.advertisingReport(report))
            }
            if n != 1 { d.summary += " \(n) reports" }

        case 0x03:
            // Status u8, Connection_Handle u16, Connection_Interval u16, Peripheral_Latency u16,
            // Supervision_Timeout u16 (7.7.65.3)
            let status = HCIStatusCode(try r.readUInt8("Status"))
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            let interval = try r.readUInt16(.little, "Connection_Interval")
            let latency = try r.readUInt16(.little, "Peripheral_Latency")
            let timeout = try r.readUInt16(.little, "Supervision_Timeout")
            d.connection = eventConnection(handle, status: status, into: &d)
            d.summary += statusText(status) + " handle " + Fmt.h4(handle)
            if status == .success {
                d.summary += " interval " + Fmt.interval(interval) + " latency \(latency) timeout " + Fmt.timeout10ms(timeout)
            }
            d.events.append(.connectionUpdate(ConnectionUpdate(connection: d.connection, status: status,
                                                               interval: interval, peripheralLatency: latency,
                                                               supervisionTimeout: timeout)))
            // The fields for `timeline -v`; a failure is already an error row through the update.
            d.events.append(.linkEvent(LinkEvent(
                name: name, connection: d.connection, status: status,
                fields: [("handle", Fmt.h4(handle))] + HCIConnectionFields.interval("interval", interval)
                    + [("latency", String(latency))] + HCIConnectionFields.timeout(timeout),
                recordsError: false)))

        case 0x04:
            // Status u8, Connection_Handle u16, LE_Features 8 (7.7.65.4)
            let status = HCIStatusCode(try r.readUInt8("Status"))
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            let features = try r.readBytes(8, "LE_Features")
            link(name, handle: handle, status: status, [("features", Fmt.bytes(features))], &d)

        case 0x05:
            // Connection_Handle u16, Random_Number 8, Encrypted_Diversifier u16 (7.7.65.5)
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            let rand = try r.readBytes(8, "Random_Number")
            let ediv = try r.readUInt16(.little, "Encrypted_Diversifier")
            link(name, handle: handle, status: nil, [("random", Fmt.bytes(rand)), ("ediv", Fmt.h4(ediv))], &d)

        case 0x06:
            // Connection_Handle u16, Interval_Min u16, Interval_Max u16, Max_Latency u16,
            // Timeout u16 (7.7.65.6)
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            let lo = try r.readUInt16(.little, "Interval_Min")
            let hi = try r.readUInt16(.little, "Interval_Max")
            let latency = try r.readUInt16(.little, "Max_Latency")
            let timeout = try r.readUInt16(.little, "Timeout")
            link(name, handle: handle, status: nil,
                 [("interval_min", String(lo)), ("interval_max", String(hi)), ("latency", String(latency)),
                  ("timeout", String(timeout))], &d)
            d.summary += " interval " + Fmt.intervalRange(lo, hi) + " latency \(latency) timeout " + Fmt.timeout10ms(timeout)

        case 0x07:
            // Connection_Handle u16, Max_TX_Octets u16, Max_TX_Time u16, Max_RX_Octets u16,
            // Max_RX_Time u16 (7.7.65.7)
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            let txO = try r.readUInt16(.little, "Max_TX_Octets")
            let txT = try r.readUInt16(.little, "Max_TX_Time")
            let rxO = try r.readUInt16(.little, "Max_RX_Octets")
            let rxT = try r.readUInt16(.little, "Max_RX_Time")
            link(name, handle: handle, status: nil,
                 [("max_tx_octets", String(txO)), ("max_tx_time", String(txT)),
                  ("max_rx_octets", String(rxO)), ("max_rx_time", String(rxT))], &d)
            d.summary += " tx \(txO) rx \(rxO) octets"

        case 0x08:
            // Status u8, Key_X_Coordinate 32, Key_Y_Coordinate 32 (7.7.65.8)
            let status = HCIStatusCode(try r.readUInt8("Status"))
            d.summary += statusText(status)

        case 0x09:
            // Status u8, DH_Key 32 (7.7.65.9): secret, shown only with keepKeys
            let status = HCIStatusCode(try r.readUInt8("Status"))
            d.summary += statusText(status)
            if options.keepKeys, r.remaining >= 32 {
                let key = try r.readBytes(32)
                d.summary += " DHKey " + Fmt.bytes(key.reversed())
            }

        case 0x0C:
            // Status u8, Connection_Handle u16, TX_PHY u8, RX_PHY u8 (7.7.65.12)
            let status = HCIStatusCode(try r.readUInt8("Status"))
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            let tx = try r.readUInt8("TX_PHY")
            let rx = try r.readUInt8("RX_PHY")
            link(name, handle: handle, status: status, [("tx_phy", Fmt.phy(tx)), ("rx_phy", Fmt.phy(rx))], &d)
            if status == .success { d.summary += " tx " + Fmt.phy(tx) + " rx " + Fmt.phy(rx) }

        case 0x12:
            // Status u8, Advertising_Handle u8, Connection_Handle u16,
            // Num_Completed_Extended_Advertising_Events u8 (7.7.65.18)
            let status = HCIStatusCode(try r.readUInt8("Status"))
            let adv = try r.readUInt8("Advertising_Handle")
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            d.summary += statusText(status) + " advertising handle " + Fmt.h2(adv)
            if status == .success {
                d.connection = tracker.ref(handle)
                d.summary += " connection handle " + Fmt.h4(handle)
            }

        case 0x13:
            // Advertising_Handle u8, Scanner_Address_Type u8, Scanner_Address (7.7.65.19)
            try r.skip(1, "Advertising_Handle")
            let type = AddressType(rawValue: try r.readUInt8("Scanner_Address_Type"))
            let addr = try r.readAddress("Scanner_Address")
            d.summary += " scanner " + Fmt.address(addr) + " (" + type.name + ")"

        case 0x14:
            // Connection_Handle u16, Channel_Selection_Algorithm u8 (7.7.65.20)
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            let alg = try r.readUInt8("Channel_Selection_Algorithm")
            link(name, handle: handle, status: nil, [("algorithm", alg == 0 ? "#1" : alg == 1 ? "#2" : Fmt.h2(alg))], &d)

        case 0x1A:
            // ACL_Connection_Handle u16, CIS_Connection_Handle u16, CIG_ID u8, CIS_ID u8 (7.7.65.26)
            let handle = try r.readUInt16(.little, "ACL_Connection_Handle") & 0x0FFF
            d.connection = tracker.ref(handle)
            d.summary += " handle " + Fmt.h4(handle)
            if let cis = r.peekUInt8().flatMap({ lo in r.peekUInt8(at: 1).map { UInt16(lo) | UInt16($0) << 8 } }) {
                isochronous.proposed(controller: controller, handle: cis & 0x0FFF, acl: d.connection)
                tracker.handleNamed(cis & 0x0FFF)
                d.summary += " CIS handle " + Fmt.h4(cis & 0x0FFF)
            }

        case 0x19:
            // Status u8, Connection_Handle u16 (the CIS), timing and PHY parameters (7.7.65.25)
            let status = HCIStatusCode(try r.readUInt8("Status"))
            d.summary += statusText(status)
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            let cis = isochronous.established(controller: controller, handle: handle, success: status == .success)
            tracker.handleNamed(handle)
            d.connection = cis?.acl
            d.summary += " CIS handle " + Fmt.h4(handle)
            // A failed CIS (0x3E, 0x1F, …) is an error of the ACL it was set up on.
            d.events.append(.linkEvent(LinkEvent(name: name, connection: d.connection, status: status,
                                                 fields: [("CIS handle", Fmt.h4(handle))])))

        case 0x1F, 0x21, 0x23:
            // Status u8, Connection_Handle u16, … (7.7.65.31, 7.7.65.33, 7.7.65.35)
            let status = HCIStatusCode(try r.readUInt8("Status"))
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            d.connection = tracker.ref(handle)
            d.summary += statusText(status) + " handle " + Fmt.h4(handle)

        case 0x20:
            // Connection_Handle u16, Current_Path_Loss u8, Zone_Entered u8 (7.7.65.32)
            let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
            d.connection = tracker.ref(handle)
            d.summary += " handle " + Fmt.h4(handle)

        case 0x1B, 0x1D:
            // LE Create BIG Complete: Status, BIG_Handle, BIG_Sync_Delay u24, Transport_Latency_BIG
            // u24, PHY, NSE, BN, PTO, IRC, Max_PDU u16, ISO_Interval u16, Num_BIS, Connection_Handle
            // u16 × Num_BIS (7.7.65.27). LE BIG Sync Established: the same without BIG_Sync_Delay
            // and PHY (7.7.65.29). The BIS handles are no ACL links (`IsochronousChannels`).
            let status = HCIStatusCode(try r.readUInt8("Status"))
            d.summary += statusText(status)
            let big = try r.readUInt8("BIG_Handle")
            d.summary += " BIG " + Fmt.h2(big)
            guard status == .success else {
                d.events.append(.linkEvent(LinkEvent(name: name, connection: nil, status: status,
                                                     fields: [("BIG", Fmt.h2(big))])))
                break
            }
            try r.skip(sub == 0x1B ? 3 + 3 + 5 + 4 : 3 + 4 + 4, "BIG parameters")
            let n = Int(try r.readUInt8("Num_BIS"))
            var handles: [UInt16] = []
            for i in 0..<n {
                let h = try r.readUInt16(.little, "Connection_Handle[\(i)]") & 0x0FFF
                handles.append(h)
                tracker.handleNamed(h)
            }
            isochronous.bigOpened(controller: controller, big: big, handles: handles)
            d.summary += " BIS " + handles.prefix(4).map(Fmt.h4).joined(separator: ", ") + (n > 4 ? ", …" : "")

        case 0x1C, 0x1E:
            // LE Terminate BIG Complete / LE BIG Sync Lost: BIG_Handle u8, Reason u8 (7.7.65.28, 7.7.65.30)
            let big = try r.readUInt8("BIG_Handle")
            let reason = HCIStatusCode(try r.readUInt8("Reason"))
            isochronous.bigEnded(controller: controller, big: big)
            d.summary += " BIG " + Fmt.h2(big) + " reason " + Fmt.status(reason)

        case 0x0E, 0x24:
            // Sub-events that start with Status (periodic advertising sync established).
            let status = HCIStatusCode(try r.readUInt8("Status"))
            d.summary += statusText(status)

        default:
            break
        }
    }

    /// LE Connection Complete (0x01), Enhanced Connection Complete v1 (0x0A) / v2 (0x29).
    ///
    /// Wire layout: Status u8, Connection_Handle u16, Role u8, Peer_Address_Type u8,
    /// Peer_Address, [enhanced: Local_Resolvable_Private_Address, Peer_Resolvable_Private_Address,]
    /// Connection_Interval u16, Peripheral_Latency u16, Supervision_Timeout u16,
    /// Central_Clock_Accuracy u8 [v2: Advertising_Handle u8, Sync_Handle u16]
    /// (Core v5.4 Vol 4 Part E 7.7.65.1, 7.7.65.10). Any status makes a new connection ref;
    /// only status 0x00 opens the handle.
    private mutating func leConnectionComplete(_ sub: UInt8, _ name: String, _ r: inout ByteReader,
                                               _ d: inout PacketDraft) throws(DecodeError) {
        let status = HCIStatusCode(try r.readUInt8("Status"))
        let handle = try r.readUInt16(.little, "Connection_Handle") & 0x0FFF
        let role = try r.readUInt8("Role")
        let type = AddressType(rawValue: try r.readUInt8("Peer_Address_Type"))
        let peer = try r.readAddress("Peer_Address")
        var fields: [(String, String)] = [("handle", Fmt.h4(handle)), ("role", HCIConnectionFields.role(role)),
                                          ("peer_address_type", type.name), ("peer_address", Fmt.address(peer))]
        // A record the capture cut (`RecordCutter`) may end before the parameters: the attempt,
        // its handle and peer are known and the link opens; the parameters stay unknown.
        var parameters: (interval: UInt16, latency: UInt16, timeout: UInt16)?
        do throws(DecodeError) {
            if sub != 0x01 {
                let local = try r.readAddress("Local_Resolvable_Private_Address")
                let peerRPA = try r.readAddress("Peer_Resolvable_Private_Address")
                fields += [("local_rpa", Fmt.address(local)), ("peer_rpa", Fmt.address(peerRPA))]
            }
            let interval = try r.readUInt16(.little, "Connection_Interval")
            let latency = try r.readUInt16(.little, "Peripheral_Latency")
            let timeout = try r.readUInt16(.little, "Supervision_Timeout")
            let accuracy = try r.readUInt8("Central_Clock_Accuracy")
            parameters = (interval, latency, timeout)
            fields += HCIConnectionFields.interval("interval", interval) + [("latency", String(latency))]
                + HCIConnectionFields.timeout(timeout) + [("central_clock_accuracy", HCIConnectionFields.clockAccuracy(accuracy))]
            if sub == 0x29, r.remaining >= 3 {
                let adv = try r.readUInt8("Advertising_Handle")
                let sync = try r.readUInt16(.little, "Sync_Handle")
                fields += [("advertising_handle", Fmt.h2(adv)), ("sync_handle", Fmt.h4(sync))]
            }
        } catch {
            guard error.kind == .truncated, d.cutNote != nil, parameters == nil else { throw error }
        }
        let (ref, replaced) = tracker.connectionComplete(handle: handle, status: status, transport: .le, at: d.base)
        if status == .success { noteReplaced(replaced, by: ref, handle: handle, &d) }
        d.connection = ref
        d.summary += " status " + (status == .success ? Fmt.h2(0) : Fmt.status(status))
            + " handle " + Fmt.h4(handle) + " peer " + Fmt.address(peer) + " (" + type.name + ")"
        if status == .success {
            d.summary += (role == 0 ? " central" : role == 1 ? " peripheral" : " role " + Fmt.h2(role))
            if let parameters { d.summary += " interval " + Fmt.interval(parameters.interval) }
        } else if status == .unknownConnectionIdentifier, leCreateCancelPending {
            d.summary += " (cancelled by host)"
        }
        leCreateCancelPending = false
        d.events.append(.connectionComplete(ConnectionComplete(
            connection: ref, transport: .le, status: status, role: role, peerAddress: peer, peerAddressType: type,
            interval: parameters?.interval, peripheralLatency: parameters?.latency, supervisionTimeout: parameters?.timeout,
            eventName: name)))
        // The fields for `timeline -v`; a failure is already an error row through the connection.
        d.events.append(.linkEvent(LinkEvent(name: name, connection: ref, status: status, fields: fields,
                                             recordsError: false)))
    }

    /// A link-level event on `handle` with its fields.
    private mutating func link(_ name: String, handle: UInt16, status: HCIStatusCode?, _ fields: [(String, String)],
                               _ d: inout PacketDraft) {
        d.connection = eventConnection(handle, status: status, into: &d)
        if let status { d.summary += statusText(status) }
        d.summary += " handle " + Fmt.h4(handle)
        d.events.append(.linkEvent(LinkEvent(name: name, connection: d.connection, status: status, fields: fields)))
    }

    /// `" status 0xNN Name"` unless success.
    private func statusText(_ s: HCIStatusCode) -> String {
        s == .success ? "" : " status " + Fmt.status(s)
    }

    /// Appends `" AA:BB:… rssi -60 \"Name\""`: the summary of an event with one report.
    private static func summarize(_ r: AdvertisingReport, into s: inout String) {
        s += Fmt.addressAndRSSI(r.address, r.rssi)
        if let name = r.parsed.localName {
            s += " \""
            s += name
            s += "\""
        }
    }
}
