import BLECore

/// Multiple Handle Value Notification: several notified values in one PDU
/// (Core v5.4 Vol 3 Part F 3.4.7.4).
///
/// Wire layout: `23 | Handle Length Value Tuple List`, each tuple `Attribute Handle (2, LE) |
/// Value Length (2, LE) | Attribute Value (Value Length)`. The spec asks for two or more
/// tuples; one is accepted. Every tuple must be whole.
public struct ATTMultipleHandleValueNotification: ATTPDUBody {
    public static let opcode = ATTOpcode.multipleHandleValueNotification

    /// One notified value.
    public struct HandleValue: Sendable, Hashable {
        public var attributeHandle: UInt16
        public var value: [UInt8]
        public init(attributeHandle: UInt16, value: [UInt8]) {
            self.attributeHandle = attributeHandle
            self.value = value
        }
    }

    public var handleValueTuples: [HandleValue]

    public init(handleValueTuples: [HandleValue]) { self.handleValueTuples = handleValueTuples }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        var list: [HandleValue] = []
        // At least one entry: the first read reports what is missing.
        repeat {
            let handle = try r.readUInt16(.little, "Attribute Handle")
            let length = try r.readUInt16(.little, "Value Length")
            let value = try r.readBytes(Int(length), "Attribute Value (Value Length \(length))")
            list.append(HandleValue(attributeHandle: handle, value: Array(value)))
        } while !r.isAtEnd
        handleValueTuples = list
    }

    /// Values longer than 65535 bytes cannot be expressed; they are written with a clamped length.
    public func appendParameters(to bytes: inout [UInt8]) {
        for tuple in handleValueTuples {
            bytes.append(le16: tuple.attributeHandle)
            bytes.append(le16: UInt16(clamping: tuple.value.count))
            bytes += tuple.value
        }
    }

    public var fields: [(String, String)] {
        handleValueTuples.map { ("Handle \(handleString($0.attributeHandle))", hexString($0.value)) }
    }

    /// `Multiple Handle Value Notification, Handles: 0x0025, 0x0029`.
    public var summary: String {
        "\(Self.opcode.name), Handles: " + handleValueTuples.map { handleString($0.attributeHandle) }.joined(separator: ", ")
    }
}
