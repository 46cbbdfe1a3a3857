/// The link types of a pcapng's interfaces, and the copy of a file whose interfaces differ in
/// them that libpcap reads.
///
/// pcapng gives every interface its own LinkType and SnapLen (draft-ietf-opsawg-pcapng 4.2:
/// u16 LinkType at body offset 0, i.e. block offset 8; u16 Reserved; u32 SnapLen at block
/// offset 12). libpcap 1.10 takes one of each per file: an Interface Description Block that
/// differs from the first in either ends the read ("an interface has a type X different from
/// the type of the first interface", pcap-ng.c). `unify` rewrites those fields in a copy of the
/// file, nothing else, so libpcap reads it and every byte offset stays the file's; which
/// interface a packet is on, and so its real link type, `PcapngInterfaceWalk` reads from the
/// file as given.
enum PcapngInterfaceLinkTypes {
    /// The LinkType of every Interface Description Block before the first packet block (4.3,
    /// 4.4, Appendix A), in file order; when none of those is a link type BLECapture reads
    /// (`PcapLinkType.decodedLayer`), of every IDB up to the first one that is, wherever it is
    /// (a file that begins with an Ethernet interface), else of the whole file. Stops at a block
    /// header it cannot read (libpcap reports the damage).
    static func described(size: Int, read: (Int, Int) -> [UInt8]) -> [PcapLinkType] {
        var types: [PcapLinkType] = []
        var sawPacket = false
        forEachBlock(size: size, read: read) { type, _, header, bigEndian in
            switch type {
            case PcapngInterfaceWalk.interfaceDescription:
                guard header.count >= 10 else { return false }
                let linkType = PcapLinkType(rawValue: UInt32(header.uint16(at: 8, bigEndian: bigEndian)))
                types.append(linkType)
                return !(sawPacket && linkType.decodedLayer != nil)
            case PcapngInterfaceWalk.enhancedPacket, PcapngInterfaceWalk.simplePacket, PcapngInterfaceWalk.packet:
                sawPacket = true
                return !types.contains { $0.decodedLayer != nil }
            default:
                return true
            }
        }
        return types
    }

    /// Rewrites every Interface Description Block of the file that `read` and `write` reach
    /// (a copy: `size` bytes) to LinkType `linkType` and SnapLen 0 (4.2: no limit; libpcap
    /// takes its own maximum for the link type), in each section's byte order (4.1). Returns
    /// how many it rewrote. Stops at a block header it cannot read, as libpcap will.
    ///
    /// `linkType` must be one libpcap hands over as it is (not in
    /// `PcapLinkType.postProcessedByLibpcap`): every packet of the copy is read as that type.
    static func unify(to linkType: PcapLinkType, size: Int, read: (Int, Int) -> [UInt8],
                      write: (Int, [UInt8]) -> Bool) -> Int {
        var rewritten = 0
        let type = UInt16(truncatingIfNeeded: linkType.rawValue)
        forEachBlock(size: size, read: read) { blockType, at, header, bigEndian in
            // An IDB too short for its fixed fields (20 bytes) is damage libpcap reports: left as it is.
            guard blockType == PcapngInterfaceWalk.interfaceDescription,
                  header.uint32(at: 4, bigEndian: bigEndian) >= 20 else { return true }
            let fields = bigEndian ? [UInt8(type >> 8), UInt8(type & 0xFF), 0, 0, 0, 0, 0, 0]
                                   : [UInt8(type & 0xFF), UInt8(type >> 8), 0, 0, 0, 0, 0, 0]
            // LinkType, Reserved (0, as 4.2 asks) and SnapLen at block offset 8.
            guard write(at + 8, fields) else { return false }
            rewritten += 1
            return true
        }
        return rewritten
    }

    /// Calls `body(type, offset, header, bigEndian)` for each block from the start of the file
    /// (`header` its first 12 bytes at most; a Section Header Block sets the byte order of the
    /// blocks after it, 4.1) while `body` returns true and the block is whole within `size`
    /// with a Block Total Length of 12 or more and a multiple of 4 (3.1).
    private static func forEachBlock(size: Int, read: (Int, Int) -> [UInt8],
                                     _ body: (UInt32, Int, [UInt8], Bool) -> Bool) {
        var at = 0
        var bigEndian = false
        while at < size, let block = PcapngBlockHeader(at: at, sectionBigEndian: bigEndian, read: read) {
            bigEndian = block.bigEndian
            guard let next = block.end(), next <= size, body(block.type, at, block.bytes, bigEndian) else { return }
            at = next
        }
    }
}
