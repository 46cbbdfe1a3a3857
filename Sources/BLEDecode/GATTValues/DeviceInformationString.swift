import BLECore

/// The Device Information Service's string characteristics (GATT Specification Supplement,
/// "utf8s" values): Model Number (0x2A24), Serial Number (0x2A25), Firmware Revision (0x2A26),
/// Hardware Revision (0x2A27), Software Revision (0x2A28), Manufacturer Name (0x2A29).
///
/// A UTF-8 string with no terminator; many devices pad it with NULs to a fixed size: trailing
/// NULs are stripped and counted, and bytes that are not UTF-8 are shown in hex, not replaced.
struct DeviceInformationString: CharacteristicValueLayout {
    static let uuids: [UInt16] = [0x2A24, 0x2A25, 0x2A26, 0x2A27, 0x2A28, 0x2A29]

    var text: String?
    var bytes: [UInt8]
    var padding: Int

    init(decoding r: inout ByteReader, uuid: UInt16) throws(DecodeError) {
        let all = Array(r.readRemaining())
        var end = all.count
        while end > 0, all[end - 1] == 0 { end -= 1 }
        bytes = Array(all[..<end])
        padding = all.count - end
        text = String(validating: bytes, as: UTF8.self)
    }

    var shown: String { text.map { "\"\($0)\"" } ?? "not UTF-8: \(hexString(bytes))" }

    var summary: String { shown + (padding > 0 ? " (\(padding) NUL byte(s) of padding)" : "") }
    var fields: [(String, String)] {
        [("String", shown)] + (padding > 0 ? [("Padding", "\(padding) NUL byte(s)")] : [])
    }
}
