import BLECore
import CPcap
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes classic pcap files through libpcap (`pcap_open_dead_with_tstamp_precision`,
/// `pcap_dump_open`, `pcap_dump`), microsecond timestamps.
///
/// LINKTYPE 201 (the default; REFERENCE.md "pcap") writes a 4-byte big-endian direction
/// (0 sent, 1 received) and the H4 packet; 187 the H4 packet alone; 254 a 2-byte big-endian
/// controller index, 2-byte big-endian monitor opcode and the body. H4 link types skip notes
/// and `.other` records.
public final class PcapWriter {
    public let path: String
    public let linkType: PcapLinkType
    /// Records written so far (skipped ones not counted).
    public private(set) var recordsWritten = 0
    /// Records written whose time a pcap record header cannot hold (`headerTime`).
    public private(set) var timestampsClamped = 0
    /// Bytes written so far, buffered ones included: the 24-byte file header and every record
    /// (16-byte header and packet), which is the offset the next record will have in the file.
    public private(set) var bytesWritten = 24

    private let pcap: OpaquePointer
    private var dumper: OpaquePointer?
    static let snapshotLength: Int32 = 262_144

    public init(path: String, linkType: UInt32 = 201) throws(CaptureError) {
        self.path = path
        self.linkType = PcapLinkType(rawValue: linkType)
        guard PcapLinkType.supported.contains(self.linkType), let link = Int32(exactly: linkType) else {
            throw CaptureError(path: path, kind: .unsupported, message:
                "cannot write \(self.linkType); PcapWriter writes LINKTYPE 187, 201 and 254")
        }
        guard let pcap = pcap_open_dead_with_tstamp_precision(link, Self.snapshotLength,
                                                              UInt32(PCAP_TSTAMP_PRECISION_MICRO)) else {
            throw CaptureError(path: path, kind: .unwritable, message: "pcap_open_dead failed")
        }
        self.pcap = pcap
        guard let dumper = pcap_dump_open(pcap, path) else {
            let text = String(cString: pcap_geterr(pcap))
            pcap_close(pcap)
            throw CaptureError(path: path, kind: .unwritable, message: "cannot create: libpcap: \(text)")
        }
        self.dumper = dumper
    }

    deinit {
        try? close()
        pcap_close(pcap)
    }

    /// Appends a record; records the link type cannot carry are skipped silently.
    public func write(_ record: CaptureRecord) throws(CaptureError) {
        guard let packet = Self.packet(record, linkType: linkType) else { return }
        try write(packet: packet.bytes, originalLength: packet.originalLength, timestamp: record.timestamp,
                  frameNumber: record.frameNumber)
    }

    /// The packet a pcap record of `linkType` holds for `record`, and the length of the packet
    /// it stands for (`originalLength` counts what a cut record lacks); nil when the link type
    /// cannot carry the record (a note or `.other` in an H4 link type, a record with no monitor
    /// form in 254). `CaptureRecord.setPcapHCIPacket` reads it back.
    public static func packet(_ record: CaptureRecord, linkType: PcapLinkType) -> (bytes: [UInt8], originalLength: Int)? {
        var packet: [UInt8] = []
        switch linkType {
        case .bluetoothHCIH4:
            guard let h4 = RecordEncoding.h4Packet(record) else { return nil }
            return (h4, RecordEncoding.h4OriginalLength(record))
        case .bluetoothHCIH4WithPHDR:
            guard let h4 = RecordEncoding.h4Packet(record) else { return nil }
            packet.reserveCapacity(4 + h4.count)
            packet.appendBigEndian(UInt32(RecordEncoding.isReceived(record) ? 1 : 0))
            packet += h4
            return (packet, 4 + RecordEncoding.h4OriginalLength(record))
        default:
            guard let monitor = RecordEncoding.monitorPacket(record) else { return nil }
            packet.reserveCapacity(4 + monitor.body.count)
            packet.appendBigEndian(record.controllerIndex)
            packet.appendBigEndian(monitor.opcode.rawValue)
            packet += monitor.body
            return (packet, 4 + monitor.originalLength)
        }
    }

    /// Appends a record holding `packet` (from `packet(_:linkType:)`), stamped `timestamp` µs
    /// since the Unix epoch (`headerTime`); `frameNumber` names it in an error.
    public func write(packet: [UInt8], originalLength: Int, timestamp: Int64, frameNumber: Int) throws(CaptureError) {
        guard let dumper else {
            throw CaptureError(path: path, kind: .unwritable, message: "writer is closed")
        }
        guard packet.count <= Int(Self.snapshotLength),
              let captured = UInt32(exactly: packet.count), let original = UInt32(exactly: originalLength) else {
            throw CaptureError(path: path, kind: .unsupported, message:
                "record \(frameNumber): \(packet.count)-byte packet is larger than the snapshot length")
        }
        let time = Self.headerTime(timestamp)
        if time.clamped { timestampsClamped += 1 }
        var header = pcap_pkthdr()
        header.ts.tv_sec = Int(time.seconds)
        header.ts.tv_usec = Int(time.micros)
        header.caplen = captured
        header.len = max(original, captured)
        packet.withUnsafeBufferPointer { bytes in
            pcap_dump(UnsafeMutablePointer<UInt8>(dumper), &header, bytes.baseAddress)
        }
        recordsWritten += 1
        bytesWritten += 16 + packet.count
    }

    /// Writes what libpcap has buffered without closing, so a file being recorded can be read.
    public func flush() throws(CaptureError) {
        guard let dumper else { return }
        guard pcap_dump_flush(dumper) == 0 else {
            throw CaptureError(path: path, kind: .unwritable, message: "write failed: \(Errno.current)")
        }
    }

    /// A record header's time for `us` µs since the Unix epoch: whole seconds and the floored
    /// remainder, computed without overflow for any `Int64` (timestamps come from files). The
    /// header's seconds field is 32 bits, read unsigned (1970 to 2106; libpcap's `pcap_dump`
    /// truncates wider values to a wrong time): outside it, the nearest time it holds, `clamped`.
    public static func headerTime(_ us: Int64) -> (seconds: UInt32, micros: UInt32, clamped: Bool) {
        var seconds = us / 1_000_000, micros = us % 1_000_000
        if micros < 0 { seconds -= 1; micros += 1_000_000 }
        if seconds < 0 { return (0, 0, true) }
        guard let s = UInt32(exactly: seconds) else { return (.max, 999_999, true) }
        return (s, UInt32(micros), false)
    }

    /// Flushes and closes the file. Closing twice is harmless.
    public func close() throws(CaptureError) {
        guard let dumper else { return }
        self.dumper = nil
        let flushed = pcap_dump_flush(dumper) == 0
        let file = pcap_dump_file(dumper)
        let failed = !flushed || (file.map { ferror($0) != 0 } ?? false)
        pcap_dump_close(dumper)
        if failed {
            throw CaptureError(path: path, kind: .unwritable, message: "write failed: \(Errno.current)")
        }
    }
}
