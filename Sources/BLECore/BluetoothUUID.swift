/// A Bluetooth UUID: 16-, 32- or 128-bit (Core v5.4 Vol 3 Part B 2.5.1).
///
/// Printed as CoreBluetooth prints `CBUUID.uuidString`: a SIG UUID built on the Base UUID
/// `0000xxxx-0000-1000-8000-00805F9B34FB` as four upper-case hex digits (`180D`), a 32-bit one
/// as eight, anything else in the canonical upper-case 128-bit form.
public struct BluetoothUUID: Hashable, Sendable, CustomStringConvertible {
    /// The full 128-bit value, most significant byte first.
    public let bytes: [UInt8]

    /// From the 16 bytes of the full UUID, most significant byte first.
    public init(bytes: [UInt8]) {
        precondition(bytes.count == 16, "a 128-bit UUID has 16 bytes")
        self.bytes = bytes
    }

    static let base: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
                                0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34, 0xFB]

    public init(uint16 v: UInt16) { self.init(uint32: UInt32(v)) }

    public init(uint32 v: UInt32) {
        var b = Self.base
        b[0] = UInt8(v >> 24); b[1] = UInt8(truncatingIfNeeded: v >> 16)
        b[2] = UInt8(truncatingIfNeeded: v >> 8); b[3] = UInt8(truncatingIfNeeded: v)
        self.init(bytes: b)
    }

    /// From ATT/GAP wire bytes (little-endian) of length 2, 4 or 16.
    public init?(littleEndian raw: some Collection<UInt8>) {
        let a = Array(raw)
        switch a.count {
        case 2: self.init(uint16: UInt16(a[0]) | UInt16(a[1]) << 8)
        case 4: self.init(uint32: UInt32(a[0]) | UInt32(a[1]) << 8 | UInt32(a[2]) << 16 | UInt32(a[3]) << 24)
        case 16: self.init(bytes: a.reversed())
        default: return nil
        }
    }

    /// Parses `180D`, `0000180D`, or `0000180D-0000-1000-8000-00805F9B34FB`.
    public init?(_ text: String) {
        let hexDigits = text.filter { $0 != "-" }
        guard hexDigits.allSatisfy(\.isHexDigit) else { return nil }
        switch hexDigits.count {
        case 4: guard let v = UInt16(hexDigits, radix: 16) else { return nil }; self.init(uint16: v)
        case 8: guard let v = UInt32(hexDigits, radix: 16) else { return nil }; self.init(uint32: v)
        case 32:
            var out: [UInt8] = []
            var it = hexDigits.makeIterator()
            while let h = it.next(), let l = it.next() { out.append(UInt8(String([h, l]), radix: 16)!) }
            self.init(bytes: out)
        default: return nil
        }
    }

    /// The 16-bit value when this UUID is a 16-bit SIG UUID.
    public var uint16: UInt16? {
        guard isOnBase, bytes[0] == 0, bytes[1] == 0 else { return nil }
        return UInt16(bytes[2]) << 8 | UInt16(bytes[3])
    }

    /// The 32-bit value when this UUID is built on the Base UUID.
    public var uint32: UInt32? {
        guard isOnBase else { return nil }
        return bytes[0..<4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// True when bytes 4–15 are the Base UUID's (Core v5.4 Vol 3 Part B 2.5.1), compared in
    /// place: `uuidString` asks for every GATT row an import stores.
    var isOnBase: Bool {
        for i in 4..<16 where bytes[i] != Self.base[i] { return false }
        return true
    }

    /// Wire form (little-endian), shortest that represents it.
    public var littleEndianBytes: [UInt8] {
        if let v = uint16 { return [UInt8(v & 0xFF), UInt8(v >> 8)] }
        return bytes.reversed()
    }

    public var uuidString: String {
        // Written in one pass into the string's own storage: 4, 8 or 36 characters.
        let short = isOnBase
        let first = short && bytes[0] == 0 && bytes[1] == 0 ? 2 : 0
        let last = short ? 4 : 16
        let count = (last - first) * 2 + (short ? 0 : 4)
        return String(unsafeUninitializedCapacity: count) { out in
            var k = 0
            for i in first..<last {
                if !short && (i == 4 || i == 6 || i == 8 || i == 10) { out[k] = UInt8(ascii: "-"); k += 1 }
                out[k] = upperHexDigit(bytes[i] >> 4)
                out[k + 1] = upperHexDigit(bytes[i] & 0xF)
                k += 2
            }
            return k
        }
    }

    public var description: String { uuidString }
}
