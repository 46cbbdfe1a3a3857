/// Which way a record travelled across the HCI.
public enum Direction: String, Sendable, Hashable {
    /// Host to controller (commands, outgoing ACL): "sent" in btsnoop, "tx" in the timeline.
    case sent = "tx"
    /// Controller to host (events, incoming ACL).
    case received = "rx"
    /// The format does not say (pcap LINKTYPE 187, system notes).
    case unknown = "?"
}

/// What a capture record carries, as the `packets.kind` column spells it.
public enum PacketKind: String, Sendable, Hashable, CaseIterable {
    case command = "cmd"
    case event = "evt"
    case acl = "acl"
    case sco = "sco"
    case iso = "iso"
    /// A system note, log line or index record (btmon monitor, PacketLogger notes).
    case note = "note"
    case other = "other"
}

/// One record of a capture, as read from the file and before any protocol decoding.
///
/// `payload` is the HCI packet without its H4 type byte (for `.note`, the text or raw
/// body of the note). Readers copy bytes out of their buffers: a record owns its payload.
public struct CaptureRecord: Sendable {
    /// 1-based frame number, as Wireshark counts frames in the same file.
    public var frameNumber: Int
    /// Microseconds since the Unix epoch (UTC).
    public var timestamp: Int64
    public var direction: Direction
    public var kind: PacketKind
    public var payload: [UInt8]
    /// Absolute byte offset of the record's header in the capture file.
    public var fileOffset: Int
    /// Length of the packet before the writer cut it (btsnoop original length); equals
    /// `payload.count` (+1 for an H4 type byte the reader removed) when nothing was cut.
    public var originalLength: Int
    /// Controller index for multi-controller formats: the btmon monitor's adapter index, or a
    /// pcapng packet's Interface ID (draft-ietf-opsawg-pcapng 4.3) for LINKTYPE 187/201; 0 otherwise.
    public var controllerIndex: UInt16
    /// Cumulative dropped packets reported by the writer (btsnoop), when the format has it.
    public var cumulativeDrops: UInt32
    /// Format-specific record type kept for the timeline (monitor opcode, PacketLogger type).
    public var rawType: UInt16
    /// Bytes this record's own header is shorter than the header its format's decoders count the
    /// payload from (`DecoderOptions.payloadOffsetInRecord`): 16 for a pcapng Simple Packet Block,
    /// whose packet data starts 12 bytes in, where an Enhanced Packet Block's starts 28 in
    /// (draft-ietf-opsawg-pcapng 4.3, 4.4); in a pcapng whose interfaces differ in link type, less
    /// the bytes this packet's link type puts before its HCI payload beyond those of the capture's
    /// (negative for a 201 packet in a capture of 187, say); 0 otherwise. `fileOffset` stays the
    /// block's start.
    public var headerShortfall = 0

    public init(frameNumber: Int, timestamp: Int64, direction: Direction, kind: PacketKind,
                payload: [UInt8], fileOffset: Int, originalLength: Int? = nil,
                controllerIndex: UInt16 = 0, cumulativeDrops: UInt32 = 0, rawType: UInt16 = 0) {
        self.frameNumber = frameNumber
        self.timestamp = timestamp
        self.direction = direction
        self.kind = kind
        self.payload = payload
        self.fileOffset = fileOffset
        self.originalLength = originalLength ?? payload.count
        self.controllerIndex = controllerIndex
        self.cumulativeDrops = cumulativeDrops
        self.rawType = rawType
    }
}
