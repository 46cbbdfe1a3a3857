import BLECore

/// Streams a pcapng file whose interfaces do not share one link type (a Wireshark merge of an
/// LINKTYPE 201 log and an LINKTYPE 187 one, a monitor capture beside an H4 one). libpcap refuses
/// those ("an interface has a type … different from the type of the first interface"); Wireshark
/// reads them, so `CaptureFile` hands them here. Files with one link type stay with `PcapReader`.
///
/// Block layout (IETF draft-ietf-opsawg-pcapng, "PCAP Now Generic"): u32 Block Type, u32 Block
/// Total Length, body, u32 Block Total Length again; lengths are multiples of 4, in the byte order
/// the Section Header Block's Byte-Order Magic 0x1A2B3C4D gives. Read: Section Header (0x0A0D0D0A,
/// starts a section and its interface list), Interface Description (1: LinkType u16, Reserved u16,
/// SnapLen u32, options; if_tsresol = option 9, if_tsoffset = option 14), Enhanced Packet (6:
/// Interface ID u32, Timestamp high u32, low u32, Captured Length u32, Original Length u32, data),
/// Simple Packet (3: Original Length u32, data; interface 0, no timestamp), the obsolete Packet
/// Block (2: Interface ID u16, Drops u16, then as an Enhanced Packet). Other blocks are skipped.
/// Each packet is read as its own interface's link type (`PcapReader.record`).
public struct PcapngReader: CaptureReader {
    public let info: CaptureInfo
    public let path: String
    public var warnings: [CaptureWarning] { window.warnings }
    public var bytesRead: Int { window.input.offset }

    struct Interface {
        var linkType: PcapLinkType
        /// Timestamp units per second (if_tsresol; 10^6 by default).
        var unitsPerSecond: UInt64
        /// if_tsoffset: seconds added to every timestamp.
        var offsetSeconds: Int64
    }

    private var window: RecordWindow
    private var bigEndian = false
    private var interfaces: [Interface] = []
    private var frameNumber = 0
    /// Largest block accepted: a packet of a 16 MiB snapshot and its headers.
    static let maximumBlock = 16 << 20

    /// `linkTypes`: the interfaces' link types found by `interfaceLinkTypes` (for the description).
    init(input: InputWindow, path: String, linkTypes: [PcapLinkType]) {
        self.path = path
        window = RecordWindow(input: input, path: path)
        let names = linkTypes.map { String($0.rawValue) }.joined(separator: ", ")
        info = CaptureInfo(format: .pcapng, linkType: linkTypes.first?.rawValue ?? 0,
                           formatDescription: "pcapng, interfaces with link types \(names)")
    }

    public mutating func next() throws(CaptureError) -> CaptureRecord? {
        while true {
            guard let header = try window.nextHeader(length: 12) else { return nil }
            let offset = window.input.offset
            let type = header.uint32(at: 0, bigEndian: bigEndian)
            if type == 0x0A0D0D0A {
                // The byte-order magic decides the order of everything in the section.
                switch header.uint32(at: 8, bigEndian: false) {
                case 0x1A2B3C4D: bigEndian = false
                case 0x4D3C2B1A: bigEndian = true
                default: try window.fail("pcapng Section Header Block with a bad byte-order magic")
                }
                interfaces.removeAll()
            }
            let length = Int(header.uint32(at: 4, bigEndian: bigEndian))
            guard length >= 12, length % 4 == 0, length <= Self.maximumBlock else {
                try window.fail("pcapng block of type \(type) with impossible length \(length)")
            }
            guard let p = try window.wholeRecord(length: length) else { return nil }
            let block = UnsafeRawBufferPointer(start: p, count: length)
            defer { window.consume(length) }
            switch type {
            case 1:
                interfaces.append(interface(block))
            case 6, 2:
                guard length >= 32 else { try window.fail("pcapng packet block of \(length) bytes") }
                let id = type == 6 ? Int(p.uint32(at: 8, bigEndian: bigEndian))
                    : Int(p.uint16(at: 8, bigEndian: bigEndian))
                guard id < interfaces.count else {
                    try window.fail("pcapng packet for interface \(id); \(interfaces.count) described")
                }
                let ticks = UInt64(p.uint32(at: 12, bigEndian: bigEndian)) << 32
                    | UInt64(p.uint32(at: 16, bigEndian: bigEndian))
                let captured = Int(p.uint32(at: 20, bigEndian: bigEndian))
                let original = Int(p.uint32(at: 24, bigEndian: bigEndian))
                guard captured <= length - 32 else {
                    try window.fail("pcapng packet of \(captured) bytes in a block of \(length)")
                }
                return packet(interfaces[id], ticks: ticks, data: UnsafeRawBufferPointer(rebasing: block[28..<(28 + captured)]),
                              original: original, offset: offset)
            case 3:
                guard let first = interfaces.first, length >= 16 else {
                    try window.fail("pcapng Simple Packet Block without an interface")
                }
                let original = Int(p.uint32(at: 8, bigEndian: bigEndian))
                let captured = min(original, length - 16)
                return packet(first, ticks: nil, data: UnsafeRawBufferPointer(rebasing: block[12..<(12 + captured)]),
                              original: original, offset: offset)
            default:
                continue
            }
        }
    }

