import BLECore

/// Read Response: the value of the attribute read (or its first ATT_MTU-1 bytes) (Core v5.4 Vol 3 Part F 3.4.4.4).
///
/// Wire layout: `0B | Attribute Value (rest of the PDU, 0 to ATT_MTU-1)`.
public struct ATTReadResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.readResponse
    public var attributeValue: [UInt8]

    public init(attributeValue: [UInt8]) { self.attributeValue = attributeValue }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        attributeValue = Array(r.readRemaining())
    }

    public func appendParameters(to bytes: inout [UInt8]) { bytes += attributeValue }

    public var fields: [(String, String)] { [("Attribute Value", hexString(attributeValue))] }

    /// `Read Response` (as Wireshark without the GATT context: the value is in `fields`).
    public var summary: String { Self.opcode.name }
}
