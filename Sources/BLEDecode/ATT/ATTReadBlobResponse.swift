import BLECore

/// Read Blob Response: part of a long attribute value, from the requested offset (Core v5.4 Vol 3 Part F 3.4.4.6).
///
/// Wire layout: `0D | Part Attribute Value (rest of the PDU, 0 to ATT_MTU-1)`.
public struct ATTReadBlobResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.readBlobResponse
    public var partAttributeValue: [UInt8]

    public init(partAttributeValue: [UInt8]) { self.partAttributeValue = partAttributeValue }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        partAttributeValue = Array(r.readRemaining())
    }

    public func appendParameters(to bytes: inout [UInt8]) { bytes += partAttributeValue }

    public var fields: [(String, String)] { [("Part Attribute Value", hexString(partAttributeValue))] }

    /// `Read Blob Response` (as Wireshark without the GATT context: the value is in `fields`).
    public var summary: String { Self.opcode.name }
}
