import BLECore

// Small, allocation-light formatting used on the per-record path (no Foundation, no
// `String(format:)`): summaries are built from precomputed hex strings.

/// Formatting helpers for summaries.
enum Fmt {
    /// `"00"` … `"FF"`.
    static let hexPairs: [String] = (0...255).map { hex2(UInt8($0)) }
    /// `"0x00"` … `"0xFF"`.
    static let hexBytes: [String] = (0...255).map { "0x" + hex2(UInt8($0)) }

    /// `0xNN`.
    @inline(__always)
    static func h2(_ v: UInt8) -> String { hexBytes[Int(v)] }

    /// ASCII of an upper-case hex digit.
    @inline(__always)
    static func digit(_ nibble: UInt16) -> UInt8 {
        let n = UInt8(truncatingIfNeeded: nibble & 0xF)
        return n < 10 ? 0x30 &+ n : 0x37 &+ n
    }

    /// `0xNNNN`, written straight into a small string (no intermediate strings).
    static func h4(_ v: UInt16) -> String {
        String(unsafeUninitializedCapacity: 6) { b in
            b[0] = 0x30; b[1] = 0x78
            b[2] = digit(v >> 12); b[3] = digit(v >> 8); b[4] = digit(v >> 4); b[5] = digit(v)
            return 6
        }
    }

    /// `0x13 Remote User Terminated Connection`.
    static func status(_ s: HCIStatusCode) -> String { h2(s.rawValue) + " " + s.name }

    /// Value in hundredths as a decimal without trailing zeros: 750 -> "7.5", 1000 -> "10".
    static func hundredths(_ v: Int) -> String {
        let whole = v / 100, frac = v % 100
        if frac == 0 { return String(whole) }
        if frac % 10 == 0 { return String(whole) + "." + String(frac / 10) }
        return String(whole) + "." + (frac < 10 ? "0" : "") + String(frac)
    }

    /// A connection interval in 1.25 ms units, as milliseconds: 6 -> "7.5 ms".
    static func interval(_ units: UInt16) -> String { hundredths(Int(units) * 125) + " ms" }

    /// A supervision timeout in 10 ms units, as milliseconds: 200 -> "2000 ms".
    static func timeout10ms(_ units: UInt16) -> String { String(Int(units) * 10) + " ms" }

    /// `AA:BB:CC:DD:EE:FF`, written in one pass.
    static func address(_ a: BluetoothAddress) -> String {
        withUnsafeBytes(of: a.bytes) { raw in
            String(unsafeUninitializedCapacity: 17) { b in
                var i = 0
                for k in 0..<6 {
                    if k > 0 { b[i] = 0x3A; i += 1 }
                    b[i] = digit(UInt16(raw[k]) >> 4); b[i + 1] = digit(UInt16(raw[k]))
                    i += 2
                }
                return 17
            }
        }
    }

    /// `" AA:BB:CC:DD:EE:FF rssi -60"` (without the RSSI part when nil), built in one pass:
    /// advertising reports are most of many captures.
    static func addressAndRSSI(_ a: BluetoothAddress, _ rssi: Int8?) -> String {
        withUnsafeBytes(of: a.bytes) { raw in
            String(unsafeUninitializedCapacity: 28) { b in
                b[0] = 0x20
                var i = 1
                for k in 0..<6 {
                    if k > 0 { b[i] = 0x3A; i += 1 }
                    b[i] = digit(UInt16(raw[k]) >> 4); b[i + 1] = digit(UInt16(raw[k]))
                    i += 2
                }
                guard let rssi else { return i }
                for c in " rssi ".utf8 { b[i] = c; i += 1 }
                var v = Int(rssi)
                if v < 0 { b[i] = 0x2D; i += 1; v = -v }
                if v >= 100 { b[i] = 0x30 &+ UInt8(v / 100); i += 1 }
                if v >= 10 { b[i] = 0x30 &+ UInt8(v / 10 % 10); i += 1 }
                b[i] = 0x30 &+ UInt8(v % 10)
                return i + 1
            }
        }
    }

    /// `7.5 ms` or `7.5-15 ms` for a min/max pair in 1.25 ms units.
    static func intervalRange(_ lo: UInt16, _ hi: UInt16) -> String {
        lo == hi ? interval(lo) : hundredths(Int(lo) * 125) + "-" + interval(hi)
    }

