import BLECore

/// Pairing Failed: pairing stopped, with a reason (Core v5.4 Vol 3 Part H 3.5.5).
///
/// Wire layout: `05 | Reason (1)`.
public struct SMPPairingFailed: SMPPDUBody {
    public static let code = SMPCode.pairingFailed
    public var reason: SMPPairingFailedReason

    public init(reason: SMPPairingFailedReason) { self.reason = reason }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        reason = SMPPairingFailedReason(try r.readUInt8("Reason"))
    }

    public func appendParameters(to bytes: inout [UInt8]) { bytes.append(reason.rawValue) }

    public func fields(keepKeys: Bool) -> [(String, String)] { [("Reason", reason.description)] }

    /// `Pairing Failed: Confirm Value Failed`.
    public func summary(keepKeys: Bool) -> String { "\(Self.code.name): \(reason.name)" }
}