    private mutating func packet(_ interface: Interface, ticks: UInt64?, data: UnsafeRawBufferPointer,
                                 original: Int, offset: Int) -> CaptureRecord {
        frameNumber += 1
        let micros = ticks.map { Self.microseconds($0, interface) } ?? 0
        return PcapReader.record(frameNumber: frameNumber, timestamp: micros, fileOffset: offset,
                                 linkType: interface.linkType, packet: data, wireLength: original)
    }

    /// Ticks of `interface.unitsPerSecond` since the epoch (plus if_tsoffset) in microseconds.
    static func microseconds(_ ticks: UInt64, _ interface: Interface) -> Int64 {
        let units = max(interface.unitsPerSecond, 1)
        let seconds = ticks / units
        let fraction = ticks % units
        let micros = units <= 1 << 43 ? fraction * 1_000_000 / units
            : UInt64(Double(fraction) / Double(units) * 1_000_000)
        return (Int64(truncatingIfNeeded: seconds) &+ interface.offsetSeconds) &* 1_000_000
            &+ Int64(truncatingIfNeeded: micros)
    }

    /// An Interface Description Block: link type and the timestamp options.
    private func interface(_ block: UnsafeRawBufferPointer) -> Interface {
        guard let p = block.baseAddress, block.count >= 20 else {
            return Interface(linkType: PcapLinkType(rawValue: 0), unitsPerSecond: 1_000_000, offsetSeconds: 0)
        }
        var result = Interface(linkType: PcapLinkType(rawValue: UInt32(p.uint16(at: 8, bigEndian: bigEndian))),
                               unitsPerSecond: 1_000_000, offsetSeconds: 0)
        var i = 16
        let end = block.count - 4
        while i + 4 <= end {
            let code = p.uint16(at: i, bigEndian: bigEndian)
            let size = Int(p.uint16(at: i + 2, bigEndian: bigEndian))
            if code == 0 || i + 4 + size > end { break }
            if code == 9, size >= 1 {
                // if_tsresol: bit 7 clear = 10^-n seconds, set = 2^-n seconds
                let v = block[i + 4]
                let n = UInt64(v & 0x7F)
                if v & 0x80 != 0 {
                    result.unitsPerSecond = n < 64 ? 1 << n : 1_000_000
                } else if n <= 19 {
                    result.unitsPerSecond = (0..<n).reduce(UInt64(1)) { r, _ in r * 10 }
                }
            } else if code == 14, size >= 8 {
                let hi = UInt64(p.uint32(at: i + 4, bigEndian: bigEndian))
                let lo = UInt64(p.uint32(at: i + 8, bigEndian: bigEndian))
                result.offsetSeconds = Int64(bitPattern: bigEndian ? hi << 32 | lo : lo << 32 | hi)
            }
            i += 4 + (size + 3) / 4 * 4
        }
        return result
    }

    /// The link types of the Interface Description Blocks among the first `limit` blocks, read
    /// with `read(offset, count)`; nil when the bytes are not a well-formed pcapng start. Used
    /// to decide whether libpcap can read the file.
    static func interfaceLinkTypes(limit: Int = 4096,
                                   read: (_ offset: Int, _ count: Int) -> [UInt8]) -> [PcapLinkType]? {
        func u32(_ b: [UInt8], _ at: Int, _ bigEndian: Bool) -> UInt32 {
            let v = b[at..<(at + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return bigEndian ? v : v.byteSwapped
        }
        var offset = 0
        var bigEndian = false
        var types: [PcapLinkType] = []
        for _ in 0..<limit {
            let head = read(offset, 12)
            guard head.count == 12 else { break }
            if head[0..<4].elementsEqual([0x0A, 0x0D, 0x0D, 0x0A]) {
                switch u32(head, 8, false) {
                case 0x1A2B3C4D: bigEndian = false
                case 0x4D3C2B1A: bigEndian = true
                default: return nil
                }
            } else if offset == 0 {
                return nil
            }
            let length = Int(u32(head, 4, bigEndian))
            guard length >= 12, length % 4 == 0 else { break }
            if u32(head, 0, bigEndian) == 1 {
                let body = read(offset + 8, 2)
                guard body.count == 2 else { break }
                let raw = bigEndian ? UInt16(body[0]) << 8 | UInt16(body[1]) : UInt16(body[1]) << 8 | UInt16(body[0])
                types.append(PcapLinkType(rawValue: UInt32(raw)))
            }
            offset += length
        }
        return types
    }
}
