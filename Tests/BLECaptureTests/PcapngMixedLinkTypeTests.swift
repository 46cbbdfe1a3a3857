import BLECore
import Testing
@testable import BLECapture

/// pcapng files whose interfaces differ in link type (draft-ietf-opsawg-pcapng 4.2: a LinkType
/// per Interface Description Block), as Wireshark writes them capturing `bluetooth0` (201) and
/// `bluetooth-monitor` (254) at once, or `mergecap` of two captures. libpcap 1.10 stops at the
/// first IDB that differs from the first; `PcapReader` reads on from a copy whose IDBs all say
/// one link type, and reads each packet by its own interface's.
@Suite("pcapng interfaces of different link types")
struct PcapngMixedLinkTypeTests {
    typealias B = PcapngBlocks
    static let t: UInt64 = 1_700_000_000_000_000

    /// A LINKTYPE_BLUETOOTH_LINUX_MONITOR packet: adapter index u16 BE, opcode u16 BE (2 command,
    /// 3 event, 5 ACL RX), the HCI packet without its H4 type byte.
    static func monitor(adapter: UInt16, opcode: UInt16, _ body: [UInt8]) -> [UInt8] {
        .be16(adapter) + .be16(opcode) + body
    }
    /// 0E 04 01 03 0C 00: Command Complete for HCI_Reset, on `adapter`.
    static func monitorResetComplete(adapter: UInt16) -> [UInt8] {
        monitor(adapter: adapter, opcode: 3, [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
    }
    /// 01 | 03 0C 00: HCI_Reset as a LINKTYPE_BLUETOOTH_HCI_H4 packet.
    static let h4Reset: [UInt8] = [0x01, 0x03, 0x0C, 0x00]
    /// 02 | 40 00 | 00 00: an empty ACL packet on handle 0x0040, as LINKTYPE 187 (no direction).
    static let h4EmptyACL: [UInt8] = [0x02, 0x40, 0x00, 0x00, 0x00]
    /// An Ethernet frame: destination, source, EtherType 0x0800, no payload.
    static let ethernet: [UInt8] = [UInt8](repeating: 0xFF, count: 6) + [0x02, 0, 0, 0, 0, 1] + [0x08, 0x00]

    /// An Interface Description Block with its own SnapLen (4.2).
    static func interface(linkType: UInt16, snapLength: UInt32) -> [UInt8] {
        B.block(1, .le16(linkType) + .le16(0) + .le32(snapLength))
    }

    struct Read {
        var info: CaptureInfo?
        var records: [CaptureRecord] = []
        var notes: [CaptureWarning] = []
        var error: CaptureError?

        /// What a record says, offsets included, for comparing two reads.
        var lines: [String] {
            records.map { "\($0.frameNumber) @\($0.fileOffset)-\($0.headerShortfall) \($0.direction) \($0.kind) "
                + "\($0.rawType) c\($0.controllerIndex) \($0.payload)" }
        }
    }

    static func drain(_ open: () throws -> any CaptureReader) -> Read {
        var read = Read()
        do {
            var reader = try open()
            read.info = reader.info
            do {
                while let record = try reader.next() { read.records.append(record) }
            } catch {
                read.error = error
            }
            read.notes = reader.notes
        } catch {
            read.error = error as? CaptureError
        }
        return read
    }

    /// Reads `bytes` as a file (libpcap reopens a scratch copy), from memory (a pipe, stdin: a
    /// copy in memory) and gzip-compressed (a scratch file of the decompressed bytes, copied),
    /// expects the three to agree, and returns the file's read.
    static func read(_ bytes: [UInt8]) throws -> Read {
        let dir = try makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        try writeFile(dir + "/mixed.pcapng", bytes)
        let file = drain { try CaptureFile.open(dir + "/mixed.pcapng") }
        let memory = drain { try CaptureFile.open(source: MemorySource(bytes, name: "<memory>")) }
        try writeFile(dir + "/mixed.pcapng.gz", GzipFixtures.compressed(bytes))
        let gzip = drain { try CaptureFile.open(dir + "/mixed.pcapng.gz") }
        #expect(memory.lines == file.lines)
        #expect(gzip.lines == file.lines)
        #expect(memory.error?.kind == file.error?.kind && gzip.error?.kind == file.error?.kind)
        #expect(memory.notes.map(\.offset) == file.notes.map(\.offset))
        return file
    }

    /// The byte each command and event's payload starts at, as the importer counts it (the
    /// capture's link type's payload start past a 28-byte EPB header, less `headerShortfall`),
    /// holds that payload: decode offsets name the packet's own bytes whatever its link type.
    static func expectPayloadsAtTheirOwnBytes(_ read: Read, in bytes: [UInt8]) {
        guard let info = read.info else { return }
        // Bytes before the HCI payload (tcpdump.org LINKTYPE list): 187 the H4 type, 201 the
        // 4-byte direction and the type, 254 the adapter index and opcode.
        let base = 28 + ([187: 1, 201: 5, 254: 4][info.linkType] ?? 0)
        for record in read.records where record.kind == .command || record.kind == .event || record.kind == .acl {
            let start = record.fileOffset + base - record.headerShortfall
            #expect(Array(bytes[start..<(start + record.payload.count)]) == record.payload, "frame \(record.frameNumber)")
        }
    }

    /// SHB; IDBs 201, 254, 187; one packet on each: each is read as its interface's link type.
    /// The 187 interface's EPB carries epb_flags inbound (4.3.1), its only direction.
    @Test func eachPacketIsReadByItsOwnInterfacesLinkType() throws {
        let bytes = B.sectionHeader() + B.interface(linkType: 201) + B.interface(linkType: 254) + B.interface(linkType: 187)
            + B.enhancedPacket(interface: 0, timestamp: Self.t, B.reset)
            + B.enhancedPacket(interface: 1, timestamp: Self.t + 1, Self.monitorResetComplete(adapter: 5))
            + B.enhancedPacket(interface: 2, timestamp: Self.t + 2, Self.h4EmptyACL, options: B.option(2, .le32(1)))
        let read = try Self.read(bytes)
        #expect(read.error == nil)
        #expect(read.info?.linkType == 201)
        #expect(read.info?.interfaceLinkTypes == [201, 254, 187])
        #expect(read.info?.formatDescription == "pcapng, interfaces of LINKTYPE_BLUETOOTH_HCI_H4_WITH_PHDR (201), "
            + "LINKTYPE_BLUETOOTH_LINUX_MONITOR (254), LINKTYPE_BLUETOOTH_HCI_H4 (187)")
        #expect(read.records.map(\.frameNumber) == [1, 2, 3])
        #expect(read.records.map(\.kind) == [.command, .event, .acl])
        #expect(read.records.map(\.direction) == [.sent, .received, .received])
        #expect(read.records.map(\.controllerIndex) == [0, 5, 2])
        #expect(read.records.map(\.rawType) == [1, 3, 2])
        #expect(read.notes.isEmpty)
        Self.expectPayloadsAtTheirOwnBytes(read, in: bytes)
    }

    /// An IDB of another link type after packets (libpcap gets there only then): the packets
    /// before it are given once, the ones after it by their interfaces, offsets the file's.
    @Test func anInterfaceDescribedAfterPacketsIsReadFromThere() throws {
        var bytes = B.sectionHeader() + B.interface(linkType: 201)
        var starts: [Int] = []
        func add(_ block: [UInt8], packet: Bool = true) {
            if packet { starts.append(bytes.count) }
            bytes += block
        }
        for i in 0..<3 { add(B.enhancedPacket(interface: 0, timestamp: Self.t + UInt64(i), i % 2 == 0 ? B.reset : B.resetComplete)) }
        add(B.interface(linkType: 254), packet: false)
        add(B.enhancedPacket(interface: 1, timestamp: Self.t + 3, Self.monitorResetComplete(adapter: 3)))
        add(B.enhancedPacket(interface: 0, timestamp: Self.t + 4, B.reset))
        add(B.statistics(), packet: false)
        add(B.interface(linkType: 187), packet: false)
        add(B.enhancedPacket(interface: 2, timestamp: Self.t + 5, Self.h4Reset))
        let read = try Self.read(bytes)
        #expect(read.error == nil)
        #expect(read.info?.linkType == 201 && read.info?.interfaceLinkTypes == [])
        #expect(read.records.map(\.frameNumber) == [1, 2, 3, 4, 5, 6])
        #expect(read.records.map(\.fileOffset) == starts)
        #expect(read.records.map(\.timestamp) == (0..<6).map { Int64(Self.t) + $0 })
        #expect(read.records.map(\.kind) == [.command, .event, .command, .event, .command, .command])
        #expect(read.records.map(\.controllerIndex) == [0, 0, 0, 3, 0, 2])
        Self.expectPayloadsAtTheirOwnBytes(read, in: bytes)
    }

    /// Packets of a link type that is neither HCI nor LE link layer (Ethernet, here interface
    /// 0, with a Simple Packet Block, 4.4, which is interface 0's) are not records, but frames:
    /// the records keep tshark's frame numbers, and one note per interface counts them.
    @Test func packetsOfOtherLinkTypesAreSkippedButCountedAsFrames() throws {
        let bytes = B.sectionHeader() + B.interface(linkType: 1) + B.interface(linkType: 201)
            + B.enhancedPacket(interface: 0, timestamp: Self.t, Self.ethernet)
            + B.enhancedPacket(interface: 1, timestamp: Self.t + 1, B.reset)
            + B.enhancedPacket(interface: 0, timestamp: Self.t + 2, Self.ethernet)
            + B.simplePacket(Self.ethernet)
            + B.enhancedPacket(interface: 1, timestamp: Self.t + 3, B.resetComplete)
        let read = try Self.read(bytes)
        #expect(read.error == nil)
        #expect(read.info?.linkType == 201)
        #expect(read.records.map(\.frameNumber) == [2, 5])
        #expect(read.records.map(\.kind) == [.command, .event])
        #expect(read.records.map(\.controllerIndex) == [1, 1])
        #expect(read.notes.count == 1)
        #expect(read.notes.first?.offset == 28 + 20 + 20)
        #expect(read.notes.first?.message.contains("pcapng interface 0 is LINKTYPE_ETHERNET (1)") == true)
        #expect(read.notes.first?.message.contains("its 3 packets were not read") == true)
        Self.expectPayloadsAtTheirOwnBytes(read, in: bytes)
        // Without a Bluetooth interface, the file is still no Bluetooth capture.
        let none = try Self.read(B.sectionHeader() + B.interface(linkType: 1) + B.interface(linkType: 105)
            + B.enhancedPacket(interface: 0, timestamp: Self.t, Self.ethernet))
        #expect(none.error?.kind == .unsupported)
        #expect(none.error?.message.contains("is not a Bluetooth HCI capture") == true)
    }

    /// Big-endian blocks (4.1: the SHB's byte-order magic reads 1A2B3C4D), for a file read on a
    /// little-endian host, which libpcap byte-swaps.
    enum BigEndian {
        static func block(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
            let padded = body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
            let length = UInt32(12 + padded.count)
            return .be32(type) + .be32(length) + padded + .be32(length)
        }
        static func sectionHeader() -> [UInt8] { block(0x0A0D_0D0A, .be32(0x1A2B_3C4D) + .be16(1) + .be16(0) + .be64(.max)) }
        static func interface(linkType: UInt16) -> [UInt8] { block(1, .be16(linkType) + .be16(0) + .be32(262_144)) }
        static func enhancedPacket(interface: UInt32, timestamp: UInt64, _ packet: [UInt8]) -> [UInt8] {
            block(6, .be32(interface) + .be64(timestamp) + .be32(UInt32(packet.count)) + .be32(UInt32(packet.count)) + packet)
        }
    }

    /// The first interface is LINKTYPE_USB_LINUX (189), whose 48-byte header libpcap byte-swaps
    /// in a file of the other byte order (pcap-common.c `swap_linux_usb_header`: the first 8
    /// bytes as a u64, whatever the packet holds). Had the copy said 189 for every interface,
    /// the 201 packets' direction and H4 bytes would come out reversed; it says 201, which
    /// libpcap hands over as it is. The USB packet is skipped, and counted.
    @Test func theCopyNeverGivesLibpcapALinkTypeItAlters() throws {
        typealias E = BigEndian
        let bytes = E.sectionHeader() + E.interface(linkType: 189) + E.interface(linkType: 201)
            + E.enhancedPacket(interface: 0, timestamp: Self.t, [UInt8](repeating: 0x11, count: 48))
            + E.enhancedPacket(interface: 1, timestamp: Self.t + 1, B.reset)
            + E.enhancedPacket(interface: 1, timestamp: Self.t + 2, B.resetComplete)
        let read = try Self.read(bytes)
        #expect(read.error == nil)
        #expect(read.records.map(\.frameNumber) == [2, 3])
        #expect(read.records.map(\.direction) == [.sent, .received])
        #expect(read.records.map(\.kind) == [.command, .event])
        #expect(read.records.map(\.payload) == [[0x03, 0x0C, 0x00], [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]])
        #expect(read.notes.map(\.message).first?.contains("interface 0 is unnamed LINKTYPE (189)") == true)
        Self.expectPayloadsAtTheirOwnBytes(read, in: bytes)
    }

    /// Two interfaces of one link type but different SnapLen (4.2), which libpcap 1.10 refuses
    /// as it refuses different link types ("an interface has a snapshot length ... different").
    @Test func interfacesOfDifferentSnapshotLengthsAreRead() throws {
        let bytes = B.sectionHeader() + Self.interface(linkType: 201, snapLength: 262_144)
            + Self.interface(linkType: 201, snapLength: 1_024)
            + B.enhancedPacket(interface: 1, timestamp: Self.t, B.reset)
            + B.enhancedPacket(interface: 0, timestamp: Self.t + 1, B.resetComplete)
        let read = try Self.read(bytes)
        #expect(read.error == nil)
        #expect(read.records.map(\.controllerIndex) == [1, 0])
        #expect(read.records.map(\.kind) == [.command, .event])
    }

    /// Sections (4.1) number their interfaces from 0 again: a second section's Linux monitor
    /// interface 0 is the file's interface 1, read as 254; a third section's 187 interface, 2.
    @Test func aLaterSectionsInterfaceHasItsOwnLinkType() throws {
        let bytes = B.sectionHeader() + B.interface(linkType: 201) + B.enhancedPacket(interface: 0, timestamp: Self.t, B.reset)
            + B.sectionHeader() + B.interface(linkType: 254)
            + B.enhancedPacket(interface: 0, timestamp: Self.t + 1, Self.monitorResetComplete(adapter: 7))
            + B.sectionHeader() + B.interface(linkType: 187) + B.enhancedPacket(interface: 0, timestamp: Self.t + 2, Self.h4Reset)
        let read = try Self.read(bytes)
        #expect(read.error == nil)
        #expect(read.records.map(\.kind) == [.command, .event, .command])
        #expect(read.records.map(\.controllerIndex) == [0, 7, 2])
        #expect(read.records.map(\.rawType) == [1, 3, 1])
        Self.expectPayloadsAtTheirOwnBytes(read, in: bytes)
    }

    /// HCI and LE air interfaces in one file are refused, saying why: from the IDBs before the
    /// first packet when they show it, else at the first air packet, after the HCI ones.
    @Test func hciAndAirInterfacesTogetherAreRefused() throws {
        let upFront = B.sectionHeader() + B.interface(linkType: 201) + B.interface(linkType: 251)
            + B.enhancedPacket(interface: 0, timestamp: Self.t, B.reset)
        let refused = try Self.read(upFront)
        #expect(refused.records.isEmpty)
        #expect(refused.error?.kind == .unsupported)
        #expect(refused.error?.message.contains("both Bluetooth HCI interfaces (LINKTYPE_BLUETOOTH_HCI_H4_WITH_PHDR (201)) "
            + "and LE link-layer (air) interfaces (LINKTYPE_BLUETOOTH_LE_LL (251))") == true)
        let head = B.sectionHeader() + B.interface(linkType: 201) + B.enhancedPacket(interface: 0, timestamp: Self.t, B.reset)
            + B.interface(linkType: 272)
        let late = try Self.read(head + B.enhancedPacket(interface: 1, timestamp: Self.t + 1, [UInt8](repeating: 0, count: 20)))
        #expect(late.records.map(\.kind) == [.command])
        #expect(late.error?.kind == .unsupported)
        #expect(late.error?.offset == head.count)
        #expect(late.error?.message.contains("record 2: pcapng interface 1 is LINKTYPE_NORDIC_BLE (272)") == true)
    }

    /// An H4 interface's controller is its Interface ID, a monitor's adapters their indices, as
    /// in files of one link type: interface 0 and hci0 are one controller, and a note says so.
    @Test func aControllerNumberedByAnInterfaceAndAnAdapterIsNamed() throws {
        let bytes = B.sectionHeader() + B.interface(linkType: 201) + B.interface(linkType: 254)
            + B.enhancedPacket(interface: 0, timestamp: Self.t, B.reset)
            + B.enhancedPacket(interface: 1, timestamp: Self.t + 1, Self.monitorResetComplete(adapter: 1))
            + B.enhancedPacket(interface: 1, timestamp: Self.t + 2, Self.monitorResetComplete(adapter: 0))
        let read = try Self.read(bytes)
        #expect(read.records.map(\.controllerIndex) == [0, 1, 0])
        #expect(read.notes.count == 1)
        #expect(read.notes.first?.offset == 28 + 20 + 20 + 40 + 44)
        #expect(read.notes.first?.message.contains("controller 0 is both pcapng interface 0 "
            + "(LINKTYPE_BLUETOOTH_HCI_H4_WITH_PHDR (201)) and adapter hci0") == true)
    }
}
