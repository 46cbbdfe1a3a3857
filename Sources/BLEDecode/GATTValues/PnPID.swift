import BLECore

/// PnP ID (0x2A50), GATT Specification Supplement (the characteristic of that name).
///
/// Layout: Vendor ID Source (uint8: 1 Bluetooth SIG company identifier, 2 USB Implementer's
/// Forum vendor ID), Vendor ID (uint16), Product ID (uint16), Product Version (uint16, 0xJJMN:
/// major JJ, minor M, sub-minor N).
struct PnPID: CharacteristicValueLayout {
    static let uuids: [UInt16] = [0x2A50]
    var vendorIDSource: UInt8
    var vendorID: UInt16
    var productID: UInt16
    var productVersion: UInt16

    init(decoding r: inout ByteReader, uuid: UInt16) throws(DecodeError) {
        vendorIDSource = try r.readUInt8("Vendor ID Source")
        vendorID = try r.readUInt16(.little, "Vendor ID")
        productID = try r.readUInt16(.little, "Product ID")
        productVersion = try r.readUInt16(.little, "Product Version")
    }

    var sourceName: String {
        switch vendorIDSource {
        case 1: "Bluetooth SIG"
        case 2: "USB Implementer's Forum"
        default: "Reserved (\(hex(vendorIDSource)))"
        }
    }

    var vendorText: String {
        let name = vendorIDSource == 1 ? AssignedNumbers.companyName(vendorID).map { " \($0)" } ?? "" : ""
        return hex(vendorID, width: 4) + name
    }

    /// `JJ.M.N`.
    var versionText: String { "\(productVersion >> 8).\((productVersion >> 4) & 0xF).\(productVersion & 0xF)" }

    var fields: [(String, String)] {
        [("Vendor ID Source", "\(hex(vendorIDSource)) \(sourceName)"), ("Vendor ID", vendorText),
         ("Product ID", hex(productID, width: 4)), ("Product Version", "\(hex(productVersion, width: 4)) (\(versionText))")]
    }
    var summary: String { "vendor \(vendorText) (\(sourceName)), product \(hex(productID, width: 4)), version \(versionText)" }
}
