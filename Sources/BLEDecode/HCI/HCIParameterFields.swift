import BLECore

/// Decoded parameters of common HCI commands and Command Complete return parameters for
/// `timeline -v` / `--json`, where the summary does not need them. Read from a copy of the
/// parameters: a short command keeps decoding as before (no fields, no new problem).
enum HCIParameterFields {
    /// Command parameters (Core v5.4 Vol 4 Part E 7.8), nil for a command not listed or cut short.
    static func command(_ opcode: UInt16, _ r: ByteReader) -> [(String, String)]? {
        var r = r
        return try? command(opcode, &r)
    }

    /// Command Complete return parameters after Status (7.7.14), nil for a command not listed.
    static func returnParameters(_ opcode: UInt16, _ r: ByteReader) -> [(String, String)]? {
        var r = r
        return try? returnParameters(opcode, &r)
    }

    private static func command(_ opcode: UInt16, _ r: inout ByteReader) throws(DecodeError) -> [(String, String)]? {
        switch opcode {
        case 0x0406:
            // Disconnect: Connection_Handle u16, Reason u8 (7.1.6). The reason tells the app's own
            // disconnect (0x13) from the stack's (0x05 after failed security, 0x15, …).
            let handle = try r.readUInt16(.little) & 0x0FFF
            let reason = HCIStatusCode(try r.readUInt8())
            return [("handle", Fmt.h4(handle)), ("reason", Fmt.status(reason))]

        case 0x2020:
            // LE Remote Connection Parameter Request Reply: Connection_Handle u16,
            // Interval_Min u16, Interval_Max u16, Max_Latency u16, Timeout u16, Min_CE_Length u16,
            // Max_CE_Length u16 (7.8.31): the parameters the host accepts for the peer's request.
            let handle = try r.readUInt16(.little) & 0x0FFF
            let iMin = try r.readUInt16(.little)
            let iMax = try r.readUInt16(.little)
            let latency = try r.readUInt16(.little)
            let timeout = try r.readUInt16(.little)
            return [("handle", Fmt.h4(handle))]
                + HCIConnectionFields.requested(intervalMin: iMin, intervalMax: iMax, latency: latency, timeout: timeout)

        case 0x200B:
            // LE Set Scan Parameters: LE_Scan_Type u8, LE_Scan_Interval u16, LE_Scan_Window u16
            // (0.625 ms), Own_Address_Type u8, Scanning_Filter_Policy u8 (7.8.10)
            let type = try r.readUInt8()
            let interval = try r.readUInt16(.little)
            let window = try r.readUInt16(.little)
            let own = try r.readUInt8()
            let policy = try r.readUInt8()
            return [("scan_type", scanType(type))] + HCIConnectionFields.scanTime("scan_interval", interval)
                + HCIConnectionFields.scanTime("scan_window", window)
                + [("own_address_type", HCIConnectionFields.ownAddressType(own)), ("scanning_filter_policy", Fmt.h2(policy))]

        case 0x2041:
            // LE Set Extended Scan Parameters: Own_Address_Type u8, Scanning_Filter_Policy u8,
            // Scanning_PHYs u8 (bit 0 LE 1M, bit 2 LE Coded), then per PHY set: Scan_Type u8,
            // Scan_Interval u16, Scan_Window u16 (0.625 ms) (7.8.64)
            let own = try r.readUInt8()
            let policy = try r.readUInt8()
            let phys = try r.readUInt8()
            var f = [("own_address_type", HCIConnectionFields.ownAddressType(own)), ("scanning_filter_policy", Fmt.h2(policy)),
                     ("scanning_phys", Fmt.phys(phys))]
            for (bit, p) in [(UInt8(1), "1m_"), (4, "coded_")] where phys & bit != 0 {
                let type = try r.readUInt8()
                let interval = try r.readUInt16(.little)
                let window = try r.readUInt16(.little)
                f += [(p + "scan_type", scanType(type))] + HCIConnectionFields.scanTime(p + "scan_interval", interval)
                    + HCIConnectionFields.scanTime(p + "scan_window", window)
            }
            return f

        case 0x200C:
            // LE Set Scan Enable: LE_Scan_Enable u8, Filter_Duplicates u8 (7.8.11)
            let enable = try r.readUInt8()
            let dup = try r.readUInt8()
            return [("scan_enable", flag(enable)), ("filter_duplicates", flag(dup))]

        case 0x2042:
            // LE Set Extended Scan Enable: Enable u8, Filter_Duplicates u8, Duration u16 (10 ms),
            // Period u16 (1.28 s) (7.8.65)
            let enable = try r.readUInt8()
            let dup = try r.readUInt8()
            let duration = try r.readUInt16(.little)
            let period = try r.readUInt16(.little)
            return [("enable", flag(enable)), ("filter_duplicates", Fmt.h2(dup)),
                    ("duration", String(duration)), ("duration_ms", String(Int(duration) * 10)),
                    ("period", String(period)), ("period_ms", String(Int(period) * 1280))]

        case 0x2006:
            // LE Set Advertising Parameters: Advertising_Interval_Min u16, Advertising_Interval_Max
            // u16 (0.625 ms), Advertising_Type u8, Own_Address_Type u8, Peer_Address_Type u8,
            // Peer_Address, Advertising_Channel_Map u8, Advertising_Filter_Policy u8 (7.8.5)
            let lo = try r.readUInt16(.little)
            let hi = try r.readUInt16(.little)
            let type = try r.readUInt8()
            let own = try r.readUInt8()
            let peerType = try r.readUInt8()
            let peer = try r.readAddress()
            let map = try r.readUInt8()
            let policy = try r.readUInt8()
            return HCIConnectionFields.scanTime("advertising_interval_min", lo)
                + HCIConnectionFields.scanTime("advertising_interval_max", hi)
                + [("advertising_type", Fmt.h2(type)), ("own_address_type", HCIConnectionFields.ownAddressType(own)),
                   ("peer_address_type", AddressType(rawValue: peerType).name), ("peer_address", Fmt.address(peer)),
                   ("channel_map", channels(map)), ("advertising_filter_policy", Fmt.h2(policy))]

        case 0x2036, 0x207F:
            // LE Set Extended Advertising Parameters [v1] (7.8.53) / [v2] (7.8.53): Advertising_Handle
            // u8, Advertising_Event_Properties u16, Primary_Advertising_Interval_Min u24,
            // Primary_Advertising_Interval_Max u24 (0.625 ms), Primary_Advertising_Channel_Map u8,
            // Own_Address_Type u8, Peer_Address_Type u8, Peer_Address, Advertising_Filter_Policy u8,
            // Advertising_TX_Power i8, Primary_Advertising_PHY u8, Secondary_Advertising_Max_Skip u8,
            // Secondary_Advertising_PHY u8, Advertising_SID u8, Scan_Request_Notification_Enable u8
            // [v2: Primary_Advertising_PHY_Options u8, Secondary_Advertising_PHY_Options u8]
            let handle = try r.readUInt8()
            let props = try r.readUInt16(.little)
            let lo = try r.readUInt24(.little)
            let hi = try r.readUInt24(.little)
            let map = try r.readUInt8()
            let own = try r.readUInt8()
            let peerType = try r.readUInt8()
            let peer = try r.readAddress()
            let policy = try r.readUInt8()
            let tx = try r.readInt8()
            let primary = try r.readUInt8()
            let skip = try r.readUInt8()
            let secondary = try r.readUInt8()
            let sid = try r.readUInt8()
            let notify = try r.readUInt8()
            var f: [(String, String)] = [
                ("advertising_handle", Fmt.h2(handle)), ("event_properties", Fmt.h4(props) + eventProperties(props)),
                ("primary_interval_min", String(lo)), ("primary_interval_min_ms", HCIConnectionFields.thousandths(Int(lo) * 625)),
                ("primary_interval_max", String(hi)), ("primary_interval_max_ms", HCIConnectionFields.thousandths(Int(hi) * 625)),
                ("primary_channel_map", channels(map)), ("own_address_type", HCIConnectionFields.ownAddressType(own)),
                ("peer_address_type", AddressType(rawValue: peerType).name), ("peer_address", Fmt.address(peer)),
                ("advertising_filter_policy", Fmt.h2(policy)),
                ("tx_power", tx == 127 ? "no preference" : "\(tx) dBm"),
                ("primary_phy", Fmt.phy(primary)), ("secondary_max_skip", String(skip)),
                ("secondary_phy", Fmt.phy(secondary)), ("advertising_sid", Fmt.h2(sid)),
                ("scan_request_notification", flag(notify)),
            ]
            if opcode == 0x207F {
                let po = try r.readUInt8()
                let so = try r.readUInt8()
                f += [("primary_phy_options", Fmt.h2(po)), ("secondary_phy_options", Fmt.h2(so))]
            }
            return f

        default:
            return nil
        }
    }

