import BLECore

/// Pairing Random: the nonce Mrand/Srand (legacy) or Na/Nb (Secure Connections) (Core v5.4 Vol 3 Part H 3.5.4).
///
/// Wire layout: `04 | Random Value (16)`. Key material: redacted unless asked for.
public struct SMPPairingRandom: SMPPDUBody {
    public static let code = SMPCode.pairingRandom
    /// 16 bytes, in wire order (least significant byte first).
    public var randomValue: [UInt8]

    public init(randomValue: [UInt8]) { self.randomValue = randomValue }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        randomValue = Array(try r.readBytes(16, "Random Value"))
    }

    public func appendParameters(to bytes: inout [UInt8]) { bytes += randomValue }

    public func fields(keepKeys: Bool) -> [(String, String)] { [("Random Value", keyText(randomValue, keepKeys: keepKeys))] }

    /// `\(name): Random Value: <redacted 16 bytes>`.
    public func summary(keepKeys: Bool) -> String {
        "\(Self.code.name): Random Value: \(keyText(randomValue, keepKeys: keepKeys))"
    }
}
