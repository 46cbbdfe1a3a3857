/// A 48-bit Bluetooth device address (BD_ADDR).
///
/// Stored most significant byte first, the way people read and write it
/// (`AA:BB:CC:DD:EE:FF`); on the wire HCI sends it least significant byte first.
public struct BluetoothAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Most significant byte first.
    public let bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)

    public init(mostSignificantFirst b: some Collection<UInt8>) {
        let a = Array(b)
        precondition(a.count == 6, "a BD_ADDR has 6 bytes")
        bytes = (a[0], a[1], a[2], a[3], a[4], a[5])
    }

    /// From HCI wire order (least significant byte first).
    public init(littleEndianBytes b: some Collection<UInt8>) {
        var i = b.startIndex
        func next() -> UInt8 { defer { i = b.index(after: i) }; return b[i] }
        precondition(b.count == 6, "a BD_ADDR has 6 bytes")
        let b0 = next(), b1 = next(), b2 = next(), b3 = next(), b4 = next(), b5 = next()
        bytes = (b5, b4, b3, b2, b1, b0)
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (or with `-`), case-insensitive.
    public init?(_ text: String) {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == "-" })
        guard parts.count == 6 else { return nil }
        var out: [UInt8] = []
        for p in parts {
            guard p.count == 2, let v = UInt8(p, radix: 16) else { return nil }
            out.append(v)
        }
        self.init(mostSignificantFirst: out)
    }

    public var array: [UInt8] { [bytes.0, bytes.1, bytes.2, bytes.3, bytes.4, bytes.5] }
    public var littleEndianArray: [UInt8] { array.reversed() }

    /// `AA:BB:CC:DD:EE:FF`, built in one pass (this runs for every advertising report).
    public var description: String {
        let digits: StaticString = "0123456789ABCDEF"
        return String(unsafeUninitializedCapacity: 17) { out in
            digits.withUTF8Buffer { d in
                var k = 0
                for (n, v) in [bytes.0, bytes.1, bytes.2, bytes.3, bytes.4, bytes.5].enumerated() {
                    if n > 0 { out[k] = UInt8(ascii: ":"); k += 1 }
                    out[k] = d[Int(v >> 4)]
                    out[k + 1] = d[Int(v & 0xF)]
                    k += 2
                }
            }
            return 17
        }
    }

    public static func == (l: Self, r: Self) -> Bool {
        l.bytes.0 == r.bytes.0 && l.bytes.1 == r.bytes.1 && l.bytes.2 == r.bytes.2
            && l.bytes.3 == r.bytes.3 && l.bytes.4 == r.bytes.4 && l.bytes.5 == r.bytes.5
    }
    public func hash(into h: inout Hasher) {
        h.combine(bytes.0); h.combine(bytes.1); h.combine(bytes.2)
        h.combine(bytes.3); h.combine(bytes.4); h.combine(bytes.5)
    }
    public static func < (l: Self, r: Self) -> Bool { l.array.lexicographicallyPrecedes(r.array) }
}

/// LE address type as HCI reports it (Core v5.4 Vol 4 Part E 7.7.65.1).
public struct AddressType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let `public` = AddressType(rawValue: 0)
    public static let random = AddressType(rawValue: 1)
    public static let publicIdentity = AddressType(rawValue: 2)
    public static let randomIdentity = AddressType(rawValue: 3)
    public static let anonymous = AddressType(rawValue: 0xFF)

    public var name: String {
        switch rawValue {
        case 0: "public"
        case 1: "random"
        case 2: "public-identity"
        case 3: "random-identity"
        case 0xFF: "anonymous"
        default: "0x" + hex2(rawValue)
        }
    }
    public var description: String { name }
}

/// Two upper-case hex digits.
@inlinable
public func hex2(_ v: UInt8) -> String {
    String(unsafeUninitializedCapacity: 2) { out in
        out[0] = upperHexDigit(v >> 4)
        out[1] = upperHexDigit(v & 0xF)
        return 2
    }
}

/// The ASCII upper-case hex digit of `nibble` (0–15).
@inlinable
public func upperHexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") - 10 + nibble
}

/// `0x` and upper-case hex of at least `width` digits.
public func hex(_ v: some BinaryInteger, width: Int = 2) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: max(0, width - s.count)) + s
}

/// Bytes as lower-case hex without separators (for values and raw dumps).
public func hexString(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for b in bytes {
        out.append(digits[Int(b >> 4)])
        out.append(digits[Int(b & 0xF)])
    }
    return String(decoding: out, as: UTF8.self)
}