    /// A PHY bit field (bit 0 LE 1M, bit 1 LE 2M, bit 2 LE Coded): `1M|2M`.
    static func phys(_ bits: UInt8) -> String {
        var parts: [String] = []
        if bits & 1 != 0 { parts.append("1M") }
        if bits & 2 != 0 { parts.append("2M") }
        if bits & 4 != 0 { parts.append("Coded") }
        if bits & ~7 != 0 || parts.isEmpty { parts.append(h2(bits)) }
        return parts.joined(separator: "|")
    }

    /// A PHY value (1 LE 1M, 2 LE 2M, 3 LE Coded).
    static func phy(_ v: UInt8) -> String {
        switch v {
        case 1: "1M"
        case 2: "2M"
        case 3: "Coded"
        default: h2(v)
        }
    }

    /// Lower-case hex without separators.
    static func bytes(_ b: some Sequence<UInt8>) -> String { hexString(b) }

    /// `"Sent "`, `"Rcvd "` or nothing, as Wireshark's Info column starts.
    /// `Rcvd ACL fragment (start, 27 of 247 bytes)`, or `(continuation, 54 bytes)` when the
    /// L2CAP length is not known yet. Written in one pass into the string's storage: in a
    /// notification-heavy capture most records are such fragments, and string interpolation
    /// cost more than the rest of their decoding.
    static func fragmentSummary(prefix: String, start: Bool, received: Int, expected: Int?) -> String {
        let head: StaticString = start ? "ACL fragment (start, " : "ACL fragment (continuation, "
        let of: StaticString = " of "
        let tail: StaticString = " bytes)"
        var prefix = prefix
        let capacity = prefix.utf8.count + head.utf8CodeUnitCount + 2 * 20 + of.utf8CodeUnitCount + tail.utf8CodeUnitCount
        return prefix.withUTF8 { p in
            String(unsafeUninitializedCapacity: capacity) { out in
                var k = 0
                func put(_ bytes: UnsafeBufferPointer<UInt8>) {
                    for b in bytes { out[k] = b; k += 1 }
                }
                func put(_ text: StaticString) {
                    text.withUTF8Buffer { put($0) }
                }
                func put(_ n: Int) {
                    var v = n.magnitude
                    if n < 0 { out[k] = UInt8(ascii: "-"); k += 1 }
                    let start = k
                    repeat {
                        out[k] = UInt8(ascii: "0") + UInt8(v % 10)
                        v /= 10
                        k += 1
                    } while v > 0
                    var i = start, j = k - 1
                    while i < j { out.swapAt(i, j); i += 1; j -= 1 }
                }
                put(p)
                put(head)
                put(received)
                if let expected {
                    put(of)
                    put(expected)
                }
                put(tail)
                return k
            }
        }
    }

    static func prefix(_ d: Direction) -> String {
        switch d {
        case .sent: "Sent "
        case .received: "Rcvd "
        case .unknown: ""
        }
    }

    /// Text of a note record: UTF-8 (invalid sequences replaced), control characters and
    /// surrounding white space removed.
    /// A note's text (invalid UTF-8 replaced, control characters as spaces); a note that holds
    /// control bytes other than tab and line ends is not text and is shown as its length and
    /// first bytes in hex.
    static func noteText(_ bytes: [UInt8]) -> String {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0 { end -= 1 }
        let body = bytes[..<end]
        let binary = body.contains { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        if binary {
            let shown = Fmt.bytes(body.prefix(32))
            return "note, \(body.count) bytes: " + shown + (body.count > 32 ? "…" : "")
        }
        return noteTextOnly(bytes)
    }

    private static func noteTextOnly(_ bytes: [UInt8]) -> String {
        var scalars = String(decoding: bytes, as: UTF8.self).unicodeScalars[...]
        func blank(_ s: Unicode.Scalar) -> Bool { s.value < 0x21 || s.properties.isWhitespace }
        while let f = scalars.first, blank(f) { scalars.removeFirst() }
        while let l = scalars.last, blank(l) { scalars.removeLast() }
        var out = String.UnicodeScalarView()
        for s in scalars {
            if s.value < 0x20 || s.value == 0x7F { out.append(" ") } else { out.append(s) }
        }
        return String(out)
    }
}
