import BLEDecode

/// What a central reads back after writing a value the recording never wrote.
///
/// A Write Request the recording never made is answered from the database (`--unmatched
/// database`) and the value kept for the rest of the connection (Docs/replay.md). A later Read
/// Request of that handle reads the attribute's value (Core v5.4 Vol 3 Part F 3.4.4.3), which
/// is now what the central wrote: it is answered so, ahead of the recorded answers to the same
/// request, which the recording's peripheral gave without that write (a long one is served
/// whole, its Read Blob Requests answered from it). A recorded Write Request to the handle puts
/// the link back on the recording's path: its reads get their recorded answers again.
extension PeerSession {
    /// The Read Response for a Read Request of a handle written without a recorded answer, else nil.
    func readOfUnrecordedWrite(_ pdu: [UInt8]) -> [UInt8]? {
        guard pdu.count == 3, pdu[0] == ATTOpcode.readRequest.rawValue else { return nil }
        let handle = UInt16(pdu[1]) | UInt16(pdu[2]) << 8
        guard occasionalState?.unrecordedWrites.contains(handle) == true, let value = emulator.written[handle] else { return nil }
        occasional.longValues[handle] = value.count > link.mtu - 1 ? value : nil
        return [ATTOpcode.readResponse.rawValue] + value.prefix(link.mtu - 1)
    }

    /// Notes a Write Request and how it was answered: accepted from the database (not recorded),
    /// or answered as recorded.
    func noteWrite(_ pdu: [UInt8], answer: [UInt8], recorded: Bool) {
        guard pdu.count >= 3, pdu[0] == ATTOpcode.writeRequest.rawValue else { return }
        let handle = UInt16(pdu[1]) | UInt16(pdu[2]) << 8
        if recorded {
            occasionalState?.unrecordedWrites.remove(handle)
        } else if answer.first == ATTOpcode.writeResponse.rawValue, emulator.written[handle] != nil {
            occasional.unrecordedWrites.insert(handle)
        }
    }
}
