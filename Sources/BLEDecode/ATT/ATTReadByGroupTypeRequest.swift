import BLECore

/// Read By Group Type Request: read grouping attributes in a range (Core v5.4 Vol 3 Part F 3.4.4.9).
/// Used for primary service discovery.
///
/// Wire layout: `10 | Starting Handle (2, LE) | Ending Handle (2, LE) | Attribute Group Type (2 or 16, LE)`.
public struct ATTReadByGroupTypeRequest: ATTPDUBody {
    public static let opcode = ATTOpcode.readByGroupTypeRequest
    public var startingHandle: UInt16
    public var endingHandle: UInt16
    public var attributeGroupType: BluetoothUUID
    public var attributeGroupTypeSize: UUIDWireSize

    public init(startingHandle: UInt16, endingHandle: UInt16, attributeGroupType: BluetoothUUID,
                attributeGroupTypeSize: UUIDWireSize? = nil) {
        self.startingHandle = startingHandle
        self.endingHandle = endingHandle
        self.attributeGroupType = attributeGroupType
        self.attributeGroupTypeSize = attributeGroupTypeSize ?? .shortest(for: attributeGroupType)
    }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        startingHandle = try r.readUInt16(.little, "Starting Handle")
        endingHandle = try r.readUInt16(.little, "Ending Handle")
        (attributeGroupType, attributeGroupTypeSize) = try r.readAttributeType("Attribute Group Type")
    }

    public func appendParameters(to bytes: inout [UInt8]) {
        bytes.append(le16: startingHandle)
        bytes.append(le16: endingHandle)
        bytes += attributeGroupType.wireBytes(attributeGroupTypeSize)
    }

    public var fields: [(String, String)] {
        [("Starting Handle", handleString(startingHandle)),
         ("Ending Handle", handleString(endingHandle)),
         ("Attribute Group Type", attributeGroupType.labelled)]
    }

    /// `Read By Group Type Request, Primary Service, Handles: 0x0001..0xFFFF`.
    public var summary: String {
        "\(Self.opcode.name), \(attributeGroupType.nameOrString), Handles: \(handleString(startingHandle))..\(handleString(endingHandle))"
    }
}
