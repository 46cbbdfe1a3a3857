import BLECore

/// The parameters of one kind of ATT PDU: what follows the opcode octet
/// (Core v5.4 Vol 3 Part F 3.3.1). One conforming struct per PDU, each in its own file.
public protocol ATTPDUBody: Sendable, Hashable {
    /// The opcode that introduces this PDU.
    static var opcode: ATTOpcode { get }
    /// Decodes the parameters after the opcode. `ATTPDU` rejects bytes left unread.
    init(parameters reader: inout ByteReader) throws(DecodeError)
    /// Appends the parameters (not the opcode) in wire order.
    func appendParameters(to bytes: inout [UInt8])
    /// Decoded parameters, name -> value, in wire order (the opcode is not included).
    var fields: [(String, String)] { get }
    /// One line, as Wireshark's Info column shows it (without the GATT context).
    var summary: String { get }
}

extension ATTPDUBody {
    /// Decodes a whole PDU that must carry `Self.opcode` (opcode first).
    public init(decoding bytes: ArraySlice<UInt8>, baseOffset: Int = 0) throws(DecodeError) {
        var reader = ByteReader(bytes, baseOffset: baseOffset, layer: .att)
        let start = reader.absoluteOffset
        let op = ATTOpcode(try reader.readUInt8("ATT opcode"))
        guard op == Self.opcode else {
            throw DecodeError(layer: .att, offset: start, kind: .malformed,
                              reason: "expected \(Self.opcode.name) (\(hex(Self.opcode.rawValue))), got \(op.name)")
        }
        self = try Self(parameters: &reader)
        try reader.expectEnd(Self.opcode.name)
    }

    /// The whole PDU: opcode, then parameters.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = [Self.opcode.rawValue]
        appendParameters(to: &out)
        return out
    }
}
