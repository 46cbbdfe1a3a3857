import BLECore

/// Signed Write Command: a write without response carrying a CSRK signature
/// (Core v5.4 Vol 3 Part F 3.4.5.4; signature in Vol 3 Part H 2.4.5).
///
/// Wire layout: `D2 | Attribute Handle (2, LE) | Attribute Value (0 to ATT_MTU-15) |
/// Authentication Signature (12)`. The signature is the last 12 bytes.
public struct ATTSignedWriteCommand: ATTPDUBody {
    public static let opcode = ATTOpcode.signedWriteCommand
    public static let signatureLength = 12

    public var attributeHandle: UInt16
    public var attributeValue: [UInt8]
    /// 12 bytes: the 4-byte SignCounter then the 8-byte MAC.
    public var authenticationSignature: [UInt8]

    public init(attributeHandle: UInt16, attributeValue: [UInt8], authenticationSignature: [UInt8]) {
        self.attributeHandle = attributeHandle
        self.attributeValue = attributeValue
        self.authenticationSignature = authenticationSignature
    }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        attributeHandle = try r.readUInt16(.little, "Attribute Handle")
        try r.require(Self.signatureLength, "Authentication Signature (12 bytes at the end)")
        attributeValue = Array(try r.readBytes(r.remaining - Self.signatureLength, "Attribute Value"))
        authenticationSignature = Array(try r.readBytes(Self.signatureLength, "Authentication Signature"))
    }

    public func appendParameters(to bytes: inout [UInt8]) {
        bytes.append(le16: attributeHandle)
        bytes += attributeValue
        bytes += authenticationSignature
    }

    public var fields: [(String, String)] {
        [("Attribute Handle", handleString(attributeHandle)),
         ("Attribute Value", hexString(attributeValue)),
         ("Authentication Signature", hexString(authenticationSignature))]
    }

    /// `Signed Write Command, Handle: 0x0021`.
    public var summary: String { "\(Self.opcode.name), Handle: \(handleString(attributeHandle))" }
}
