import BLECore

/// Pairing DHKey Check: Ea or Eb in LE Secure Connections (Core v5.4 Vol 3 Part H 3.5.7).
///
/// Wire layout: `0D | DHKey Check (16)`. Not key material (`SMPKeyMaterial`): a MAC under a key
/// derived from the DHKey, which it does not give away; shown.
public struct SMPPairingDHKeyCheck: SMPPDUBody {
    public static let code = SMPCode.pairingDHKeyCheck
    /// 16 bytes, in wire order (least significant byte first).
    public var dhKeyCheck: [UInt8]

    public init(dhKeyCheck: [UInt8]) { self.dhKeyCheck = dhKeyCheck }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        dhKeyCheck = Array(try r.readBytes(16, "DHKey Check"))
    }

    public func appendParameters(to bytes: inout [UInt8]) { bytes += dhKeyCheck }

    public func fields(keepKeys: Bool) -> [(String, String)] { [("DHKey Check", hexString(dhKeyCheck))] }

    /// `\(name): DHKey Check: 000102…`, in wire order.
    public func summary(keepKeys: Bool) -> String {
        "\(Self.code.name): DHKey Check: \(hexString(dhKeyCheck))"
    }
}
