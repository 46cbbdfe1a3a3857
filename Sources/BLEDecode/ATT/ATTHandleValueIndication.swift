import BLECore

/// Handle Value Indication: a server-initiated value the client must confirm (Core v5.4 Vol 3 Part F 3.4.7.2).
///
/// Wire layout: `1D | Attribute Handle (2, LE) | Attribute Value (rest of the PDU)`.
public struct ATTHandleValueIndication: ATTPDUBody {
    public static let opcode = ATTOpcode.handleValueIndication
    public var attributeHandle: UInt16
    public var attributeValue: [UInt8]

    public init(attributeHandle: UInt16, attributeValue: [UInt8]) {
        self.attributeHandle = attributeHandle
        self.attributeValue = attributeValue
    }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        attributeHandle = try r.readUInt16(.little, "Attribute Handle")
        attributeValue = Array(r.readRemaining())
    }

    public func appendParameters(to bytes: inout [UInt8]) {
        bytes.append(le16: attributeHandle)
        bytes += attributeValue
    }

    public var fields: [(String, String)] {
        [("Attribute Handle", handleString(attributeHandle)), ("Attribute Value", hexString(attributeValue))]
    }

    /// `Handle Value Indication, Handle: 0x0021`.
    public var summary: String { "\(Self.opcode.name), Handle: \(handleString(attributeHandle))" }
}
