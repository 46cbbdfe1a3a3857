import BLECore

/// Identity Information: the distributed IRK (Core v5.4 Vol 3 Part H 3.6.4).
///
/// Wire layout: `08 | Identity Resolving Key (16)`. Key material: redacted unless asked for.
public struct SMPIdentityInformation: SMPPDUBody {
    public static let code = SMPCode.identityInformation
    /// 16 bytes, in wire order (least significant byte first).
    public var identityResolvingKey: [UInt8]

    public init(identityResolvingKey: [UInt8]) { self.identityResolvingKey = identityResolvingKey }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        identityResolvingKey = Array(try r.readBytes(16, "Identity Resolving Key"))
    }

    public func appendParameters(to bytes: inout [UInt8]) { bytes += identityResolvingKey }

    public func fields(keepKeys: Bool) -> [(String, String)] { [("IRK", keyText(identityResolvingKey, keepKeys: keepKeys))] }

    /// `\(name): IRK: <redacted 16 bytes>`.
    public func summary(keepKeys: Bool) -> String {
        "\(Self.code.name): IRK: \(keyText(identityResolvingKey, keepKeys: keepKeys))"
    }
}
