import BLECore

/// The interface each pcapng packet was captured on, found by walking block headers beside libpcap.
///
/// pcapng numbers a section's interfaces in the order of their Interface Description Blocks
/// (draft-ietf-opsawg-pcapng 4.2), and an Enhanced Packet Block names its interface by that
/// number (4.3: u32 Interface ID at offset 8); a Simple Packet Block belongs to interface 0
/// (4.4); the obsolete Packet Block carries a u16 Interface ID at offset 8 (Appendix A). A
/// Section Header Block (4.1) starts the count again and sets the byte order.
///
/// It keeps each interface's LinkType (4.2: u16 at body offset 0, block offset 8, read with the
/// block header): a file may give its interfaces different link types (Wireshark capturing
/// `bluetooth0` and `bluetooth-monitor` at once, `mergecap` of two captures), and the reader
/// decodes each packet by its own interface's (`linkType(ofInterface:)`).
///
/// For a packet of a LINKTYPE 187 interface it also reads the Enhanced Packet Block's `epb_flags`
/// option (4.3.1, code 2: bits 0-1 inbound 01 / outbound 10), the only direction such a packet
/// has; tshark takes it as the packet's (Sent / Rcvd).
///
/// The interfaces of the whole file are numbered in the order of their IDBs, across sections:
/// a later section's interface k is the number of IDBs in the sections before it plus k, so
/// interface 0 of a second section (its own adapter, with its own link type, resolution and
/// connection handles) is never taken for interface 0 of the first; a file of one section keeps
/// its Interface IDs.
///
/// Why a walk of our own: libpcap 1.10, which reads every packet here, keeps the interface ID of
/// an Enhanced Packet Block to itself (`pcap_next_ex` gives a `pcap_pkthdr` and the bytes, no
/// interface). Wireshark writes one interface per adapter when it captures two Bluetooth
/// adapters at once (or `mergecap` joins two captures), each numbering its own connection
/// handles; without the interface the two adapters' links merge. So this reads block type,
/// block length and a packet block's interface ID (nothing else), from the position where the
/// previous packet's block ended to the position libpcap stopped at after the next one (its
/// stream's `ftell`): the last packet block in between is the packet libpcap returned. Damage is
/// libpcap's to report: a header the walk cannot read ends the walk, and packets then count as
/// interface 0.
struct PcapngInterfaceWalk {
    /// Where the walk stands: the end of the last block it read.
    private(set) var position = 0
    /// Interface Description Blocks seen in the current section.
    private(set) var interfaces = 0
    /// Interface Description Blocks of the sections before the current one.
    private(set) var earlierInterfaces = 0
    private var bigEndian = false
    /// False once a block header could not be read.
    private var inStep = true
    /// The LinkType of every interface described so far, numbered across sections as
    /// `PacketBlock.interface` is.
    private(set) var linkTypes: [PcapLinkType] = []
    /// Option bytes read at most per block when looking for `epb_flags`.
    static let optionsLookedAt = 4096

    /// The SHB's Block Type (4.1), the same in either byte order.
    static let sectionHeader: UInt32 = 0x0A0D_0D0A
    /// The SHB's Byte-Order Magic (4.1), read little-endian.
    static let byteOrderMagic: UInt32 = 0x1A2B_3C4D
    static let interfaceDescription: UInt32 = 1
    static let packet: UInt32 = 2
    static let simplePacket: UInt32 = 3
    static let enhancedPacket: UInt32 = 6
    /// Bytes from the start of an Enhanced Packet Block (4.3) or an obsolete Packet Block
    /// (Appendix A) to its packet data: type, length, interface, timestamp, captured and
    /// original length.
    static let enhancedPacketDataOffset = 28
    /// Bytes from the start of a Simple Packet Block (4.4) to its packet data: type, length,
    /// original length.
    static let simplePacketDataOffset = 12

    /// A packet block the walk found: its interface, numbered across the file's sections,
    /// whether the block carries a timestamp (a Simple Packet Block does not, 4.4), and where
    /// it and its packet data start in the file.
    struct PacketBlock: Sendable, Hashable {
        var interface: UInt32
        var hasTimestamp: Bool
        /// Offset of the block in the file (tshark's `frame.file_off`).
        var start: Int
        /// Offset of the packet data in the file: `start` plus 28 (EPB, PB) or 12 (SPB).
        var dataStart: Int
        /// From `epb_flags` (only with `readsDirection`): nil when the block does not say.
        var direction: Direction? = nil
    }

