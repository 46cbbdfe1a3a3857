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

/// The recording's pcap file (`-o FILE.pcap`) for a raw-H4 source: LINKTYPE 187, the H4 packet
/// without a direction header, in `PcapWriter` segments.
///
/// Raw H4 has no direction for ACL, SCO and ISO data; LINKTYPE 187 has none either, so the file
/// asserts nothing the source did not say, and importing it reads what the recording stored
/// (commands sent, events received, the rest unknown).
typealias PcapH4Output = SegmentedOutput<PcapWriter>

extension SegmentedOutput where Writer == PcapWriter {
    static var linkType: PcapLinkType { .bluetoothHCIH4 }

    /// The bytes a record of an H4 packet of `count` bytes takes: a 16-byte record header, then the packet.
    static func recordLength(packetCount count: Int) -> Int { 16 + count }

    convenience init(path: String, rotation: RotationPolicy?, now: Int64) throws(LiveError) {
        try self.init(path: path, rotation: rotation, now: now) { (p: String) throws(CaptureError) in
            try PcapWriter(path: p, linkType: Self.linkType.rawValue)
        }
    }

    /// Writes `record` (an H4 packet).
    func write(_ record: CaptureRecord, now: Int64) throws(LiveError) -> Int {
        try write(length: Self.recordLength(packetCount: record.payload.count + 1), now: now) { (w: PcapWriter) throws(CaptureError) in
            try w.write(record)
        }
    }
}
