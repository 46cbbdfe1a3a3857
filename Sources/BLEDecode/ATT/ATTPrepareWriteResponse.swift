import BLECore

/// Prepare Write Response: the queued part, echoed back (Core v5.4 Vol 3 Part F 3.4.6.2).
///
/// Wire layout: `17 | Attribute Handle (2, LE) | Value Offset (2, LE) | Part Attribute Value (rest)`.
public struct ATTPrepareWriteResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.prepareWriteResponse
    public var attributeHandle: UInt16
    public var valueOffset: UInt16
    public var partAttributeValue: [UInt8]

    public init(attributeHandle: UInt16, valueOffset: UInt16, partAttributeValue: [UInt8]) {
        self.attributeHandle = attributeHandle
        self.valueOffset = valueOffset
        self.partAttributeValue = partAttributeValue
    }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        attributeHandle = try r.readUInt16(.little, "Attribute Handle")
        valueOffset = try r.readUInt16(.little, "Value Offset")
        partAttributeValue = Array(r.readRemaining())
    }

    public func appendParameters(to bytes: inout [UInt8]) {
        bytes.append(le16: attributeHandle)
        bytes.append(le16: valueOffset)
        bytes += partAttributeValue
    }

    public var fields: [(String, String)] {
        [("Attribute Handle", handleString(attributeHandle)),
         ("Value Offset", String(valueOffset)),
         ("Part Attribute Value", hexString(partAttributeValue))]
    }

    /// `Prepare Write Response, Handle: 0x0021, Offset: 18`.
    public var summary: String {
        "\(Self.opcode.name), Handle: \(handleString(attributeHandle)), Offset: \(valueOffset)"
    }
}
