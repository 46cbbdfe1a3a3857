import Testing
import BLECore

/// `hex2` and `BluetoothUUID.uuidString` write their digits straight into the string (issue 12:
/// the analysis asks for a UUID string for every GATT row). They must print exactly what the
/// plain formatting of the standard library prints, for every byte and every UUID shape.
@Suite("hex formatting")
struct HexFormattingTests {
    /// The standard library's upper-case hex of `v`, padded to `width` digits.
    static func reference(_ v: some BinaryInteger, width: Int) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }

    @Test func hex2PrintsEveryByte() {
        for v in 0...255 { #expect(hex2(UInt8(v)) == Self.reference(v, width: 2)) }
        #expect(hex2(0x0A) == "0A" && hex2(0xF0) == "F0")
    }

    /// 16-bit and 32-bit SIG UUIDs print 4 and 8 digits (CBUUID's short forms), anything
    /// off the Base UUID the canonical 8-4-4-4-12 form: checked over a deterministic spread of
    /// values against the text built from the standard library's hex.
    @Test func uuidStringMatchesTheCanonicalForms() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 11
        }
        for _ in 0..<500 {
            let v16 = UInt16(truncatingIfNeeded: next())
            #expect(BluetoothUUID(uint16: v16).uuidString == Self.reference(v16, width: 4))
            let v32 = UInt32(truncatingIfNeeded: next()) | 0x0001_0000   // not a 16-bit one
            #expect(BluetoothUUID(uint32: v32).uuidString == Self.reference(v32, width: 8))
            var bytes = (0..<16).map { _ in UInt8(truncatingIfNeeded: next()) }
            if bytes[4...] == [0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34, 0xFB][...] { continue }
            let h = bytes.map { Self.reference($0, width: 2) }.joined()
            let canonical = [h.prefix(8), h.dropFirst(8).prefix(4), h.dropFirst(12).prefix(4),
                             h.dropFirst(16).prefix(4), h.dropFirst(20)].map(String.init).joined(separator: "-")
            #expect(BluetoothUUID(bytes: bytes).uuidString == canonical)
            #expect(BluetoothUUID(canonical)?.bytes == bytes)
        }
        // One byte off the Base UUID is a 128-bit UUID, whatever its first four bytes.
        var nearlyBase = BluetoothUUID(uint16: 0x180D).bytes
        nearlyBase[15] = 0xFA
        #expect(BluetoothUUID(bytes: nearlyBase).uuidString == "0000180D-0000-1000-8000-00805F9B34FA")
        #expect(BluetoothUUID(bytes: nearlyBase).uint16 == nil && BluetoothUUID(bytes: nearlyBase).uint32 == nil)
        #expect(BluetoothUUID(uint32: 0x0001_180D).uuidString == "0001180D")
        #expect(BluetoothUUID(uint32: 0x0001_180D).uint16 == nil)
    }
}
