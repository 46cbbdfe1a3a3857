import BLECapture
import BLEDecode

extension DecoderOptions {
    /// Decoder options whose error offsets point into the file: the distance from a record's
    /// header to the first byte of its HCI payload in each format.
    ///
    /// btsnoop: 24-byte record header, then the H4 type byte for datalink 1002 (none for 1001,
    /// none for 2001, whose opcode is in the flags). PacketLogger: length, seconds, microseconds
    /// and the type byte (13). pcap: 16-byte record header, then the 4-byte direction pseudo-header
    /// (201) or the 4-byte monitor header (254), then the H4 type byte (187, 201); air link types
    /// (251, 256, 272) hand the whole frame, pseudo-header included, to the decoder. pcapng: a
    /// 28-byte Enhanced Packet Block header instead of pcap's 16; a pcapng packet of an interface
    /// of another link type than `info.linkType` says the difference in its `headerShortfall`
    /// (`PcapReader`). btsnooz records have no file position: their offsets name the record in
    /// the decompressed stream.
    public static func forCapture(_ info: CaptureInfo, keepKeys: Bool) -> DecoderOptions {
        let offset: Int
        switch (info.format, info.linkType) {
        case (.btsnoop, 1002): offset = 25
        case (.btsnoop, _): offset = 24
        case (.packetLogger, _): offset = 13
        case (.pcap, 187): offset = 17
        case (.pcap, 201): offset = 21
        case (.pcap, 254): offset = 20
        case (.pcap, 251), (.pcap, 256), (.pcap, 272): offset = 16
        // pcapng Enhanced Packet Block: 28 bytes of block header before the packet data.
        case (.pcapng, 187): offset = 29
        case (.pcapng, 201): offset = 33
        case (.pcapng, 254): offset = 32
        case (.pcapng, _): offset = 28
        default: offset = 0
        }
        var options = DecoderOptions(keepKeys: keepKeys, payloadOffsetInRecord: offset)
        // A pcapng may hold a Linux monitor interface beside others (`CaptureInfo.interfaceLinkTypes`).
        options.monitorRecords = info.linkType == 2001 && info.format == .btsnoop || info.linkType == 254
            || info.interfaceLinkTypes.contains(254)
        switch info.format {
        case .pcap, .pcapng: options.recordCutter = .snapshotLength
        case .btsnooz: options.recordCutter = .btsnooz
        case .btsnoop where info.linkType != 2001: options.recordCutter = .androidFilteredSnoop
        default: options.recordCutter = .captureWriter
        }
        return options
    }
}
