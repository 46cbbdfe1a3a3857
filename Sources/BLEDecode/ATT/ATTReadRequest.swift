import BLECore

/// Read Request: read an attribute's value (Core v5.4 Vol 3 Part F 3.4.4.3).
///
/// Wire layout: `0A | Attribute Handle (2, LE)`.
public struct ATTReadRequest: ATTPDUBody {
    public static let opcode = ATTOpcode.readRequest
    public var attributeHandle: UInt16

    public init(attributeHandle: UInt16) { self.attributeHandle = attributeHandle }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        attributeHandle = try r.readUInt16(.little, "Attribute Handle")
    }

    public func appendParameters(to bytes: inout [UInt8]) { bytes.append(le16: attributeHandle) }

    public var fields: [(String, String)] { [("Attribute Handle", handleString(attributeHandle))] }

    /// `Read Request, Handle: 0x0003`.
    public var summary: String { "\(Self.opcode.name), Handle: \(handleString(attributeHandle))" }
}
