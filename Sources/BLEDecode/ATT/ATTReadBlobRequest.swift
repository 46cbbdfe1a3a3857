import BLECore

/// Read Blob Request: read part of a long value from an offset (Core v5.4 Vol 3 Part F 3.4.4.5).
///
/// Wire layout: `0C | Attribute Handle (2, LE) | Value Offset (2, LE)`.
public struct ATTReadBlobRequest: ATTPDUBody {
    public static let opcode = ATTOpcode.readBlobRequest
    public var attributeHandle: UInt16
    public var valueOffset: UInt16

    public init(attributeHandle: UInt16, valueOffset: UInt16) {
        self.attributeHandle = attributeHandle
        self.valueOffset = valueOffset
    }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        attributeHandle = try r.readUInt16(.little, "Attribute Handle")
        valueOffset = try r.readUInt16(.little, "Value Offset")
    }

    public func appendParameters(to bytes: inout [UInt8]) {
        bytes.append(le16: attributeHandle)
        bytes.append(le16: valueOffset)
    }

    public var fields: [(String, String)] {
        [("Attribute Handle", handleString(attributeHandle)), ("Value Offset", String(valueOffset))]
    }

    /// `Read Blob Request, Handle: 0x0003, Offset: 22`.
    public var summary: String {
        "\(Self.opcode.name), Handle: \(handleString(attributeHandle)), Offset: \(valueOffset)"
    }
}
