import BLECore

/// Pairing Public Key: a P-256 public key for LE Secure Connections (Core v5.4 Vol 3 Part H 3.5.6).
///
/// Wire layout: `0C | Public Key X (32, LE) | Public Key Y (32, LE)`. Public, and kept in the raw
/// bytes, unless the pairing uses the debug key (`SMPKeyMaterial`); summaries never print it:
/// the first key of a pairing is summarised before a debug key can show up in the second.
public struct SMPPairingPublicKey: SMPPDUBody {
    public static let code = SMPCode.pairingPublicKey
    /// 32 bytes each, in wire order.
    public var x: [UInt8]
    public var y: [UInt8]

    public init(x: [UInt8], y: [UInt8]) { self.x = x; self.y = y }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        x = Array(try r.readBytes(32, "Public Key X"))
        y = Array(try r.readBytes(32, "Public Key Y"))
    }

    public func appendParameters(to bytes: inout [UInt8]) { bytes += x; bytes += y }

    public func fields(keepKeys: Bool) -> [(String, String)] {
        [("Public Key X", keyText(x, keepKeys: keepKeys)), ("Public Key Y", keyText(y, keepKeys: keepKeys))]
    }

    /// `Pairing Public Key: <redacted 64 bytes>`.
    public func summary(keepKeys: Bool) -> String { "\(Self.code.name): \(keyText(x + y, keepKeys: keepKeys))" }
}
