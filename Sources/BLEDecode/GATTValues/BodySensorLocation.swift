import BLECore

/// Body Sensor Location (0x2A38), GATT Specification Supplement (the characteristic of that name): one uint8, an open set.
struct BodySensorLocation: CharacteristicValueLayout {
    static let uuids: [UInt16] = [0x2A38]
    var location: UInt8

    init(decoding r: inout ByteReader, uuid: UInt16) throws(DecodeError) {
        location = try r.readUInt8("Body Sensor Location")
    }

    /// GATT Specification Supplement; other values are reserved for future use.
    var name: String {
        switch location {
        case 0: "Other"
        case 1: "Chest"
        case 2: "Wrist"
        case 3: "Finger"
        case 4: "Hand"
        case 5: "Ear Lobe"
        case 6: "Foot"
        default: "Reserved (\(hex(location)))"
        }
    }

    var fields: [(String, String)] { [("Body Sensor Location", "\(hex(location)) \(name)")] }
    var summary: String { name }
}
