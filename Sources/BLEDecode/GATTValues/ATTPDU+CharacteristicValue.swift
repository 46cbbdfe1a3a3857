extension ATTPDU {
    /// The whole value of one characteristic, where the PDU carries one: Read Response, Write
    /// Request, Write Command, Signed Write Command, Handle Value Notification and Indication.
    /// Nil for parts (Read Blob, prepared writes) and for several values run together (Read
    /// Multiple), which no value layout can be applied to alone.
    public var characteristicValue: [UInt8]? {
        switch self {
        case .readResponse(let p): p.attributeValue
        case .writeRequest(let p): p.attributeValue
        case .writeCommand(let p): p.attributeValue
        case .signedWriteCommand(let p): p.attributeValue
        case .handleValueNotification(let p): p.attributeValue
        case .handleValueIndication(let p): p.attributeValue
        default: nil
        }
    }
}
