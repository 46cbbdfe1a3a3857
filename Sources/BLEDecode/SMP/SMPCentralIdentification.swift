import BLECore

/// Central Identification (formerly Master Identification): EDIV and Rand that identify the
/// distributed LTK (Core v5.4 Vol 3 Part H 3.6.3).
///
/// Wire layout: `07 | EDIV (2, LE) | Rand (8, LE)`. Not key material (`SMPKeyMaterial`): EDIV and
/// Rand name an LTK and travel in clear in every LL_ENC_REQ, so they are shown.
public struct SMPCentralIdentification: SMPPDUBody {
    public static let code = SMPCode.centralIdentification
    public var encryptedDiversifier: UInt16
    public var randomNumber: UInt64

    public init(encryptedDiversifier: UInt16, randomNumber: UInt64) {
        self.encryptedDiversifier = encryptedDiversifier
        self.randomNumber = randomNumber
    }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        encryptedDiversifier = try r.readUInt16(.little, "EDIV")
        randomNumber = try r.readUInt64(.little, "Rand")
    }

    public func appendParameters(to bytes: inout [UInt8]) {
        bytes.append(le16: encryptedDiversifier)
        bytes.append(le64: randomNumber)
    }

    public func fields(keepKeys: Bool) -> [(String, String)] {
        [("EDIV", hex(encryptedDiversifier, width: 4)), ("Rand", hex(randomNumber, width: 16))]
    }

    /// `Central Identification: EDIV: 0x8A29, Rand: 0xCC3088CC2111A724`.
    public func summary(keepKeys: Bool) -> String {
        "\(Self.code.name): " + fields(keepKeys: keepKeys).map { "\($0.0): \($0.1)" }.joined(separator: ", ")
    }
}
