import BLECore

// STUB: replaced by the ATT work. Public API contract below must stay.

/// An ATT PDU.
public enum ATTPDU: Sendable {
    case unknown(opcode: ATTOpcode, parameters: [UInt8])

    /// Decodes a whole PDU (opcode first). Offsets in errors are `baseOffset` + position.
    public init(decoding bytes: ArraySlice<UInt8>, baseOffset: Int = 0) throws(DecodeError) {
        var r = ByteReader(bytes, baseOffset: baseOffset, layer: .att)
        let op = try r.readUInt8("ATT opcode")
        self = .unknown(opcode: ATTOpcode(rawValue: op), parameters: Array(r.readRemaining()))
    }

    public var opcode: ATTOpcode {
        switch self { case .unknown(let o, _): o }
    }
    /// The attribute handle the PDU concerns; for an Error Response, the handle in error.
    public var attributeHandle: UInt16? { nil }
    /// For an Error Response: the error code.
    public var errorCode: ATTErrorCode? { nil }
    /// The attribute value carried (read response, write, notification), if any.
    public var value: [UInt8]? { nil }
    public var summary: String { opcode.name }
    /// Field name -> value, in wire order (for verbose output).
    public var fields: [(String, String)] { [] }
    public func encoded() -> [UInt8] {
        switch self { case .unknown(let o, let p): [o.rawValue] + p }
    }
}
