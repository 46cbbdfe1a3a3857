import BLECore
import BLECapture

/// The recording's pcap file (`-o FILE.pcap`) for a raw-H4 source: LINKTYPE 187, the H4
/// packet without a direction header, one `PcapWriter` per numbered segment with `--rotate`.
///
/// Raw H4 has no direction for ACL, SCO and ISO data; LINKTYPE 187 has none either, so the file
/// asserts nothing the source did not say, and importing it reads what the recording stored
/// (commands sent, events received, the rest unknown). Laid out as `BtsnoopOutput`: flushed by
/// the recorder every interval (no fsync), each record's offset kept as an import would see it,
/// every segment a complete pcap file with its own header.
final class PcapH4Output {
    static let linkType: PcapLinkType = .bluetoothHCIH4
    let basePath: String
    let rotation: RotationPolicy?
    /// Every file written, in order.
    private(set) var paths: [String] = []
    private(set) var recordsWritten = 0
    private var writer: PcapWriter
    private var segmentStartedAt: Int64

    init(path: String, rotation: RotationPolicy?, now: Int64) throws(LiveError) {
        basePath = path
        self.rotation = rotation
        let first = rotation == nil ? path : RotationPolicy.segmentPath(path, number: 1)
        writer = try Self.startSegment(first)
        paths = [first]
        segmentStartedAt = now
    }

    /// The bytes a record of an H4 packet of `count` bytes takes: a 16-byte record header, then the packet.
    static func recordLength(packetCount count: Int) -> Int { 16 + count }

    /// Writes `record` (an H4 packet; to disk with the next `flush`), in a new segment first
    /// when the rotation policy says so; returns the record's offset in its file.
    func write(_ record: CaptureRecord, now: Int64) throws(LiveError) -> Int {
        if writer.recordsWritten > 0, let rotation {
            let due = switch rotation {
            case .size(let bytes): writer.bytesWritten + Self.recordLength(packetCount: record.payload.count + 1) > bytes
            case .duration(let ms): now - segmentStartedAt >= Int64(ms)
            }
            if due {
                try close()
                let path = RotationPolicy.segmentPath(basePath, number: paths.count + 1)
                writer = try Self.startSegment(path)
                paths.append(path)
                segmentStartedAt = now
            }
        }
        let offset = writer.bytesWritten
        do {
            try writer.write(record)
        } catch {
            throw LiveError(output: error)
        }
        recordsWritten += 1
        return offset
    }

    /// Writes what is buffered.
    func flush() throws(LiveError) {
        do {
            try writer.flush()
        } catch {
            throw LiveError(output: error)
        }
    }

    /// Flushes and closes the current segment. Closing twice is harmless.
    func close() throws(LiveError) {
        do {
            try writer.close()
        } catch {
            throw LiveError(output: error)
        }
    }

    /// A new file with its header on disk.
    private static func startSegment(_ path: String) throws(LiveError) -> PcapWriter {
        do {
            let writer = try PcapWriter(path: path, linkType: linkType.rawValue)
            try writer.flush()
            return writer
        } catch {
            throw LiveError(output: error)
        }
    }
}