    /// Walks the blocks in `position..<end` (bytes from `read(offset, count)`) and returns the
    /// last packet block among them, nil when there was none or the walk lost its footing.
    mutating func advance(to end: Int, read: (Int, Int) -> [UInt8]) -> PacketBlock? {
        var block: PacketBlock?
        while inStep, position < end {
            guard let blockHeader = PcapngBlockHeader(at: position, sectionBigEndian: bigEndian, read: read) else { inStep = false; break }
            if blockHeader.isSectionHeader {
                bigEndian = blockHeader.bigEndian
                earlierInterfaces += interfaces
                interfaces = 0
            }
            guard let next = blockHeader.end() else { inStep = false; break }
            let header = blockHeader.bytes, length = blockHeader.length
            switch blockHeader.type {
            case Self.interfaceDescription:
                interfaces += 1
                // Cut before its LinkType by the end of the file: no packet follows to name it.
                linkTypes.append(PcapLinkType(rawValue: header.count >= 10
                                              ? UInt32(header.uint16(at: 8, bigEndian: bigEndian)) : .max))
            case Self.enhancedPacket where header.count >= 12:
                block = packetBlock(header.uint32(at: 8, bigEndian: bigEndian), at: position,
                                    dataOffset: Self.enhancedPacketDataOffset)
                // Costs a read per such block: only LINKTYPE 187 has no direction of its own.
                if let interface = block?.interface, linkType(ofInterface: interface) == .bluetoothHCIH4 {
                    block?.direction = flagsDirection(blockAt: position, length: length, read: read)
                }
            case Self.packet where header.count >= 10:
                block = packetBlock(UInt32(header.uint16(at: 8, bigEndian: bigEndian)),
                                    at: position, dataOffset: Self.enhancedPacketDataOffset)
            case Self.simplePacket:
                block = packetBlock(0, at: position, dataOffset: Self.simplePacketDataOffset, hasTimestamp: false)
            default:
                break
            }
            position = next
        }
        // libpcap stopped elsewhere (it skipped or re-read bytes): follow it.
        if position != end { inStep = false }
        return inStep ? block : nil
    }

    /// The LinkType of interface `interface` (numbered across sections), nil when no Interface
    /// Description Block the walk read describes it.
    func linkType(ofInterface interface: UInt32) -> PcapLinkType? {
        guard let index = Int(exactly: interface), index < linkTypes.count else { return nil }
        return linkTypes[index]
    }

    /// Where the damage that stopped libpcap starts: the first block from the walk's position on
    /// that cannot be read whole (its header or body cut by the end of the file at `size`, a
    /// Block Total Length under 12, not a multiple of 4 or shorter than its block type's fixed
    /// fields, a trailing Block Total Length that differs, 3: Block Structure), or a Section
    /// Header Block in the other byte order (4.1, which libpcap cannot follow), or a packet block
    /// naming an interface no Interface Description Block of its section described (4.3, 4.4,
    /// Appendix A; libpcap stops there too, and a later damaged block is not what stopped it).
    /// Nil when the walk lost its footing or finds no such block.
    func damage(size: Int, read: (Int, Int) -> [UInt8]) -> Int? {
        guard inStep else { return nil }
        var at = position
        var described = interfaces
        while at < size {
            guard let block = PcapngBlockHeader(at: at, sectionBigEndian: bigEndian, read: read),
                  block.bigEndian == bigEndian else { return at }
            let header = block.bytes, type = block.type
            let minimum = [Self.sectionHeader: 28, Self.interfaceDescription: 20, Self.packet: 32,
                           Self.simplePacket: 16, Self.enhancedPacket: 32][type] ?? 12
            guard let next = block.end(minimum: minimum), next <= size else { return at }
            let trailer = read(next - 4, 4)
            guard trailer.count == 4, Int(trailer.uint32(at: 0, bigEndian: bigEndian)) == block.length else { return at }
            switch type {
            case Self.sectionHeader: described = 0
            case Self.interfaceDescription: described += 1
            case Self.enhancedPacket: if header.uint32(at: 8, bigEndian: bigEndian) >= described { return at }
            case Self.packet: if header.uint16(at: 8, bigEndian: bigEndian) >= described { return at }
            case Self.simplePacket: if described == 0 { return at }
            default: break
            }
            at = next
        }
        return nil
    }

    /// The direction an EPB's `epb_flags` option gives (4.3.1, 4.3: the options follow the packet
    /// data, padded to 32 bits, up to the trailing Block Total Length), nil when it has none.
    private func flagsDirection(blockAt start: Int, length: Int, read: (Int, Int) -> [UInt8]) -> Direction? {
        let header = read(start, 28)
        guard header.count == 28 else { return nil }
        let captured = Int(header.uint32(at: 20, bigEndian: bigEndian))
        guard case (let padded, false) = captured.addingReportingOverflow((4 - captured % 4) % 4),
              case (let from, false) = padded.addingReportingOverflow(28), from < length - 4 else { return nil }
        let options = read(start + from, min(length - 4 - from, Self.optionsLookedAt))
        var i = 0
        while i + 4 <= options.count {
            let code = options.uint16(at: i, bigEndian: bigEndian)
            let size = Int(options.uint16(at: i + 2, bigEndian: bigEndian))
            if code == 0 { return nil }   // opt_endofopt
            if code == 2, size == 4, i + 8 <= options.count {
                switch options.uint32(at: i + 4, bigEndian: bigEndian) & 0x3 {
                case 1: return .received
                case 2: return .sent
                default: return nil
                }
            }
            i += 4 + size + (4 - size % 4) % 4
        }
        return nil
    }

    /// The block at `start` of the current section's interface `id`, its data `dataOffset` bytes in.
    private func packetBlock(_ id: UInt32, at start: Int, dataOffset: Int, hasTimestamp: Bool = true) -> PacketBlock {
        let (sum, overflow) = UInt32(clamping: earlierInterfaces).addingReportingOverflow(id)
        return PacketBlock(interface: overflow ? .max : sum, hasTimestamp: hasTimestamp, start: start,
                           dataStart: start + dataOffset)
    }
}
