import BLECore

/// The per-PHY parameters of LE Extended Create Connection [v1/v2] (Core v5.4 Vol 4 Part E 7.8.66).
///
/// Wire layout after Peer_Address: Initiating_PHYs u8 (bit 0 LE 1M, bit 1 LE 2M, bit 2 LE Coded),
/// then for each bit set, in bit order: Scan_Interval u16, Scan_Window u16 (0.625 ms),
/// Connection_Interval_Min u16, Connection_Interval_Max u16 (1.25 ms), Max_Latency u16,
/// Supervision_Timeout u16 (10 ms), Min_CE_Length u16, Max_CE_Length u16 (0.625 ms).
extension PacketDecoder {
    /// Appends the PHYs' fields (`1m_scan_interval`, …) and returns the summary detail:
    /// ` phys 1M|2M scan interval 1280 ms window 120 ms interval 30-50 ms latency 0 timeout 5000 ms`,
    /// the parameters once when every PHY has the same, else each PHY's after its name.
    func leExtendedCreateConnectionPHYs(_ r: inout ByteReader,
                                        _ fields: inout [(String, String)]) throws(DecodeError) -> String {
        let phys = try r.readUInt8("Initiating_PHYs")
        fields.append(("initiating_phys", Fmt.phys(phys)))
        var parts: [(phy: String, text: String)] = []
        for (bit, phy) in [(UInt8(1), "1M"), (2, "2M"), (4, "Coded")] where phys & bit != 0 {
            let scanInterval = try r.readUInt16(.little, "Scan_Interval[\(phy)]")
            let scanWindow = try r.readUInt16(.little, "Scan_Window[\(phy)]")
            let iMin = try r.readUInt16(.little, "Connection_Interval_Min[\(phy)]")
            let iMax = try r.readUInt16(.little, "Connection_Interval_Max[\(phy)]")
            let latency = try r.readUInt16(.little, "Max_Latency[\(phy)]")
            let timeout = try r.readUInt16(.little, "Supervision_Timeout[\(phy)]")
            let ceMin = try r.readUInt16(.little, "Min_CE_Length[\(phy)]")
            let ceMax = try r.readUInt16(.little, "Max_CE_Length[\(phy)]")
            let p = phy.lowercased() + "_"
            fields += HCIConnectionFields.scanTime(p + "scan_interval", scanInterval)
                + HCIConnectionFields.scanTime(p + "scan_window", scanWindow)
                + HCIConnectionFields.interval(p + "interval_min", iMin) + HCIConnectionFields.interval(p + "interval_max", iMax)
                + [(p + "latency", String(latency)), (p + "timeout", String(timeout)), (p + "timeout_ms", String(Int(timeout) * 10))]
                + HCIConnectionFields.scanTime(p + "min_ce_length", ceMin) + HCIConnectionFields.scanTime(p + "max_ce_length", ceMax)
            let text = " scan interval " + HCIConnectionFields.thousandths(Int(scanInterval) * 625) + " ms window "
                + HCIConnectionFields.thousandths(Int(scanWindow) * 625) + " ms interval " + Fmt.intervalRange(iMin, iMax)
                + " latency \(latency) timeout " + Fmt.timeout10ms(timeout)
            parts.append((phy, text))
        }
        var s = " phys " + Fmt.phys(phys)
        if let first = parts.first, parts.allSatisfy({ $0.text == first.text }) {
            s += first.text
        } else {
            s += parts.map { " " + $0.phy + ":" + $0.text }.joined(separator: ";")
        }
        return s
    }
}
