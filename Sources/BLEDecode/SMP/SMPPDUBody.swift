import BLECore

/// The parameters of one kind of SMP PDU: what follows the code octet
/// (Core v5.4 Vol 3 Part H 3.3). One conforming type per command.
public protocol SMPPDUBody: Sendable, Hashable {
    static var code: SMPCode { get }
    /// Decodes the parameters after the code. `SMPPDU` rejects bytes left unread.
    init(parameters reader: inout ByteReader) throws(DecodeError)
    /// Appends the parameters (not the code) in wire order.
    func appendParameters(to bytes: inout [UInt8])
    /// Decoded parameters, name -> value, in wire order; key material redacted unless `keepKeys`.
    func fields(keepKeys: Bool) -> [(String, String)]
    /// One line; key material redacted unless `keepKeys`.
    func summary(keepKeys: Bool) -> String
}

extension SMPPDUBody {
    /// The whole PDU: code, then parameters.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = [Self.code.rawValue]
        appendParameters(to: &out)
        return out
    }
}

/// Key material as shown to the user: hex in wire order when `keepKeys`, else
/// `<redacted 16 bytes>`. An all-zero value says so (`<redacted 16 bytes, all zero>`): a
/// zero key is a finding, not a secret.
func keyText(_ bytes: [UInt8], keepKeys: Bool) -> String {
    if keepKeys { return hexString(bytes) }
    if !bytes.isEmpty && bytes.allSatisfy({ $0 == 0 }) { return "<redacted \(bytes.count) bytes, all zero>" }
    return redacted(bytes.count)
}
