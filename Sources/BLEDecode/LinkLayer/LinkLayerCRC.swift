/// The CRC-24 of an LE packet (Core v5.4 Vol 6 Part B 3.1.1): polynomial x^24 + x^10 + x^9 +
/// x^6 + x^4 + x^3 + x + 1 over the PDU (header and payload), the shift register preset with the
/// CRC init (0x555555 on the advertising physical channel, the CONNECT_IND's CRCInit on a
/// connection), bits fed least significant first, position 0 of the register the coefficient of
/// x^0. The result is in the order `LinkLayerPacket.crc` reads the three transmitted octets.
///
/// For sniffers that give no verdict on the CRC (LINKTYPE 251, and 256 without its "CRC checked"
/// flag), so that a corrupted packet is named, not decoded as if good.
public enum LinkLayerCRC {
    /// CRC init of every advertising physical channel PDU.
    public static let advertisingInit: UInt32 = 0x55_5555

    /// The CRC of `pdu` with the register preset to `crcInit`.
    public static func compute<C: Collection<UInt8>>(_ pdu: C, crcInit: UInt32) -> UInt32 {
        // The register as transmitted: the bit that goes out first (x^23's coefficient, which the
        // CRC init's most significant bit presets) is bit 0 here.
        var state: UInt32 = 0
        for i in 0..<24 where crcInit & (1 << i) != 0 { state |= 1 << (23 - i) }
        for byte in pdu {
            var b = byte
            for _ in 0..<8 {
                let feedback = (state ^ UInt32(b)) & 1
                state >>= 1
                b >>= 1
                if feedback != 0 { state |= 1 << 23; state ^= 0x5A_6000 }
            }
        }
        return state
    }

    /// Whether `packet`'s CRC is the one its PDU gives with `crcInit`; nil when the packet was cut
    /// (no CRC, or less payload than its Length).
    public static func matches(_ packet: LinkLayerPacket, crcInit: UInt32) -> Bool? {
        guard let crc = packet.crc, !packet.isTruncated else { return nil }
        return compute(packet.header + packet.payload, crcInit: crcInit) == crc
    }
}
