/// One pcapng block's header, as the walks beside libpcap read it (`PcapngInterfaceWalk`,
/// `PcapngInterfaceLinkTypes`): draft-ietf-opsawg-pcapng 3.1, a u32 Block Type then a u32 Block
/// Total Length, in the byte order of the block's section; a Section Header Block (4.1) sets its
/// own by its Byte-Order Magic (block offset 8), and its Block Type reads the same either way.
///
/// What each walk then requires of the block differs (the interface walk follows libpcap, the
/// damage search is stricter per block type, the link-type scan stops at the first short block),
/// so this reads and checks only what all of them share.
struct PcapngBlockHeader {
    /// Where the block starts in the file.
    let offset: Int
    /// Its first 12 bytes, fewer at the end of the file: a packet block's Interface ID and an
    /// Interface Description Block's LinkType are at offset 8.
    let bytes: [UInt8]
    /// The byte order of the block: a Section Header Block's own (its Byte-Order Magic), else
    /// its section's.
    let bigEndian: Bool
    let type: UInt32
    /// Block Total Length (3.1), header and trailer included.
    let length: Int

    /// Reads the header at `offset` of a block in a section of byte order `sectionBigEndian`.
    /// Nil when fewer than 8 bytes are left there, or fewer than 12 for a Section Header Block
    /// (its Byte-Order Magic cut).
    init?(at offset: Int, sectionBigEndian: Bool, read: (Int, Int) -> [UInt8]) {
        let bytes = read(offset, 12)
        guard bytes.count >= 8 else { return nil }
        let type = bytes.uint32(at: 0, bigEndian: sectionBigEndian)
        var bigEndian = sectionBigEndian
        if type == PcapngInterfaceWalk.sectionHeader {
            guard bytes.count >= 12 else { return nil }
            bigEndian = bytes.uint32(at: 8, bigEndian: false) != PcapngInterfaceWalk.byteOrderMagic
        }
        self.offset = offset
        self.bytes = bytes
        self.bigEndian = bigEndian
        self.type = type
        length = Int(bytes.uint32(at: 4, bigEndian: bigEndian))
    }

    var isSectionHeader: Bool { type == PcapngInterfaceWalk.sectionHeader }

    /// Where the next block starts: nil when the Block Total Length is under `minimum` (12, the
    /// header and trailer alone, or a block type's fixed fields), not a multiple of 4 (3.1), or
    /// past any offset.
    func end(minimum: Int = 12) -> Int? {
        guard length >= minimum, length % 4 == 0, case (let next, false) = offset.addingReportingOverflow(length) else { return nil }
        return next
    }
}
