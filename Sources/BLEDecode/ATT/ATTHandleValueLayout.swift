import BLECore

/// The parameters four PDUs share (Core v5.4 Vol 3 Part F): `Attribute Handle (2, LE) |
/// Attribute Value (rest of the PDU)`: Write Request (3.4.5.1), Write Command (3.4.5.3),
/// Handle Value Notification (3.4.7.1) and Handle Value Indication (3.4.7.2). Each PDU is its
/// own type with its opcode; decoding, encoding, fields and summary are written once here.
public protocol ATTHandleValueLayout: ATTPDUBody {
    var attributeHandle: UInt16 { get }
    var attributeValue: [UInt8] { get }
    init(attributeHandle: UInt16, attributeValue: [UInt8])
}

extension ATTHandleValueLayout {
    public init(parameters r: inout ByteReader) throws(DecodeError) {
        let handle = try r.readUInt16(.little, "Attribute Handle")
        self.init(attributeHandle: handle, attributeValue: Array(r.readRemaining()))
    }

    public func appendParameters(to bytes: inout [UInt8]) {
        bytes.append(le16: attributeHandle)
        bytes += attributeValue
    }

    public var fields: [(String, String)] {
        [("Attribute Handle", handleString(attributeHandle)), ("Attribute Value", hexString(attributeValue))]
    }

    /// `Write Request, Handle: 0x0021`.
    public var summary: String { "\(Self.opcode.name), Handle: \(handleString(attributeHandle))" }
}

/// The parameters of Prepare Write Request (3.4.6.1) and Prepare Write Response (3.4.6.2), which
/// echoes the request: `Attribute Handle (2, LE) | Value Offset (2, LE) | Part Attribute Value (rest)`.
public protocol ATTPreparedWriteLayout: ATTPDUBody {
    var attributeHandle: UInt16 { get }
    var valueOffset: UInt16 { get }
    var partAttributeValue: [UInt8] { get }
    init(attributeHandle: UInt16, valueOffset: UInt16, partAttributeValue: [UInt8])
}

extension ATTPreparedWriteLayout {
    public init(parameters r: inout ByteReader) throws(DecodeError) {
        let handle = try r.readUInt16(.little, "Attribute Handle")
        let offset = try r.readUInt16(.little, "Value Offset")
        self.init(attributeHandle: handle, valueOffset: offset, partAttributeValue: Array(r.readRemaining()))
    }

    public func appendParameters(to bytes: inout [UInt8]) {
        bytes.append(le16: attributeHandle)
        bytes.append(le16: valueOffset)
        bytes += partAttributeValue
    }

    public var fields: [(String, String)] {
        [("Attribute Handle", handleString(attributeHandle)),
         ("Value Offset", String(valueOffset)),
         ("Part Attribute Value", hexString(partAttributeValue))]
    }

    /// `Prepare Write Request, Handle: 0x0021, Offset: 18`.
    public var summary: String {
        "\(Self.opcode.name), Handle: \(handleString(attributeHandle)), Offset: \(valueOffset)"
    }
}
