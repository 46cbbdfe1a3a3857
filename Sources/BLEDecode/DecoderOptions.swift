/// Settings for `PacketDecoder`.
public struct DecoderOptions: Sendable {
    /// Show key material (LTKs, IRKs, CSRKs, DHKeys) in summaries instead of hiding it.
    public var keepKeys = false
    /// Bytes from a record's `fileOffset` (its header) to the first byte of its payload, so
    /// that error offsets point at the damaged byte in the file.
    ///
    /// `CaptureRecord` does not carry the payload offset, so the importer, which knows the
    /// format, says it here: 25 for btsnoop H4 (24-byte record header + H4 type byte, the
    /// default), 24 for btsnoop H1 and Linux monitor (2001), 13 for PacketLogger (length,
    /// seconds, microseconds, type), 21 for pcap LINKTYPE 201 (16-byte record header,
    /// 4-byte direction, H4 type) and 17 for LINKTYPE 187. Offsets of bytes in a record are
    /// `fileOffset + payloadOffsetInRecord + position in the payload`.
    public var payloadOffsetInRecord = 25
    /// Build each packet's one-line summary (`DecodedPacket.summary`). False for a consumer that
    /// reads none (the fleet report's scratch timelines, `ImportOptions.referencedPacketRowsOnly`):
    /// the summaries are then empty and never formatted; every fact, event and problem is the same.
    public var summaries = true
    /// The records come from a Linux monitor capture (btsnoop 2001, pcap 254), whose `.other`
    /// records' `rawType` is a monitor opcode (`monitorControl`); other formats number their
    /// unknown record types otherwise.
    public var monitorRecords = false
    /// What cuts an ACL record short while keeping its original length (`PacketDecoder.writerCut`),
    /// named in the packet's summary; the importer sets it from the capture's format.
    public var cutWriter = CutWriter.unknown

    /// Who writes records shorter than the packet they hold, by capture format.
    public enum CutWriter: String, Sendable {
        /// btsnoop: Android's filtered snoop mode (AOSP snoop_logger.cc, `btsnoop_hci.log.filtered`).
        case androidFilteredSnoop = "as Android's filtered snoop log does"
        /// A bugreport's btsnooz ring buffer (AOSP btif_debug_btsnoop.cc): ACL data cut in every mode.
        case btsnooz = "as a bugreport's btsnooz ring buffer does"
        /// pcap / pcapng: the capture tool's snapshot length (the file header's snaplen, the
        /// interface's SnapLen), which cuts every packet longer than it.
        case snapshotLength = "at the capture's snapshot length (snaplen)"
        /// Any other format.
        case unknown = "by the capture writer"
    }

    public init(keepKeys: Bool = false, payloadOffsetInRecord: Int = 25) {
        self.keepKeys = keepKeys
        self.payloadOffsetInRecord = payloadOffsetInRecord
    }
}
