import BLECore

/// Read By Group Type Response: group ranges and values of equal length
/// (Core v5.4 Vol 3 Part F 3.4.4.10).
///
/// Wire layout: `11 | Length (1) | Attribute Data List`, each entry `Attribute Handle (2, LE) |
/// End Group Handle (2, LE) | Attribute Value (Length - 4)`. Length is at least 4; at least one
/// entry; the list must divide into whole entries.
public struct ATTReadByGroupTypeResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.readByGroupTypeResponse

    /// One group: its range and the value of the grouping attribute (a service UUID).
    public struct AttributeData: Sendable, Hashable {
        public var handle: UInt16
        public var endGroupHandle: UInt16
        public var value: [UInt8]
        public init(handle: UInt16, endGroupHandle: UInt16, value: [UInt8]) {
            self.handle = handle
            self.endGroupHandle = endGroupHandle
            self.value = value
        }
        /// The value read as a UUID when it has 2 or 16 bytes (primary/secondary services).
        public var uuid: BluetoothUUID? { value.count == 2 || value.count == 16 ? BluetoothUUID(littleEndian: value) : nil }
    }

    public var length: UInt8
    public var attributeDataList: [AttributeData]

    /// A response whose Length is derived from the first entry.
    public init(attributeDataList: [AttributeData]) {
        self.attributeDataList = attributeDataList
        self.length = UInt8(clamping: 4 + (attributeDataList.first?.value.count ?? 0))
    }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        let lengthOffset = r.absoluteOffset
        length = try r.readUInt8("Length")
        guard length >= 4 else {
            throw DecodeError(layer: r.layer, offset: lengthOffset, kind: .malformed,
                              reason: "Length \(length) is less than 4 (two handles plus value)")
        }
        let entrySize = Int(length)
        var list: [AttributeData] = []
        // At least one entry: the first read reports what is missing.
        repeat {
            let handle = try r.readUInt16(.little, "Attribute Handle (entries are \(entrySize) bytes)")
            let end = try r.readUInt16(.little, "End Group Handle (entries are \(entrySize) bytes)")
            let value = try r.readBytes(entrySize - 4, "Attribute Value (entries are \(entrySize) bytes)")
            list.append(AttributeData(handle: handle, endGroupHandle: end, value: Array(value)))
        } while !r.isAtEnd
        attributeDataList = list
    }

    public func appendParameters(to bytes: inout [UInt8]) {
        bytes.append(length)
        for entry in attributeDataList {
            bytes.append(le16: entry.handle)
            bytes.append(le16: entry.endGroupHandle)
            bytes += entry.value
        }
    }

    public var fields: [(String, String)] {
        [("Length", String(length))] + attributeDataList.map {
            ("Handles \(handleString($0.handle))..\(handleString($0.endGroupHandle))",
             $0.uuid?.labelled ?? hexString($0.value))
        }
    }

    /// `Read By Group Type Response, Attribute List Length: 3, Generic Attribute, Generic Access, 180A`:
    /// the group values read as UUIDs, named when the SIG names them.
    public var summary: String {
        ([Self.opcode.name, "Attribute List Length: \(attributeDataList.count)"]
            + attributeDataList.map { $0.uuid?.nameOrString ?? hexString($0.value) })
            .joined(separator: ", ")
    }
}
