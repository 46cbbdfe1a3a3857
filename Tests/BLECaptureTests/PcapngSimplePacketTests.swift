import BLECore
import Testing
@testable import BLECapture

/// pcapng Simple Packet Blocks (draft-ietf-opsawg-pcapng 4.4) carry no timestamp; libpcap gives
/// them 0 plus the interface's if_tsoffset. They are timed at the timestamped packet before them
/// (or the first one after), keep their order, and the capture says so (`SimplePacketTiming`).
@Suite("pcapng Simple Packet Blocks")
struct PcapngSimplePacketTests {
    typealias B = PcapngBlocks
    /// 1,700,000,000 s in µs (the EPBs' time, if_tsresol 6 by default).
    static let t: UInt64 = 1_700_000_000_000_000
    static let header = B.sectionHeader() + B.interface(linkType: 201)

    static func read(_ blocks: [[UInt8]], header: [UInt8] = header) throws -> (records: [CaptureRecord], notes: [CaptureWarning], error: CaptureError?) {
        var reader = try CaptureFile.open(source: MemorySource(header + blocks.flatMap { $0 }))
        var records: [CaptureRecord] = []
        var error: CaptureError?
        do {
            while let r = try reader.next() { records.append(r) }
        } catch let e {
            error = e
        }
        return (records, reader.notes, error)
    }

