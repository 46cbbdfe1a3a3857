import BLECore

/// Read By Type Response: handle-value pairs of equal length (Core v5.4 Vol 3 Part F 3.4.4.2).
///
/// Wire layout: `09 | Length (1) | Attribute Data List`, each entry `Attribute Handle (2, LE) |
/// Attribute Value (Length - 2)`. Length is at least 2; at least one entry; the list must
/// divide into whole entries.
public struct ATTReadByTypeResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.readByTypeResponse

    /// One attribute read: its handle and (possibly cut) value.
    public struct AttributeData: Sendable, Hashable {
        public var handle: UInt16
        public var value: [UInt8]
        public init(handle: UInt16, value: [UInt8]) { self.handle = handle; self.value = value }
    }

    /// The Length field: the size of each entry. When building a PDU, every value must have
    /// `length - 2` bytes.
    public var length: UInt8
    public var attributeDataList: [AttributeData]

    /// A response whose Length is derived from the first entry.
    public init(attributeDataList: [AttributeData]) {
        self.attributeDataList = attributeDataList
        self.length = UInt8(clamping: 2 + (attributeDataList.first?.value.count ?? 0))
    }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        let lengthOffset = r.absoluteOffset
        length = try r.readUInt8("Length")
        guard length >= 2 else {
            throw DecodeError(layer: r.layer, offset: lengthOffset, kind: .malformed,
                              reason: "Length \(length) is less than 2 (handle plus value)")
        }
        let entrySize = Int(length)
        var list: [AttributeData] = []
        // At least one entry: the first read reports what is missing.
        repeat {
            let handle = try r.readUInt16(.little, "Attribute Handle (entries are \(entrySize) bytes)")
            let value = try r.readBytes(entrySize - 2, "Attribute Value (entries are \(entrySize) bytes)")
            list.append(AttributeData(handle: handle, value: Array(value)))
        } while !r.isAtEnd
        attributeDataList = list
    }

    public func appendParameters(to bytes: inout [UInt8]) {
        bytes.append(length)
        for entry in attributeDataList {
            bytes.append(le16: entry.handle)
            bytes += entry.value
        }
    }

    public var fields: [(String, String)] {
        [("Length", String(length))]
            + attributeDataList.map { ("Handle \(handleString($0.handle))", hexString($0.value)) }
    }

    /// `Read By Type Response, Attribute List Length: 2`.
    public var summary: String { "\(Self.opcode.name), Attribute List Length: \(attributeDataList.count)" }
}
