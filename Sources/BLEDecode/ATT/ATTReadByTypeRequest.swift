import BLECore

/// Read By Type Request: read attributes of a type in a range (Core v5.4 Vol 3 Part F 3.4.4.1).
/// Used for characteristic and include discovery.
///
/// Wire layout: `08 | Starting Handle (2, LE) | Ending Handle (2, LE) | Attribute Type (2 or 16, LE)`.
public struct ATTReadByTypeRequest: ATTPDUBody {
    public static let opcode = ATTOpcode.readByTypeRequest
    public var startingHandle: UInt16
    public var endingHandle: UInt16
    public var attributeType: BluetoothUUID
    /// The size the type was (or will be) sent in; 16-bit SIG UUIDs may also be sent in full.
    public var attributeTypeSize: UUIDWireSize

    public init(startingHandle: UInt16, endingHandle: UInt16, attributeType: BluetoothUUID,
                attributeTypeSize: UUIDWireSize? = nil) {
        self.startingHandle = startingHandle
        self.endingHandle = endingHandle
        self.attributeType = attributeType
        self.attributeTypeSize = attributeTypeSize ?? .shortest(for: attributeType)
    }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        startingHandle = try r.readUInt16(.little, "Starting Handle")
        endingHandle = try r.readUInt16(.little, "Ending Handle")
        (attributeType, attributeTypeSize) = try r.readAttributeType()
    }

    public func appendParameters(to bytes: inout [UInt8]) {
        bytes.append(le16: startingHandle)
        bytes.append(le16: endingHandle)
        bytes += attributeType.wireBytes(attributeTypeSize)
    }

    public var fields: [(String, String)] {
        [("Starting Handle", handleString(startingHandle)),
         ("Ending Handle", handleString(endingHandle)),
         ("Attribute Type", attributeType.labelled)]
    }

    /// `Read By Type Request, Characteristic, Handles: 0x0001..0xFFFF`.
    public var summary: String {
        "\(Self.opcode.name), \(attributeType.nameOrString), Handles: \(handleString(startingHandle))..\(handleString(endingHandle))"
    }
}
