import BLECore

/// Prepare Write Response: the queued part, echoed back (Core v5.4 Vol 3 Part F 3.4.6.2).
///
/// Wire layout: `17 | Attribute Handle (2, LE) | Value Offset (2, LE) | Part Attribute Value (rest)`.
public struct ATTPrepareWriteResponse: ATTPreparedWriteLayout {
    public static let opcode = ATTOpcode.prepareWriteResponse
    public var attributeHandle: UInt16
    public var valueOffset: UInt16
    public var partAttributeValue: [UInt8]

    public init(attributeHandle: UInt16, valueOffset: UInt16, partAttributeValue: [UInt8]) {
        self.attributeHandle = attributeHandle
        self.valueOffset = valueOffset
        self.partAttributeValue = partAttributeValue
    }
}
