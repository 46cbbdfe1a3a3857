import BLECore

/// Handle Value Indication: a server-initiated value the client must confirm (Core v5.4 Vol 3 Part F 3.4.7.2).
///
/// Wire layout: `1D | Attribute Handle (2, LE) | Attribute Value (rest of the PDU)`.
public struct ATTHandleValueIndication: ATTHandleValueLayout {
    public static let opcode = ATTOpcode.handleValueIndication
    public var attributeHandle: UInt16
    public var attributeValue: [UInt8]

    public init(attributeHandle: UInt16, attributeValue: [UInt8]) {
        self.attributeHandle = attributeHandle
        self.attributeValue = attributeValue
    }
}
