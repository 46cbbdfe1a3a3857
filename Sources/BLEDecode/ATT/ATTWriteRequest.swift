import BLECore

/// Write Request: write a value, acknowledged by a Write Response (Core v5.4 Vol 3 Part F 3.4.5.1).
///
/// Wire layout: `12 | Attribute Handle (2, LE) | Attribute Value (rest of the PDU)`.
public struct ATTWriteRequest: ATTHandleValueLayout {
    public static let opcode = ATTOpcode.writeRequest
    public var attributeHandle: UInt16
    public var attributeValue: [UInt8]

    public init(attributeHandle: UInt16, attributeValue: [UInt8]) {
        self.attributeHandle = attributeHandle
        self.attributeValue = attributeValue
    }
}
