import BLECapture
import BLEDecode

extension DecoderOptions {
    /// Decoder options whose error offsets point into the file: the distance from a record's
    /// header to the first byte of its HCI payload in each format.
    ///
    /// btsnoop: 24-byte record header, then the H4 type byte for datalink 1002 (none for 1001,
    /// none for 2001, whose opcode is in the flags). PacketLogger: length, seconds, microseconds
    /// and the type byte (13). pcap: 16-byte record header, then the 4-byte direction pseudo-header
    /// (201) or the 4-byte monitor header (254), then the H4 type byte (187, 201). pcapng and
    /// btsnooz records have no fixed layout here: their offsets name the record, not the byte.
    public static func forCapture(_ info: CaptureInfo, keepKeys: Bool) -> DecoderOptions {
        let offset: Int
        switch (info.format, info.linkType) {
        case (.btsnoop, 1002): offset = 25
        case (.btsnoop, _): offset = 24
        case (.packetLogger, _): offset = 13
        case (.pcap, 187): offset = 17
        case (.pcap, 201): offset = 21
        case (.pcap, 254): offset = 20
        default: offset = 0
        }
        return DecoderOptions(keepKeys: keepKeys, payloadOffsetInRecord: offset)
    }
}
