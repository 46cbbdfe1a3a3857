import BLECore

/// What cut a capture's records short: a record whose header keeps a larger original length than
/// the bytes it holds. Only the capture format tells, so the importer names it
/// (`DecoderOptions.recordCutter`) and the decoder says it in the summary of every cut record.
///
/// - Android's filtered snoop log keeps the headers of most ACL packets (AOSP snoop_logger.cc,
///   `PacketDecoder+SnoopCut.swift`); a bugreport's btsnooz section cuts ACL data in every mode.
/// - pcap and pcapng cut every packet longer than the snapshot length (pcap file header
///   SnapLen, pcapng IDB SnapLen; draft-ietf-opsawg-pcap 4, draft-ietf-opsawg-pcapng 4.2): any
///   packet, commands and events included (`tcpdump -s`, `dumpcap -s`).
public enum RecordCutter: Sendable, Hashable {
    case androidFilteredSnoop
    case btsnooz
    case snapshotLength
    /// A writer the format does not name (btmon's btsnoop, PacketLogger).
    case captureWriter

    /// `(cut by …: K of N bytes kept…)`, the note a cut record's summary ends with.
    func note(kept: Int, original: Int) -> String {
        switch self {
        case .androidFilteredSnoop:
            " (cut by the capture writer: \(kept) of \(original) bytes kept, as Android's filtered snoop log does)"
        case .btsnooz:
            " (cut by the capture writer: \(kept) of \(original) bytes kept, as a bugreport's btsnooz log does)"
        case .snapshotLength:
            " (cut by the capture's snapshot length: \(kept) of \(original) bytes kept)"
        case .captureWriter:
            " (cut by the capture writer: \(kept) of \(original) bytes kept)"
        }
    }
}
