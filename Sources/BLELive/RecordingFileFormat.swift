import BLECapture

/// What `record -o FILE` writes, chosen by FILE's extension, as a user naming the file expects:
/// `FILE.pcap` a pcap file, `FILE.btsnoop` (or any other name: Android calls its logs `.log`
/// and `.cfa`) a btsnoop file. `FILE.pcapng` is refused before anything is recorded
/// (`forOutput` is nil): libpcap, which writes the pcap files here, writes no pcapng.
public enum RecordingFileFormat: String, Sendable, Equatable {
    case btsnoop
    case pcap

    /// The format of `-o path`; nil for `.pcapng`, which is not written.
    public static func forOutput(_ path: String) -> RecordingFileFormat? {
        let name = path.lowercased()
        if name.hasSuffix(".pcapng") { return nil }
        return name.hasSuffix(".pcap") ? .pcap : .btsnoop
    }

    /// Why `-o path` is refused (`forOutput` gave nil).
    public static func refusal(_ path: String) -> String {
        "-o \(path): record writes pcap (-o FILE.pcap) or btsnoop (-o FILE.btsnoop), not pcapng; "
            + "record to FILE.pcap and convert it afterwards (editcap -F pcapng FILE.pcap FILE.pcapng)"
    }

    /// The format a recording of `source` is stored in: `-o`'s, or without `-o` the one that
    /// says no more than the source (pcap LINKTYPE 187 for raw H4, whose ACL has no direction;
    /// btsnoop for a btsnoop stream).
    static func stored(source: LiveStreamFormat, outputPath: String?) -> RecordingFileFormat {
        if let outputPath { return forOutput(outputPath) ?? .pcap }
        return source == .h4 ? .pcap : .btsnoop
    }

    /// The pcap link type a recording of `source` is written in: 187 (H4, no direction) for raw
    /// H4, 254 (Linux monitor) for monitor records, whose notes and controller indexes have no
    /// H4 form, 201 (H4 with a direction header) for btsnoop H4 and H1 streams.
    static func pcapLinkType(source: LiveStreamFormat) -> PcapLinkType {
        switch source {
        case .h4: .bluetoothHCIH4
        case .btsnoop(let link) where link == .monitor: .bluetoothLinuxMonitor
        case .btsnoop: .bluetoothHCIH4WithPHDR
        }
    }
}
