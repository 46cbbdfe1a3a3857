import BLECore

/// Find Information Request: list handles and types in a range (Core v5.4 Vol 3 Part F 3.4.3.1).
///
/// Wire layout: `04 | Starting Handle (2, LE) | Ending Handle (2, LE)`.
public struct ATTFindInformationRequest: ATTPDUBody {
    public static let opcode = ATTOpcode.findInformationRequest
    public var startingHandle: UInt16
    public var endingHandle: UInt16

    public init(startingHandle: UInt16, endingHandle: UInt16) {
        self.startingHandle = startingHandle
        self.endingHandle = endingHandle
    }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        startingHandle = try r.readUInt16(.little, "Starting Handle")
        endingHandle = try r.readUInt16(.little, "Ending Handle")
    }

    public func appendParameters(to bytes: inout [UInt8]) {
        bytes.append(le16: startingHandle)
        bytes.append(le16: endingHandle)
    }

    public var fields: [(String, String)] {
        [("Starting Handle", handleString(startingHandle)), ("Ending Handle", handleString(endingHandle))]
    }

    /// `Find Information Request, Handles: 0x0001..0xFFFF`.
    public var summary: String {
        "\(Self.opcode.name), Handles: \(handleString(startingHandle))..\(handleString(endingHandle))"
    }
}
