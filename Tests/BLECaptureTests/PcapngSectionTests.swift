import BLECore
import Testing
@testable import BLECapture

/// pcapng sections (draft-ietf-opsawg-pcapng 4.1): a file may hold several, each starting with
/// its own Section Header Block and byte order, as `cat a.pcapng b.pcapng` makes. libpcap 1.10
/// reads a second section of the same byte order, and refuses one of the other order (it reads
/// the new section's block lengths in the old order): the records before it are kept and the
/// error says what the bytes there are, not a nonsense block size.
@Suite("pcapng sections")
struct PcapngSectionTests {
    /// `SampleCaptures.pcapngH4WithPHDR` written big-endian: SHB, IDB (LINKTYPE 201), two EPBs.
    static let bigEndianSection: [UInt8] = [
        // SHB: type 0A0D0D0A, length 28, byte-order magic 1A2B3C4D (big-endian), version 1.0, section length -1
        0x0A, 0x0D, 0x0D, 0x0A, 0x00, 0x00, 0x00, 0x1C, 0x1A, 0x2B, 0x3C, 0x4D, 0x00, 0x01, 0x00, 0x00,
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x1C,
        // IDB: type 1, length 20, LINKTYPE 201, reserved, snaplen 262144
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x14, 0x00, 0xC9, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x14,
        // EPB: type 6, length 40, interface 0, timestamp 0x00060A24_181E4000 µs, caplen 8, len 8
        0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x06, 0x0A, 0x24,
        0x18, 0x1E, 0x40, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x08,
        // direction 0 | 01 03 0C 00 HCI_Reset | length 40
        0x00, 0x00, 0x00, 0x00, 0x01, 0x03, 0x0C, 0x00, 0x00, 0x00, 0x00, 0x28,
    ]

    @Test func aSecondSectionInTheSameByteOrderIsRead() {
        let one = SampleCaptures.pcapngH4WithPHDR.bytes
        let result = readAll(bytes: one + one)
        #expect(result.error == nil)
        #expect(result.records.count == 4)
        #expect(result.records.map(\.payload.count) == [3, 6, 3, 6])
    }

    @Test func aSecondSectionInTheOtherByteOrderIsNamed() throws {
        let little = SampleCaptures.pcapngH4WithPHDR.bytes   // 132 bytes, two records
        let result = readAll(bytes: little + Self.bigEndianSection)
        #expect(result.records.count == 2)
        let error = try #require(result.error)
        #expect(error.offset == 132)
        #expect(error.message.contains("a second pcapng section starts at byte 132 in the other byte order (big-endian after little-endian)"))
        // The same the other way round: big-endian first.
        let reversed = readAll(bytes: Self.bigEndianSection + little)
        #expect(reversed.records.count == 1)
        #expect(reversed.error?.message.contains("in the other byte order (little-endian after big-endian)") == true)
    }

    /// Interface IDs start again at 0 in each section (4.1, 4.2): a second section's interface 0
    /// is another interface than the first section's, numbered after the first section's last
    /// (`PcapngInterfaceWalk`). Its own if_tsresol (option 9: 10^-9 s) applies to its packets.
    @Test func aSecondSectionsInterfacesAreNotTheFirstOnes() throws {
        typealias B = PcapngBlocks
        let t: UInt64 = 1_700_000_000_000_000
        let first = B.sectionHeader() + B.interface(linkType: 201, options: B.option(2, Array("hci0".utf8)))
            + B.interface(linkType: 201, options: B.option(2, Array("hci1".utf8)))
            + B.enhancedPacket(interface: 1, timestamp: t, B.reset)
            + B.enhancedPacket(interface: 0, timestamp: t + 1_000, B.resetComplete)
        let second = B.sectionHeader() + B.interface(linkType: 201, options: B.option(9, [9]))
            + B.enhancedPacket(interface: 0, timestamp: (t + 2_000) * 1_000, B.reset)
            + B.enhancedPacket(interface: 0, timestamp: (t + 3_000) * 1_000, B.resetComplete)
        let third = B.sectionHeader() + B.interface(linkType: 201) + B.interface(linkType: 201)
            + B.enhancedPacket(interface: 1, timestamp: t + 4_000, B.reset)
        let result = readAll(bytes: first + second + third)
        #expect(result.error == nil)
        #expect(result.records.map(\.controllerIndex) == [1, 0, 2, 2, 4])
        #expect(result.records.map(\.timestamp) == [0, 1_000, 2_000, 3_000, 4_000].map { Int64(t) + $0 })
        #expect(result.records.map(\.kind) == [.command, .event, .command, .event, .command])
        // The same file through libpcap's own reading of a path.
        let dir = try makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        try writeFile(dir + "/sections.pcapng", first + second + third)
        #expect(readAll(path: dir + "/sections.pcapng").records.map(\.controllerIndex) == [1, 0, 2, 2, 4])
    }
}
