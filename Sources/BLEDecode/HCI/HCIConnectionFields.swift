import BLECore

/// Decoded fields of the HCI connection events and commands for `timeline -v` / `--json`
/// (`LinkEvent.fields`, stored as `link_event.detail`), in wire order. Values as Wireshark
/// shows them: raw counts next to their milliseconds (`interval=36 interval_ms=45`).
enum HCIConnectionFields {
    /// Connection_Interval in 1.25 ms units (Core v5.4 Vol 4 Part E 7.7.65.1): `interval`, `interval_ms`.
    static func interval(_ name: String, _ units: UInt16) -> [(String, String)] {
        [(name, String(units)), (name + "_ms", Fmt.hundredths(Int(units) * 125))]
    }

    /// The connection parameters an LE Create Connection, LE Connection Update (7.8.18) or LE
    /// Remote Connection Parameter Request Reply (7.8.31) asks for: interval range, latency, timeout.
    static func requested(intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, timeout: UInt16) -> [(String, String)] {
        interval("interval_min", intervalMin) + interval("interval_max", intervalMax) + [("latency", String(latency))]
            + self.timeout(timeout)
    }

    /// Supervision_Timeout in 10 ms units (7.7.65.1): `timeout`, `timeout_ms`.
    static func timeout(_ units: UInt16) -> [(String, String)] {
        [("timeout", String(units)), ("timeout_ms", String(Int(units) * 10))]
    }

    /// A scan interval or window in 0.625 ms units (7.8.10, 7.8.66): `scan_interval`, `scan_interval_ms`.
    static func scanTime(_ name: String, _ units: UInt16) -> [(String, String)] {
        [(name, String(units)), (name + "_ms", Self.thousandths(Int(units) * 625))]
    }

    /// Role of an LE Connection Complete (7.7.65.1): `0x00 central`, `0x01 peripheral`.
    static func role(_ role: UInt8) -> String {
        Fmt.h2(role) + (role == 0 ? " central" : role == 1 ? " peripheral" : " reserved")
    }

    /// Own_Address_Type of the LE commands (7.8.5, 7.8.12): 0x02 and 0x03 are a resolvable private
    /// address from the resolving list, else public (0x02) or random (0x03).
    static func ownAddressType(_ v: UInt8) -> String {
        switch v {
        case 0: "public"
        case 1: "random"
        case 2: "rpa-or-public"
        case 3: "rpa-or-random"
        default: Fmt.h2(v)
        }
    }

    /// Central_Clock_Accuracy (7.7.65.1), Wireshark's ranges: 0x00 `251-500 ppm` … 0x07 `0-20 ppm`.
    static func clockAccuracy(_ v: UInt8) -> String {
        switch v {
        case 0: "251-500 ppm"
        case 1: "151-250 ppm"
        case 2: "101-150 ppm"
        case 3: "76-100 ppm"
        case 4: "51-75 ppm"
        case 5: "31-50 ppm"
        case 6: "21-30 ppm"
        case 7: "0-20 ppm"
        default: "reserved " + Fmt.h2(v)
        }
    }

    /// Value in thousandths without trailing zeros: 1280000 -> "1280", 1875 -> "1.875".
    static func thousandths(_ v: Int) -> String {
        let whole = v / 1000
        var frac = v % 1000
        guard frac != 0 else { return String(whole) }
        var digits = 3
        while frac % 10 == 0 { frac /= 10; digits -= 1 }
        let f = String(frac)
        return String(whole) + "." + String(repeating: "0", count: digits - f.count) + f
    }
}
