/// pcapng blocks, little-endian, laid out as draft-ietf-opsawg-pcapng says: each block is
/// Block Type u32, Block Total Length u32, the body padded to 32 bits, Block Total Length again.
enum PcapngBlocks {
    static func block(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
        let padded = body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
        let length = UInt32(12 + padded.count)
        return .le32(type) + .le32(length) + padded + .le32(length)
    }

    /// Section Header Block (4.1): byte-order magic 1A2B3C4D, version 1.0, section length -1.
    static func sectionHeader() -> [UInt8] {
        block(0x0A0D_0D0A, .le32(0x1A2B_3C4D) + .le16(1) + .le16(0) + .le64(.max))
    }

    /// An option (3.5): code u16, length u16, value padded to 32 bits.
    static func option(_ code: UInt16, _ value: [UInt8]) -> [UInt8] {
        .le16(code) + .le16(UInt16(value.count)) + value + [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
    }

    /// Interface Description Block (4.2): LinkType u16, reserved u16, SnapLen u32 (262144), the
    /// options (if_name 2, if_tsresol 9, if_tsoffset 14, ...) and opt_endofopt.
    static func interface(linkType: UInt16, options: [UInt8] = []) -> [UInt8] {
        block(1, .le16(linkType) + .le16(0) + .le32(262_144) + (options.isEmpty ? [] : options + .le32(0)))
    }

    /// Enhanced Packet Block (4.3): Interface ID, timestamp upper and lower 32 bits (in the
    /// interface's if_tsresol units, µs by default), captured and original length, the packet.
    /// `options` (epb_flags 2, opt_comment 1, ...) follow the padded packet, then opt_endofopt.
    static func enhancedPacket(interface: UInt32 = 0, timestamp: UInt64, _ packet: [UInt8], options: [UInt8] = []) -> [UInt8] {
        let padded = packet + [UInt8](repeating: 0, count: (4 - packet.count % 4) % 4)
        return block(6, .le32(interface) + .le32(UInt32(timestamp >> 32)) + .le32(UInt32(timestamp & 0xFFFF_FFFF))
            + .le32(UInt32(packet.count)) + .le32(UInt32(packet.count)) + padded + (options.isEmpty ? [] : options + .le32(0)))
    }

    /// Simple Packet Block (4.4): Original Packet Length, the packet; no interface (0), no timestamp.
    static func simplePacket(_ packet: [UInt8]) -> [UInt8] {
        block(3, .le32(UInt32(packet.count)) + packet)
    }

    /// Interface Statistics Block (4.6), 24 bytes: Interface ID 0, timestamp 0, no options. No
    /// packet: libpcap reads past it.
    static func statistics() -> [UInt8] {
        block(5, .le32(0) + .le32(0) + .le32(0))
    }

    /// A LINKTYPE_BLUETOOTH_HCI_H4_WITH_PHDR packet: direction u32 big-endian (0 sent, 1 received), the H4 packet.
    static func withDirection(received: Bool, _ h4: [UInt8]) -> [UInt8] {
        .be32(received ? 1 : 0) + h4
    }

    /// 01 | 03 0C 00: HCI_Reset (Core v5.4 Vol 4 Part E 7.3.2), sent.
    static let reset = withDirection(received: false, [0x01, 0x03, 0x0C, 0x00])
    /// 04 | 0E 04 01 03 0C 00: Command Complete for HCI_Reset, status 0 (7.7.14), received.
    static let resetComplete = withDirection(received: true, [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
}
