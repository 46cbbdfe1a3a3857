import BLECore

/// The CACE Per-Packet Information header of a LINKTYPE_PPI (192) frame ("Per-Packet
/// Information Header Specification" 1.0.10, section 3; tcpdump.org LINKTYPE_PPI), as crackle's
/// tests and older Ubertooth tools (ubertooth-btle -q) write around LE link-layer packets.
///
/// Layout, little-endian: pph_version u8 (0), pph_flags u8 (bit 0: fields 32-bit aligned),
/// pph_len u16 (the whole header, fields included), pph_dlt u32 (the link type of the packet
/// after the header); then fields of pfh_type u16, pfh_datalen u16 and data. Ubertooth's BTLE
/// field (type 30006, 12 bytes: version u8, channel u16, clkn_high u8, clk100ns u32, RSSI max,
/// min, avg i8, RSSI count u8) carries nothing the LE packet decode needs: the packet after the
/// header is read as its DLT says (251 `LINKTYPE_BLUETOOTH_LE_LL`: access address, header,
/// payload, CRC; 256 with its RF pseudo-header).
struct PPIHeader: Equatable {
    /// pph_len: where the wrapped packet starts.
    var length: Int
    /// pph_dlt: the wrapped packet's link type.
    var linkType: PcapLinkType

    /// Nil when the frame is shorter than 8 bytes, the version is not 0, or pph_len is below 8
    /// or beyond the frame.
    init?(_ frame: UnsafeRawBufferPointer) {
        guard frame.count >= 8, frame[0] == 0 else { return nil }
        let length = Int(frame[2]) | Int(frame[3]) << 8
        guard length >= 8, length <= frame.count else { return nil }
        self.length = length
        linkType = PcapLinkType(rawValue: UInt32(frame[4]) | UInt32(frame[5]) << 8 | UInt32(frame[6]) << 16
                                    | UInt32(frame[7]) << 24)
    }

    /// The LE link-layer link types a PPI header may wrap here.
    static let wrappable: [PcapLinkType] = [.bluetoothLELL, .bluetoothLELLWithPHDR]
}
