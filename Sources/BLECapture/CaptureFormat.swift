/// The container format of a capture file, as detected from its bytes.
public enum CaptureFormat: String, Sendable, Hashable, CaseIterable {
    /// btsnoop v1 (BlueZ `btmon -w`, Android HCI snoop log); REFERENCE.md "btsnoop".
    case btsnoop
    /// Classic libpcap file (magic a1b2c3d4 / a1b23c4d in either byte order).
    case pcap
    /// pcapng (Section Header Block 0a0d0d0a).
    case pcapng
    /// Apple PacketLogger `.pklg`; captures/MANIFEST.md "PacketLogger record layout".
    case packetLogger = "packetlogger"
    /// Android btsnooz, the compressed HCI log inside an `adb bugreport` text.
    case btsnooz
}

/// What a reader found in a capture's header.
public struct CaptureInfo: Sendable, Hashable {
    public var format: CaptureFormat
    /// btsnoop datalink (1001/1002/2001) or pcap LINKTYPE (187/201/254); 0 for PacketLogger and btsnooz.
    public var linkType: UInt32
    /// Human-readable summary, e.g. "btsnoop v1, HCI UART (H4) datalink 1002".
    public var formatDescription: String
    /// pcapng: the LinkType of each interface described before the first packet
    /// (draft-ietf-opsawg-pcapng 4.2), in order, when they are not all `linkType` (a file of
    /// several interfaces may mix them; `PcapReader`); empty otherwise.
    public var interfaceLinkTypes: [UInt32] = []

    public init(format: CaptureFormat, linkType: UInt32, formatDescription: String) {
        self.format = format
        self.linkType = linkType
        self.formatDescription = formatDescription
    }
}

/// Something odd but recoverable found while reading (a truncated last record, say).
public struct CaptureWarning: Sendable, Hashable, CustomStringConvertible {
    /// Absolute byte offset in the capture file the warning is about.
    public var offset: Int
    public var message: String

    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    public var description: String { "byte \(offset): \(message)" }
}
