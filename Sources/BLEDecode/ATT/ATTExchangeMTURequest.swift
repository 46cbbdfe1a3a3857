import BLECore

/// Exchange MTU Request: the client's receive MTU (Core v5.4 Vol 3 Part F 3.4.2.1).
///
/// Wire layout: `02 | Client Rx MTU (2, LE)`.
public struct ATTExchangeMTURequest: ATTPDUBody {
    public static let opcode = ATTOpcode.exchangeMTURequest
    public var clientRxMTU: UInt16

    public init(clientRxMTU: UInt16) { self.clientRxMTU = clientRxMTU }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        clientRxMTU = try r.readUInt16(.little, "Client Rx MTU")
    }

    public func appendParameters(to bytes: inout [UInt8]) { bytes.append(le16: clientRxMTU) }

    public var fields: [(String, String)] { [("Client Rx MTU", String(clientRxMTU))] }

    /// `Exchange MTU Request, Client Rx MTU: 517`.
    public var summary: String { "\(Self.opcode.name), Client Rx MTU: \(clientRxMTU)" }
}
