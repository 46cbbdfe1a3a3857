import BLECore

/// Handle Value Notification: a server-initiated value, not acknowledged (Core v5.4 Vol 3 Part F 3.4.7.1).
///
/// Wire layout: `1B | Attribute Handle (2, LE) | Attribute Value (rest of the PDU)`.
public struct ATTHandleValueNotification: ATTHandleValueLayout {
    public static let opcode = ATTOpcode.handleValueNotification
    public var attributeHandle: UInt16
    public var attributeValue: [UInt8]

    public init(attributeHandle: UInt16, attributeValue: [UInt8]) {
        self.attributeHandle = attributeHandle
        self.attributeValue = attributeValue
    }
}
