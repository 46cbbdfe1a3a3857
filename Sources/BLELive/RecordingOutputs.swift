import BLECore
import BLECapture

/// The recording's btsnoop file: `BtsnoopWriter` segments.
typealias BtsnoopOutput = SegmentedOutput<BtsnoopWriter>

extension SegmentedOutput where Writer == BtsnoopWriter {
    convenience init(path: String, datalink: BtsnoopDatalink, rotation: RotationPolicy?, now: Int64) throws(LiveError) {
        try self.init(path: path, rotation: rotation, now: now) { (p: String) throws(CaptureError) in
            try BtsnoopWriter(path: p, datalink: datalink.rawValue)
        }
    }

    func write(_ packet: BtsnoopPacket, now: Int64) throws(LiveError) -> Int {
        try write(length: packet.recordLength, now: now) { (w: BtsnoopWriter) throws(CaptureError) in try w.write(packet) }
    }
}

/// The recording's pcap file (`-o FILE.pcap`) in `PcapWriter` segments: LINKTYPE 187 for a
/// raw-H4 source, 201 (H4 with a direction header) for a btsnoop H4 or H1 stream, 254 (Linux
/// monitor) for a monitor source or btsnoop 2001 stream (`RecordingFileFormat.pcapLinkType`).
///
/// Raw H4 has no direction for ACL, SCO and ISO data; LINKTYPE 187 has none either, so the file
/// asserts nothing the source did not say, and importing it reads what the recording stored
/// (commands sent, events received, the rest unknown).
typealias PcapOutput = SegmentedOutput<PcapWriter>

extension SegmentedOutput where Writer == PcapWriter {
    convenience init(path: String, linkType: PcapLinkType, rotation: RotationPolicy?, now: Int64) throws(LiveError) {
        try self.init(path: path, rotation: rotation, now: now) { (p: String) throws(CaptureError) in
            try PcapWriter(path: p, linkType: linkType.rawValue)
        }
    }

    /// Writes one record holding `packet` (`PcapWriter.packet`); returns its offset in its file.
    func write(_ packet: (bytes: [UInt8], originalLength: Int), timestamp: Int64, frameNumber: Int, now: Int64) throws(LiveError) -> Int {
        try write(length: 16 + packet.bytes.count, now: now) { (w: PcapWriter) throws(CaptureError) in
            try w.write(packet: packet.bytes, originalLength: packet.originalLength, timestamp: timestamp, frameNumber: frameNumber)
        }
    }
}
