import BLECore

/// Execute Write Response: the queued writes were written or cancelled (Core v5.4 Vol 3 Part F 3.4.6.4).
///
/// Wire layout: `19` (no parameters).
public struct ATTExecuteWriteResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.executeWriteResponse

    public init() {}

    public init(parameters r: inout ByteReader) throws(DecodeError) {}

    public func appendParameters(to bytes: inout [UInt8]) {}

    public var fields: [(String, String)] { [] }

    /// `Execute Write Response`.
    public var summary: String { Self.opcode.name }
}
