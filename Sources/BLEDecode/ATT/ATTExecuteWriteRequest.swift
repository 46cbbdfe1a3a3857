import BLECore

/// Execute Write Request: write or cancel the queued prepared writes
/// (Core v5.4 Vol 3 Part F 3.4.6.3).
///
/// Wire layout: `18 | Flags (1)`: 0x00 cancel all prepared writes, 0x01 write them all.
/// Other values are reserved; they are kept as sent.
public struct ATTExecuteWriteRequest: ATTPDUBody {
    public static let opcode = ATTOpcode.executeWriteRequest
    public static let cancelAllPreparedWrites: UInt8 = 0x00
    public static let immediatelyWriteAllPendingPreparedValues: UInt8 = 0x01

    public var flags: UInt8

    public init(flags: UInt8) { self.flags = flags }

    /// The flags as Wireshark names them (Cancel All, Immediately Write All).
    public var flagsName: String {
        switch flags {
        case 0x00: "Cancel All"
        case 0x01: "Immediately Write All"
        default: "Reserved (\(hex(flags)))"
        }
    }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        flags = try r.readUInt8("Flags")
    }

    public func appendParameters(to bytes: inout [UInt8]) { bytes.append(flags) }

    public var fields: [(String, String)] { [("Flags", "\(hex(flags)) \(flagsName)")] }

    /// `Execute Write Request, Immediately Write All`.
    public var summary: String { "\(Self.opcode.name), \(flagsName)" }
}
