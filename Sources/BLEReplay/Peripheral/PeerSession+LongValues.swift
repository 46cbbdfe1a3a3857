import BLEDecode

/// Long attribute values at the replay's MTU (Core v5.4 Vol 3 Part G 4.8.3, Part F 3.4.4.3-6).
///
/// A Read Response carries at most MTU - 1 bytes of the value and Read Blob Requests fetch the
/// rest at offsets. The recording read a long value at its own MTU; when the replay's MTU is
/// another (an exchange gave a different one), the recorded first part is not what the
/// peripheral would send. The peripheral then serves the whole recorded value
/// (`PeerBehaviour.longReads`) cut at the replay's MTU, and answers the Read Blob Requests that
/// follow from that same value, at any offset. With the recorded MTU (or one never exchanged)
/// the recorded answers are served unchanged.
extension PeerSession {
    /// The Read Response for this occurrence of a Read Request, from the whole recorded value
    /// when the replay's MTU cuts it differently from the recording.
    func servingLongValue(_ request: [UInt8], occurrence: Int, recorded response: [UInt8]) -> [UInt8] {
        guard request.count >= 3 else { return response }
        let handle = UInt16(request[1]) | UInt16(request[2]) << 8
        occasionalState?.longValues[handle] = nil
        guard link.mtuExchanged, response.first == ATTOpcode.readResponse.rawValue,
              let values = behaviour?.longReads[request], !values.isEmpty else { return response }
        let value = values[occurrence] ?? values[values.keys.max()!]!
        guard response.count - 1 != link.mtu - 1 || value.count < link.mtu - 1 else { return response }
        occasional.longValues[handle] = value
        return [ATTOpcode.readResponse.rawValue] + value.prefix(link.mtu - 1)
    }

    /// The Read Blob Response (or Invalid Offset error) for a long value being served, else nil.
    func longValuePart(_ request: [UInt8]) -> [UInt8]? {
        guard request.count >= 5, request[0] == ATTOpcode.readBlobRequest.rawValue else { return nil }
        let handle = UInt16(request[1]) | UInt16(request[2]) << 8
        guard let value = occasionalState?.longValues[handle] else { return nil }
        let offset = Int(request[3]) | Int(request[4]) << 8
        guard offset <= value.count else {
            return ATTPDU.errorResponse(ATTErrorResponse(requestOpcode: .readBlobRequest, attributeHandle: handle,
                                                         errorCode: .invalidOffset)).encoded()
        }
        return [ATTOpcode.readBlobResponse.rawValue] + value[offset...].prefix(link.mtu - 1)
    }
}
