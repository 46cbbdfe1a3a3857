import BLECore

/// Handle Value Confirmation: the client received an indication (Core v5.4 Vol 3 Part F 3.4.7.3).
///
/// Wire layout: `1E` (no parameters).
public struct ATTHandleValueConfirmation: ATTPDUBody {
    public static let opcode = ATTOpcode.handleValueConfirmation

    public init() {}

    public init(parameters r: inout ByteReader) throws(DecodeError) {}

    public func appendParameters(to bytes: inout [UInt8]) {}

    public var fields: [(String, String)] { [] }

    /// `Handle Value Confirmation`.
    public var summary: String { Self.opcode.name }
}
