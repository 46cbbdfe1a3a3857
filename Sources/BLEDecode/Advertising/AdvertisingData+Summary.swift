import BLECore

extension AdvertisingData {
    /// One line, e.g. `name "Polar H10" flags 0x06 uuids [180D] mfr 0x006B`.
    ///
    /// Parts, in this order, when present: `name "…"` (`(shortened)` after a shortened name),
    /// `flags 0xNN`, `uuids [a, b]` (`…` inside when a list is incomplete), `solicit [..]`,
    /// `tx N dBm`, `appearance 0xNNNN`, `svc-data [uuid, …]`, `mfr 0xNNNN` per manufacturer
    /// structure, `interval N ms`, `uri …`; then `(malformed: …)` when there is a problem.
    /// Empty data gives `(empty)`.
    public var summary: String {
        var parts: [String] = []
        if let name = localName {
            parts.append("name \"\(name)\"" + (isShortenedName ? " (shortened)" : ""))
        }
        if let raw = firstData(of: .flags)?.first { parts.append("flags \(hex(raw))") }
        let uuids = serviceUUIDs
        if !uuids.isEmpty {
            let list = uuids.map(\.uuidString) + (serviceUUIDsComplete ? [] : ["…"])
            parts.append("uuids [" + list.joined(separator: ", ") + "]")
        }
        let solicited = solicitedServiceUUIDs
        if !solicited.isEmpty { parts.append("solicit [" + solicited.map(\.uuidString).joined(separator: ", ") + "]") }
        if let tx = txPowerLevel { parts.append("tx \(tx) dBm") }
        if let appearance { parts.append("appearance \(hex(appearance, width: 4))") }
        let services = serviceData
        if !services.isEmpty { parts.append("svc-data [" + services.map(\.uuid.uuidString).joined(separator: ", ") + "]") }
        for m in manufacturerData { parts.append("mfr \(hex(m.companyID, width: 4))") }
        if let ms = advertisingIntervalMilliseconds { parts.append("interval \(Self.decimal(ms)) ms") }
        if let uri { parts.append("uri \(uri)") }
        if let problem { parts.append("(malformed: \(problem))") }
        return parts.isEmpty ? (structures.isEmpty ? "(empty)" : "\(structures.count) AD structure(s)") : parts.joined(separator: " ")
    }

    /// One entry per AD structure: its type name and its value in words, for verbose output.
    public var fields: [(String, String)] {
        structures.map { s in (s.type.name, Self.render(s)) }
    }

    static func render(_ s: ADStructure) -> String {
        let d = s.data
        switch s.type.rawValue {
        case 0x01:
            guard let raw = d.first else { return "(empty)" }
            return "\(hex(raw)) \(ADFlags(rawValue: raw))"
        case 0x02, 0x03, 0x14: return uuidList(d, size: 2).map(\.uuidString).joined(separator: ", ")
        case 0x04, 0x05, 0x1F: return uuidList(d, size: 4).map(\.uuidString).joined(separator: ", ")
        case 0x06, 0x07, 0x15: return uuidList(d, size: 16).map(\.uuidString).joined(separator: ", ")
        case 0x08, 0x09, 0x30: return quotedName(d)
        case 0x0A: return d.first.map { "\(Int8(bitPattern: $0)) dBm" } ?? "(empty)"
        case 0x19:
            guard let v = uint(from: d, count: 2) else { return hexString(d) }
            let value = UInt16(v)
            return hex(value, width: 4) + (AssignedNumbers.appearanceName(value).map { " " + $0 } ?? "")
        case 0xFF:
            guard d.count >= 2 else { return hexString(d) }
            let id = UInt16(d[0]) | UInt16(d[1]) << 8
            let company = AssignedNumbers.companyName(id).map { " " + $0 } ?? ""
            return "\(hex(id, width: 4))\(company): \(hexString(d.dropFirst(2)))"
        case 0x16, 0x20, 0x21:
            let size = s.type.rawValue == 0x16 ? 2 : (s.type.rawValue == 0x20 ? 4 : 16)
            guard d.count >= size, let uuid = BluetoothUUID(littleEndian: d.prefix(size)) else { return hexString(d) }
            return "\(uuid.uuidString): \(hexString(d.dropFirst(size)))"
        case 0x1C: return d.first.map { ADLERole($0).name } ?? "(empty)"
        default: return hexString(d)
        }
    }

    /// A Shortened/Complete Local Name (CSS Part A 1.2) or Broadcast Name as `"SX70"`. The name is
    /// UTF-8 with no terminator; devices that pad it to a fixed size with NULs get the padding
    /// counted, `"SX70" (4 NUL byte(s) of padding)`, never printed (as `localName` drops it).
    static func quotedName(_ d: [UInt8]) -> String {
        var bytes = d[...]
        while bytes.last == 0 { bytes.removeLast() }
        let padding = d.count - bytes.count
        return "\"" + String(decoding: bytes, as: UTF8.self) + "\""
            + (padding > 0 ? " (\(padding) NUL byte(s) of padding)" : "")
    }

    /// `100`, `152.5`: at most three decimals, no trailing zeros, no Foundation.
    static func decimal(_ v: Double) -> String {
        let thousandths = Int((v * 1000).rounded())
        let whole = thousandths / 1000
        var frac = thousandths % 1000
        if frac == 0 { return String(whole) }
        var digits = 3
        while frac % 10 == 0 { frac /= 10; digits -= 1 }
        let f = String(frac)
        return "\(whole)." + String(repeating: "0", count: digits - f.count) + f
    }
}
