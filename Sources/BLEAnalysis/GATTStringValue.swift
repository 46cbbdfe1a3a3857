/// A GATT value read as text: the UTF-8 strings of the Device Information Service (Manufacturer
/// Name, Model Number, Firmware Revision, …, GATT Specification Supplement 3.x, format `utf8s`)
/// and the GAP Device Name (Core v5.4 Vol 3 Part C 12.1).
///
/// Firmware often pads them to a fixed length with NUL bytes ("1.2.3\0\0\0\0"): the padding is
/// not part of the string. A value is text when, without trailing NULs and spaces, it is
/// non-empty UTF-8 with no other control characters.
public enum GATTStringValue {
    public static func text(_ bytes: some Collection<UInt8>) -> String? {
        var end = bytes.count
        let array = Array(bytes)
        while end > 0, array[end - 1] == 0 || array[end - 1] == 0x20 { end -= 1 }
        guard end > 0 else { return nil }
        let body = array[..<end]
        guard body.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }),
              let s = String(validating: body, as: UTF8.self) else { return nil }
        return s
    }
}
