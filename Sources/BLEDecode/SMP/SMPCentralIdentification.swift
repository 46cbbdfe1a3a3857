import BLECore

/// Central Identification (formerly Master Identification): EDIV and Rand that identify the
/// distributed LTK (Core v5.4 Vol 3 Part H 3.6.3).
///
/// Wire layout: `07 | EDIV (2, LE) | Rand (8, LE)`. Key material: redacted unless asked for.
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
        if keepKeys { return [("EDIV", hex(encryptedDiversifier, width: 4)), ("Rand", hex(randomNumber, width: 16))] }
        var ediv: [UInt8] = [], rand: [UInt8] = []
        ediv.append(le16: encryptedDiversifier)
        rand.append(le64: randomNumber)
        return [("EDIV", keyText(ediv, keepKeys: false)), ("Rand", keyText(rand, keepKeys: false))]
    }

    /// `Central Identification: EDIV: <redacted 2 bytes>, Rand: <redacted 8 bytes>`.
    public func summary(keepKeys: Bool) -> String {
        "\(Self.code.name): " + fields(keepKeys: keepKeys).map { "\($0.0): \($0.1)" }.joined(separator: ", ")
    }
}
