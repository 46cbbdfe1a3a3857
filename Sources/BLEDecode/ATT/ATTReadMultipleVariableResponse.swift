import BLECore

/// Read Multiple Variable Response: values each preceded by its length
/// (Core v5.4 Vol 3 Part F 3.4.4.12).
///
/// Wire layout: `21 | Length Value Tuple List`, each tuple `Value Length (2, LE) |
/// Attribute Value (Value Length)`. When the tuples exceed ATT_MTU-1 the server cuts the
/// PDU, so the last value may be shorter than its Value Length: that is kept, not an error.
public struct ATTReadMultipleVariableResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.readMultipleVariableResponse

    /// One value and the length the server declared for it.
    public struct LengthValue: Sendable, Hashable {
        /// The declared length; `value.count` is smaller only for a cut last tuple.
        public var valueLength: UInt16
        public var value: [UInt8]
        public init(valueLength: UInt16, value: [UInt8]) { self.valueLength = valueLength; self.value = value }
        /// A tuple whose length is the value's length.
        public init(value: [UInt8]) { self.init(valueLength: UInt16(clamping: value.count), value: value) }
        /// The value carries fewer bytes than declared (only the last tuple may).
        public var isCut: Bool { value.count < Int(valueLength) }
    }

    public var lengthValueTuples: [LengthValue]

    public init(lengthValueTuples: [LengthValue]) { self.lengthValueTuples = lengthValueTuples }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        var list: [LengthValue] = []
        while !r.isAtEnd {
            let length = try r.readUInt16(.little, "Value Length")
            let take = min(Int(length), r.remaining)
            let value = try r.readBytes(take, "Attribute Value")
            list.append(LengthValue(valueLength: length, value: Array(value)))
        }
        lengthValueTuples = list
    }

    public func appendParameters(to bytes: inout [UInt8]) {
        for tuple in lengthValueTuples {
            bytes.append(le16: tuple.valueLength)
            bytes += tuple.value
        }
    }

    public var fields: [(String, String)] {
        lengthValueTuples.map {
            ("Value (length \($0.valueLength))", hexString($0.value) + ($0.isCut ? " (cut at \($0.value.count) bytes)" : ""))
        }
    }

    /// `Read Multiple Variable Response, Values: 2`.
    public var summary: String { "\(Self.opcode.name), Values: \(lengthValueTuples.count)" }
}