    private static func returnParameters(_ opcode: UInt16, _ r: inout ByteReader) throws(DecodeError) -> [(String, String)]? {
        switch opcode {
        case 0x1005:
            // Read Buffer Size: Status, ACL_Data_Packet_Length u16, Synchronous_Data_Packet_Length
            // u8, Total_Num_ACL_Data_Packets u16, Total_Num_Synchronous_Data_Packets u16 (7.4.5)
            try r.skip(1, "Status")
            let acl = try r.readUInt16(.little)
            let sco = try r.readUInt8()
            let aclN = try r.readUInt16(.little)
            let scoN = try r.readUInt16(.little)
            return [("acl_data_packet_length", String(acl)), ("synchronous_data_packet_length", String(sco)),
                    ("total_num_acl_data_packets", String(aclN)), ("total_num_synchronous_data_packets", String(scoN))]

        case 0x2002, 0x2060:
            // LE Read Buffer Size [v1]: Status, LE_ACL_Data_Packet_Length u16,
            // Total_Num_LE_ACL_Data_Packets u8 (7.8.2); [v2] adds ISO_Data_Packet_Length u16,
            // Total_Num_ISO_Data_Packets u8
            try r.skip(1, "Status")
            let len = try r.readUInt16(.little)
            let n = try r.readUInt8()
            var f = [("le_acl_data_packet_length", String(len)), ("total_num_le_acl_data_packets", String(n))]
            if opcode == 0x2060 {
                let iso = try r.readUInt16(.little)
                let isoN = try r.readUInt8()
                f += [("iso_data_packet_length", String(iso)), ("total_num_iso_data_packets", String(isoN))]
            }
            return f

        default:
            return nil
        }
    }

    /// LE_Scan_Type (7.8.10): 0x00 passive, 0x01 active.
    private static func scanType(_ v: UInt8) -> String {
        Fmt.h2(v) + (v == 0 ? " passive" : v == 1 ? " active" : "")
    }

    private static func flag(_ v: UInt8) -> String {
        Fmt.h2(v) + (v == 0 ? " disabled" : v == 1 ? " enabled" : "")
    }

    /// Advertising_Channel_Map (7.8.5): `37|38|39`.
    private static func channels(_ map: UInt8) -> String {
        var parts: [String] = []
        for (bit, ch) in [(UInt8(1), "37"), (2, "38"), (4, "39")] where map & bit != 0 { parts.append(ch) }
        return parts.isEmpty ? Fmt.h2(map) : parts.joined(separator: "|")
    }

    /// Advertising_Event_Properties bits (7.8.53): ` connectable scannable legacy`.
    private static func eventProperties(_ p: UInt16) -> String {
        let names = ["connectable", "scannable", "directed", "high-duty-cycle", "legacy", "anonymous", "include-tx-power"]
        var s = ""
        for (i, n) in names.enumerated() where p & (1 << i) != 0 { s += " " + n }
        return s
    }
}
