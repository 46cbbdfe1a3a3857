import BLECore

/// Read Multiple Request: read several fixed-length values at once (Core v5.4 Vol 3 Part F 3.4.4.7).
///
/// Wire layout: `0E | Set Of Handles (2 each, LE)`. The spec asks for two or more handles;
/// one is accepted so that a client's mistake still decodes. The list must divide into
/// whole handles.
public struct ATTReadMultipleRequest: ATTPDUBody {
    public static let opcode = ATTOpcode.readMultipleRequest
    public var setOfHandles: [UInt16]

    public init(setOfHandles: [UInt16]) { self.setOfHandles = setOfHandles }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        var handles: [UInt16] = []
        repeat { handles.append(try r.readUInt16(.little, "Handle (handles are 2 bytes)")) } while !r.isAtEnd
        setOfHandles = handles
    }

    public func appendParameters(to bytes: inout [UInt8]) {
        for handle in setOfHandles { bytes.append(le16: handle) }
    }

    public var fields: [(String, String)] { setOfHandles.map { ("Handle", handleString($0)) } }

    /// `Read Multiple Request, Handles: 0x0003, 0x0005`.
    public var summary: String {
        "\(Self.opcode.name), Handles: " + setOfHandles.map(handleString).joined(separator: ", ")
    }
}
