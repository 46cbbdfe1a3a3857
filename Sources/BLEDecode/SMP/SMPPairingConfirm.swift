import BLECore

/// Pairing Confirm: the commitment Mconfirm or Sconfirm (Core v5.4 Vol 3 Part H 3.5.3).
///
/// Wire layout: `03 | Confirm Value (16)`. Key material: redacted unless asked for.
public struct SMPPairingConfirm: SMPPDUBody {
    public static let code = SMPCode.pairingConfirm
    /// 16 bytes, in wire order (least significant byte first).
    public var confirmValue: [UInt8]

    public init(confirmValue: [UInt8]) { self.confirmValue = confirmValue }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        confirmValue = Array(try r.readBytes(16, "Confirm Value"))
    }

    public func appendParameters(to bytes: inout [UInt8]) { bytes += confirmValue }

    public func fields(keepKeys: Bool) -> [(String, String)] { [("Confirm Value", keyText(confirmValue, keepKeys: keepKeys))] }

    /// `\(name): Confirm Value: <redacted 16 bytes>`.
    public func summary(keepKeys: Bool) -> String {
        "\(Self.code.name): Confirm Value: \(keyText(confirmValue, keepKeys: keepKeys))"
    }
}
