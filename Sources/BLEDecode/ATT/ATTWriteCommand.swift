import BLECore

/// Write Command: write a value without acknowledgement (Core v5.4 Vol 3 Part F 3.4.5.3).
///
/// Wire layout: `52 | Attribute Handle (2, LE) | Attribute Value (rest of the PDU)`.
public struct ATTWriteCommand: ATTHandleValueLayout {
    public static let opcode = ATTOpcode.writeCommand
    public var attributeHandle: UInt16
    public var attributeValue: [UInt8]

    public init(attributeHandle: UInt16, attributeValue: [UInt8]) {
        self.attributeHandle = attributeHandle
        self.attributeValue = attributeValue
    }
}
