import BLECore

/// Signing Information: the distributed CSRK (Core v5.4 Vol 3 Part H 3.6.6).
///
/// Wire layout: `0A | Signature Key (16)`. Key material: redacted unless asked for.
public struct SMPSigningInformation: SMPPDUBody {
    public static let code = SMPCode.signingInformation
    /// 16 bytes, in wire order (least significant byte first).
    public var signatureKey: [UInt8]

    public init(signatureKey: [UInt8]) { self.signatureKey = signatureKey }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        signatureKey = Array(try r.readBytes(16, "Signature Key"))
    }

    public func appendParameters(to bytes: inout [UInt8]) { bytes += signatureKey }

    public func fields(keepKeys: Bool) -> [(String, String)] { [("CSRK", keyText(signatureKey, keepKeys: keepKeys))] }

    /// `\(name): CSRK: <redacted 16 bytes>`.
    public func summary(keepKeys: Bool) -> String {
        "\(Self.code.name): CSRK: \(keyText(signatureKey, keepKeys: keepKeys))"
    }
}
