import BLECore

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
    /// `payloadBase(of:)` plus the position in the payload.
    public var payloadOffsetInRecord = 25
    /// Build each packet's one-line summary (`DecodedPacket.summary`). False for a consumer that
    /// reads none (the fleet report's scratch timelines, `ImportOptions.referencedPacketRowsOnly`):
    /// the summaries are then empty and never formatted; every fact, event and problem is the same.
    public var summaries = true
    /// The records come from a Linux monitor capture (btsnoop 2001, pcap 254), whose `.other`
    /// records' `rawType` is a monitor opcode (`monitorControl`); other formats number their
    /// unknown record types otherwise.
    public var monitorRecords = false
    /// What cuts records short in this capture's format (`RecordCutter`), named in the summary of
    /// every cut record.
    public var recordCutter = RecordCutter.androidFilteredSnoop

    public init(keepKeys: Bool = false, payloadOffsetInRecord: Int = 25) {
        self.keepKeys = keepKeys
        self.payloadOffsetInRecord = payloadOffsetInRecord
    }
}

extension DecoderOptions {
    /// Where `record`'s payload starts in the file: `fileOffset + payloadOffsetInRecord`, less
    /// what its own header lacks (`CaptureRecord.headerShortfall`: a pcapng Simple Packet Block).
    public func payloadBase(of record: CaptureRecord) -> Int {
        record.fileOffset &+ payloadOffsetInRecord &- record.headerShortfall
    }
}