    @Test func betweenTimestampedPacketsTheyTakeTheTimeBefore() throws {
        let r = try Self.read([B.enhancedPacket(timestamp: Self.t, B.reset), B.simplePacket(B.resetComplete),
                               B.simplePacket(B.reset), B.enhancedPacket(timestamp: Self.t + 5_000, B.resetComplete)])
        let t = Int64(Self.t)
        #expect(r.records.map(\.timestamp) == [t, t, t, t + 5_000])
        #expect(r.records.map(\.frameNumber) == [1, 2, 3, 4])
        #expect(r.records.map(\.kind) == [.command, .event, .command, .event])
        #expect(r.records.map(\.direction) == [.sent, .received, .sent, .received])
        let note = try #require(r.notes.first)
        #expect(r.notes.count == 1)
        #expect(note.offset == Self.header.count + 40)   // the first SPB, after the 40-byte EPB
        #expect(note.message.hasPrefix("2 packet(s) in pcapng Simple Packet Blocks, which carry no timestamp: "
            + "2 timed at the timestamped packet before them;"))
    }

    @Test func beforeAnyTimestampTheyTakeTheFirstOneAfter() throws {
        let r = try Self.read([B.simplePacket(B.reset), B.simplePacket(B.resetComplete),
                               B.enhancedPacket(timestamp: Self.t, B.reset), B.simplePacket(B.resetComplete)])
        #expect(r.records.map(\.timestamp) == Array(repeating: Int64(Self.t), count: 4))
        #expect(r.records.map(\.frameNumber) == [1, 2, 3, 4])
        #expect(r.records.map(\.payload.count) == [3, 6, 3, 6])
        #expect(r.notes.first?.message.contains(
            "3 packet(s) in pcapng Simple Packet Blocks, which carry no timestamp: 1 timed at the timestamped packet "
            + "before them, 2 before any timestamped packet timed at the first one after them;") == true)
    }

    /// With no timestamp anywhere they keep libpcap's: 0 plus the interface's if_tsoffset (option 14, seconds).
    @Test func withNoTimestampAnywhereTheyKeepLibpcapsTime() throws {
        let none = try Self.read([B.simplePacket(B.reset), B.simplePacket(B.resetComplete)])
        #expect(none.records.map(\.timestamp) == [0, 0])
        #expect(none.notes.first?.message.contains("2 with no timestamped packet after them kept at the time libpcap "
            + "gives them, 1970-01-01T00:00:00.000000Z (the interface's if_tsoffset)") == true)
        let offset = B.sectionHeader() + B.interface(linkType: 201, options: B.option(14, .le64(1_000)))
        let shifted = try Self.read([B.simplePacket(B.reset), B.simplePacket(B.resetComplete)], header: offset)
        #expect(shifted.records.map(\.timestamp) == [1_000_000_000, 1_000_000_000])
    }

    /// Held packets are bounded: past `holdLimit` untimed packets, they keep libpcap's time.
    @Test func heldPacketsAreBounded() throws {
        let many = Array(repeating: B.simplePacket(B.reset), count: SimplePacketTiming.holdLimit + 1)
        let r = try Self.read(many + [B.enhancedPacket(timestamp: Self.t, B.resetComplete), B.simplePacket(B.reset)])
        #expect(r.records.count == SimplePacketTiming.holdLimit + 3)
        #expect(r.records.prefix(SimplePacketTiming.holdLimit + 1).allSatisfy { $0.timestamp == 0 })
        #expect(r.records.suffix(2).map(\.timestamp) == [Int64(Self.t), Int64(Self.t)])
        #expect(r.records.map(\.frameNumber) == Array(1...(SimplePacketTiming.holdLimit + 3)))
        #expect(r.notes.first?.message.contains("\(SimplePacketTiming.holdLimit + 1) with no timestamped packet among the "
            + "\(SimplePacketTiming.holdLimit) before them kept at the time libpcap gives them") == true)
    }

    /// Damage after held packets: they are returned before the error, which repeats.
    @Test func heldPacketsComeBeforeDamage() throws {
        // A block whose trailing length (99) disagrees with its leading one (12).
        let damaged: [UInt8] = .le32(0x0000_0BAD) + .le32(12) + .le32(99)
        var reader = try CaptureFile.open(source: MemorySource(Self.header + B.simplePacket(B.reset)
            + B.simplePacket(B.resetComplete) + damaged))
        #expect(try reader.next()?.frameNumber == 1)
        #expect(try reader.next()?.frameNumber == 2)
        #expect(throws: CaptureError.self) { try reader.next() }
        #expect(throws: CaptureError.self) { try reader.next() }
        #expect(reader.notes.count == 1)
    }

    /// A record's `fileOffset` is its own block's start, after a block that is no packet too;
    /// the importer counts a pcapng packet's bytes from 28 bytes past it (an EPB's header, 4.3),
    /// less the record's `headerShortfall`: 16 for an SPB, whose data is 12 bytes in (4.4). The
    /// note still names the first SPB's start.
    @Test func recordOffsetsAreTheirBlocksStarts() throws {
        // header 0..<48 (SHB 28, IDB 20); EPB 48..<88 (40); SPB 88..<112 (24); ISB 112..<136;
        // SPB 136..<160; ISB 160..<184; EPB 184.
        let blocks = [B.enhancedPacket(timestamp: Self.t, B.reset), B.simplePacket(B.reset), B.statistics(),
                      B.simplePacket(B.reset), B.statistics(), B.enhancedPacket(timestamp: Self.t + 1, B.resetComplete)]
        let bytes = Self.header + blocks.flatMap { $0 }
        let r = try Self.read(blocks)
        let dataStarts = [48 + 28, 88 + 12, 136 + 12, 184 + 28]
        #expect(r.records.map(\.fileOffset) == [48, 88, 136, 184])
        #expect(r.records.map { $0.fileOffset + 28 - $0.headerShortfall } == dataStarts)
        for (record, start) in zip(r.records, dataStarts) {
            // The packet there: the 4-byte direction, then the H4 type byte and the payload.
            #expect(Array(bytes[(start + 5)..<(start + 5 + record.payload.count)]) == record.payload)
        }
        #expect(r.notes.first?.offset == 88)
    }

    /// Damage after blocks libpcap reads past (an Interface Statistics Block): reported at the
    /// damaged Simple Packet Block, not at the block after the last packet.
    @Test func damageIsReportedAtTheBlockWhereItStarts() throws {
        let before = Self.header + B.enhancedPacket(timestamp: Self.t, B.reset) + B.statistics()   // SPB at 112
        let spb = B.simplePacket(B.resetComplete)   // 28 bytes: 12 + 11 of packet + 1 of padding + 4
        // Cut by the end of the file 20 bytes in: a warning at its start.
        var cut = try CaptureFile.open(source: MemorySource(before + spb.prefix(20)))
        while try cut.next() != nil {}
        #expect(cut.warnings.map(\.offset) == [112])
        #expect(cut.warnings.first?.message == "truncated record at byte 112 (file ends after 20 of 28 bytes)")
        // A Block Total Length of 12, under an SPB's 16: an error at its start.
        var short = try CaptureFile.open(source: MemorySource(before + .le32(3) + .le32(12) + .le32(12)))
        #expect(try short.next()?.frameNumber == 1)
        #expect(throws: CaptureError.self) { try short.next() }
        do {
            _ = try short.next()
        } catch {
            #expect(error.offset == 112 && error.kind == .corrupt)
        }
        // Right after the packet, as before: at the SPB's start (88).
        var direct = try CaptureFile.open(source: MemorySource(Self.header + B.enhancedPacket(timestamp: Self.t, B.reset)
            + spb.prefix(20)))
        while try direct.next() != nil {}
        #expect(direct.warnings.map(\.offset) == [88])
    }

    @Test func filesWithoutSimplePacketBlocksHaveNoNote() throws {
        let r = try Self.read([B.enhancedPacket(timestamp: Self.t, B.reset), B.enhancedPacket(timestamp: Self.t + 1, B.resetComplete)])
        #expect(r.notes.isEmpty)
        #expect(r.records.map(\.timestamp) == [Int64(Self.t), Int64(Self.t) + 1])
    }
}
