import BLECore

/// Prepare Write Request: queue part of a long write (Core v5.4 Vol 3 Part F 3.4.6.1).
///
/// Wire layout: `16 | Attribute Handle (2, LE) | Value Offset (2, LE) | Part Attribute Value (rest)`.
public struct ATTPrepareWriteRequest: ATTPreparedWriteLayout {
    public static let opcode = ATTOpcode.prepareWriteRequest
    public var attributeHandle: UInt16
    public var valueOffset: UInt16
    public var partAttributeValue: [UInt8]

    public init(attributeHandle: UInt16, valueOffset: UInt16, partAttributeValue: [UInt8]) {
        self.attributeHandle = attributeHandle
        self.valueOffset = valueOffset
        self.partAttributeValue = partAttributeValue
    }
}
