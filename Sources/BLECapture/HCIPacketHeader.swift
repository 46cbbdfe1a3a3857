/// The header of an HCI packet of each H4 type, as far as it says how long the packet is
/// (Core v5.4 Vol 4 Part E 5.4: 5.4.1 command, 5.4.2 ACL, 5.4.3 synchronous, 5.4.4 event,
/// 5.4.5 ISO).
///
/// command: opcode u16, parameter total length u8 (3 bytes); ACL: handle and flags u16, data
/// total length u16 (4); SCO: handle and flags u16, data total length u8 (3); event: event code
/// u8, parameter total length u8 (2); ISO: handle and flags u16, data total length 14 bits and
/// 2 RFU bits (4). All little-endian. The one table of these for files (`MislabelledH4Check`)
/// and live streams (BLELive's H4 decoder and stream detection).
package struct HCIPacketHeader: Sendable, Hashable {
    /// Bytes of header before the parameters or data.
    package var length: Int
    /// Where the length field starts in the header.
    package var lengthAt: Int
    /// Whether the length field is 16 bits (ACL, ISO) rather than 8.
    package var wide: Bool
    /// Bits of a 16-bit length field that count bytes (ISO: 14).
    package var lengthMask: Int

    /// The header of packets of `type`; nil for a byte that is no H4 type.
    package init?(type: H4PacketType) {
        switch type {
        case .command: (length, lengthAt, wide, lengthMask) = (3, 2, false, 0xFF)
        case .acl: (length, lengthAt, wide, lengthMask) = (4, 2, true, 0xFFFF)
        case .sco: (length, lengthAt, wide, lengthMask) = (3, 2, false, 0xFF)
        case .event: (length, lengthAt, wide, lengthMask) = (2, 1, false, 0xFF)
        case .iso: (length, lengthAt, wide, lengthMask) = (4, 2, true, 0x3FFF)
        default: return nil
        }
    }

    /// The whole packet's length (header and parameters or data) its header announces, read
    /// from `bytes` starting at `start`; nil when the header is not all there.
    package func packetLength<Bytes: RandomAccessCollection<UInt8>>(in bytes: Bytes, at start: Int) -> Int?
    where Bytes.Index == Int {
        guard start >= bytes.startIndex, bytes.endIndex - start >= length else { return nil }
        let at = start + lengthAt
        let field = wide ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at])
        return length + (field & lengthMask)
    }
}
