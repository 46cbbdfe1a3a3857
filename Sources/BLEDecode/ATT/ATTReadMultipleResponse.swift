import BLECore

/// Read Multiple Response: the requested values concatenated; only the last may be cut short (Core v5.4 Vol 3 Part F 3.4.4.8).
///
/// Wire layout: `0F | Set Of Values (rest of the PDU, 0 to ATT_MTU-1)`.
public struct ATTReadMultipleResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.readMultipleResponse
    public var setOfValues: [UInt8]

    public init(setOfValues: [UInt8]) { self.setOfValues = setOfValues }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        setOfValues = Array(r.readRemaining())
    }

    public func appendParameters(to bytes: inout [UInt8]) { bytes += setOfValues }

    public var fields: [(String, String)] { [("Set Of Values", hexString(setOfValues))] }

    /// `Read Multiple Response` (as Wireshark without the GATT context: the value is in `fields`).
    public var summary: String { Self.opcode.name }
}
