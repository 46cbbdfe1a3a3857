import BLECore

/// Write Response: the write succeeded (Core v5.4 Vol 3 Part F 3.4.5.2).
///
/// Wire layout: `13` (no parameters).
public struct ATTWriteResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.writeResponse

    public init() {}

    public init(parameters r: inout ByteReader) throws(DecodeError) {}

    public func appendParameters(to bytes: inout [UInt8]) {}

    public var fields: [(String, String)] { [] }

    /// `Write Response`.
    public var summary: String { Self.opcode.name }
}
