import BLECore

/// Battery Level (0x2A19), GATT Specification Supplement (the characteristic of that name): one uint8, percent 0–100
/// (101–255 reserved for future use, shown as such).
struct BatteryLevel: CharacteristicValueLayout {
    static let uuids: [UInt16] = [0x2A19]
    var level: UInt8

    init(decoding r: inout ByteReader, uuid: UInt16) throws(DecodeError) {
        level = try r.readUInt8("Battery Level")
    }

    var summary: String { level <= 100 ? "\(level) %" : "reserved value \(level)" }
    var fields: [(String, String)] { [("Battery Level", summary)] }
}
