import BLECore
import BLECapture

/// Decodes raw HCI UART (H4) bytes as they arrive: a type byte, then an HCI packet whose
/// header gives its length (Core v5.4 Vol 4 Part A 2; Vol 4 Part E 5.4).
///
/// | type | packet  | header after the type byte                  |
/// |------|---------|---------------------------------------------|
/// | 0x01 | command | opcode u16, parameter length u8             |
/// | 0x02 | ACL     | handle+flags u16, data length u16           |
/// | 0x03 | SCO     | handle+flags u16, data length u8            |
/// | 0x04 | event   | event code u8, parameter length u8          |
/// | 0x05 | ISO     | handle+flags u16, data length u16 (14 bits) |
///
/// Raw H4 carries neither timestamps nor direction: records are stamped with the wall clock
/// when their bytes arrived, commands are sent (host to controller), events received, and
/// ACL, SCO and ISO have unknown direction. Any other type byte means the stream is lost
/// (H4 has no way to find the next packet), which is an error with its offset.
struct H4StreamDecoder {
    /// Offset in the stream of the next byte to decode.
    private(set) var offset = 0
    private(set) var frames = 0

    /// The next record, or nil when the buffer holds only part of one.
    /// - Parameter arrival: when the buffered bytes arrived (µs since the Unix epoch).
    mutating func next(_ buffer: inout StreamBuffer, source: String, arrival: Int64) throws(LiveError) -> LiveRecord? {
        guard !buffer.isEmpty else { return nil }
        let type = buffer[0]
        guard let header = HCIPacketHeader(type: H4PacketType(rawValue: type)) else {
            throw LiveError(source: source, offset: offset, kind: .malformed, message:
                "0x\(hex2(type)) is no H4 packet type (0x01-0x05); the stream cannot be resynchronised")
        }
        let bytes = buffer.bytes
        guard let packet = header.packetLength(in: bytes, at: bytes.startIndex + 1) else { return nil }
        let total = 1 + packet
        guard buffer.count >= total else { return nil }
        let kind = H4PacketType(rawValue: type).kind
        let direction: Direction = kind == .command ? .sent : (kind == .event ? .received : .unknown)
        frames += 1
        var record = CaptureRecord(frameNumber: frames, timestamp: arrival, direction: direction, kind: kind,
                                   payload: [], fileOffset: offset, originalLength: total)
        buffer.bytes.prefix(total).withUnsafeBytes { record.setH4Packet($0) }
        buffer.consume(total)
        offset += total
        return LiveRecord(record)
    }
}
