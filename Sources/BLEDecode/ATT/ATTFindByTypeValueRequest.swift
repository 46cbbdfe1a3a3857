import BLECore

/// Find By Type Value Request: find attributes of a 16-bit type with a given value
/// (Core v5.4 Vol 3 Part F 3.4.3.3). Used for primary service discovery by UUID.
///
/// Wire layout: `06 | Starting Handle (2, LE) | Ending Handle (2, LE) | Attribute Type (2, LE) |
/// Attribute Value (0 to ATT_MTU-7)`.
public struct ATTFindByTypeValueRequest: ATTPDUBody {
    public static let opcode = ATTOpcode.findByTypeValueRequest
    public var startingHandle: UInt16
    public var endingHandle: UInt16
    /// Always a 16-bit UUID on the wire.
    public var attributeType: UInt16
    public var attributeValue: [UInt8]

    public init(startingHandle: UInt16, endingHandle: UInt16, attributeType: UInt16, attributeValue: [UInt8]) {
        self.startingHandle = startingHandle
        self.endingHandle = endingHandle
        self.attributeType = attributeType
        self.attributeValue = attributeValue
    }

    public var attributeTypeUUID: BluetoothUUID { BluetoothUUID(uint16: attributeType) }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        startingHandle = try r.readUInt16(.little, "Starting Handle")
        endingHandle = try r.readUInt16(.little, "Ending Handle")
        attributeType = try r.readUInt16(.little, "Attribute Type")
        attributeValue = Array(r.readRemaining())
    }

    public func appendParameters(to bytes: inout [UInt8]) {
        bytes.append(le16: startingHandle)
        bytes.append(le16: endingHandle)
        bytes.append(le16: attributeType)
        bytes += attributeValue
    }

    public var fields: [(String, String)] {
        [("Starting Handle", handleString(startingHandle)),
         ("Ending Handle", handleString(endingHandle)),
         ("Attribute Type", attributeTypeUUID.labelled),
         ("Attribute Value", hexString(attributeValue))]
    }

    /// `Find By Type Value Request, Primary Service, Handles: 0x0001..0xFFFF`.
    public var summary: String {
        "\(Self.opcode.name), \(attributeTypeUUID.nameOrString), Handles: \(handleString(startingHandle))..\(handleString(endingHandle))"
    }
}
