import BLECore

/// Encryption Information: the distributed LTK (Core v5.4 Vol 3 Part H 3.6.2).
///
/// Wire layout: `06 | Long Term Key (16)`. Key material: redacted unless asked for.
public struct SMPEncryptionInformation: SMPPDUBody {
    public static let code = SMPCode.encryptionInformation
    /// 16 bytes, in wire order (least significant byte first).
    public var longTermKey: [UInt8]

    public init(longTermKey: [UInt8]) { self.longTermKey = longTermKey }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        longTermKey = Array(try r.readBytes(16, "Long Term Key"))
    }

    public func appendParameters(to bytes: inout [UInt8]) { bytes += longTermKey }

    public func fields(keepKeys: Bool) -> [(String, String)] { [("LTK", keyText(longTermKey, keepKeys: keepKeys))] }

    /// `\(name): LTK: <redacted 16 bytes>`.
    public func summary(keepKeys: Bool) -> String {
        "\(Self.code.name): LTK: \(keyText(longTermKey, keepKeys: keepKeys))"
    }
}
