import BLECore

/// Security Request: the peripheral asks the central to pair or encrypt
/// (Core v5.4 Vol 3 Part H 3.6.7).
///
/// Wire layout: `0B | AuthReq (1)`.
public struct SMPSecurityRequest: SMPPDUBody {
    public static let code = SMPCode.securityRequest
    public var authenticationRequirements: SMPAuthenticationRequirements

    public init(authenticationRequirements: SMPAuthenticationRequirements) {
        self.authenticationRequirements = authenticationRequirements
    }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        authenticationRequirements = SMPAuthenticationRequirements(rawValue: try r.readUInt8("AuthReq"))
    }

    public func appendParameters(to bytes: inout [UInt8]) { bytes.append(authenticationRequirements.rawValue) }

    public func fields(keepKeys: Bool) -> [(String, String)] {
        [("AuthReq", "\(hex(authenticationRequirements.rawValue)) \(authenticationRequirements)")]
    }

    /// `Security Request: AuthReq: Bonding, SecureConnection`.
    public func summary(keepKeys: Bool) -> String { "\(Self.code.name): AuthReq: \(authenticationRequirements)" }
}
