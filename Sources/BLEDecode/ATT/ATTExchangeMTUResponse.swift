import BLECore

/// Exchange MTU Response: the server's receive MTU (Core v5.4 Vol 3 Part F 3.4.2.2).
///
/// Wire layout: `03 | Server Rx MTU (2, LE)`.
public struct ATTExchangeMTUResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.exchangeMTUResponse
    public var serverRxMTU: UInt16

    public init(serverRxMTU: UInt16) { self.serverRxMTU = serverRxMTU }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        serverRxMTU = try r.readUInt16(.little, "Server Rx MTU")
    }

    public func appendParameters(to bytes: inout [UInt8]) { bytes.append(le16: serverRxMTU) }

    public var fields: [(String, String)] { [("Server Rx MTU", String(serverRxMTU))] }

    /// `Exchange MTU Response, Server Rx MTU: 247`.
    public var summary: String { "\(Self.opcode.name), Server Rx MTU: \(serverRxMTU)" }
}
