import Foundation
import Testing
import BLETimeline

/// The byte a decode problem names in a pcapng is the damaged byte of the packet, whatever block
/// carries the packet: an Enhanced Packet Block's data starts 28 bytes into the block, a Simple
/// Packet Block's 12 (draft-ietf-opsawg-pcapng 4.3, 4.4), and blocks that are no packet
/// (Interface Statistics, 4.6) may come between two packets. Files built byte by byte here; the
/// block starts are those `tshark -o frame.show_file_off:TRUE -e frame.file_off` gives.
@Suite("pcapng packet data offsets", .serialized)
struct PcapngPacketDataOffsetTests {
    static func le16(_ v: UInt16) -> [UInt8] { withUnsafeBytes(of: v.littleEndian, Array.init) }
    static func le32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian, Array.init) }
    static func be32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }

    /// Block Type u32, Block Total Length u32, the body padded to 32 bits, Block Total Length.
    static func block(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
        let padded = body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
        let length = UInt32(12 + padded.count)
        return le32(type) + le32(length) + padded + le32(length)
    }

    /// Section Header Block (4.1, 28 bytes) and Interface Description Block (4.2, 20 bytes:
    /// LINKTYPE 201, snaplen 262144): the first packet block is at byte 48.
    static let header = block(0x0A0D_0D0A, le32(0x1A2B_3C4D) + le16(1) + le16(0) + [UInt8](repeating: 0xFF, count: 8))
        + block(1, le16(201) + le16(0) + le32(262_144))

    /// Enhanced Packet Block (4.3): Interface ID 0, timestamp high and low (µs), captured and
    /// original length, then the packet at byte 28 of the block.
    static func enhanced(_ packet: [UInt8], at us: UInt64) -> [UInt8] {
        block(6, le32(0) + le32(UInt32(us >> 32)) + le32(UInt32(us & 0xFFFF_FFFF))
            + le32(UInt32(packet.count)) + le32(UInt32(packet.count)) + packet)
    }

    /// Simple Packet Block (4.4): original length, then the packet at byte 12 of the block.
    static func simple(_ packet: [UInt8]) -> [UInt8] { block(3, le32(UInt32(packet.count)) + packet) }

    /// Interface Statistics Block (4.6), 24 bytes: Interface ID 0, timestamp 0, no options.
    static let statistics = block(5, le32(0) + le32(0) + le32(0))

    /// 00000000 (sent) | 01 | 03 0C 00: HCI_Reset (Core v5.4 Vol 4 Part E 7.3.2).
    static let reset: [UInt8] = be32(0) + [0x01, 0x03, 0x0C, 0x00]
    /// 00000001 (received) | 04 | 05 04 | 00 40: Disconnection Complete (7.7.5) whose parameter
    /// length says 4 and which holds 2: Status 00, then one byte (40) of the 2-byte
    /// Connection_Handle, 8 bytes into the packet data; the packet data ends 9 bytes in.
    static let cutDisconnection: [UInt8] = be32(1) + [0x04, 0x05, 0x04, 0x00, 0x40]
    static let t: UInt64 = 1_700_000_000_000_000

    /// Imports `bytes`; the decode problems (offset, reason) and each packet row's file_offset.
    static func problems(_ bytes: [UInt8], _ name: String) throws -> (problems: [[SQLiteValue]], offsets: [Int64]) {
        let file = TestPaths.temporaryFile("\(name).pcapng"), db = TestPaths.temporaryFile("\(name).db")
        defer {
            try? FileManager.default.removeItem(atPath: file)
            try? FileManager.default.removeItem(atPath: db)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let results = try Importer.importCaptures([file], into: db)
        #expect(results.first?.status == .imported && results.first?.records == 2)
        let store = try SQLiteDatabase(path: db, readOnly: true)
        let problems = try store.rows("SELECT file_offset, reason FROM decode_problem ORDER BY file_offset")
        let offsets = try store.rows("SELECT file_offset FROM packet ORDER BY frame").map { $0[0].int64 ?? -1 }
        return (problems, offsets)
    }

    /// The cut Disconnection Complete at `dataStart` (the first byte of its packet data): the
    /// handle's problem names byte dataStart + 8, the length's the end of the packet (+ 9).
    static func expectProblems(_ problems: [[SQLiteValue]], dataStart: Int, in bytes: [UInt8]) {
        #expect(problems.count == 2)
        #expect(problems.first == [.integer(Int64(dataStart + 8)), .text("Connection_Handle: need 2 byte(s), have 1")])
        #expect(problems.last == [.integer(Int64(dataStart + 9)), .text("event parameters: length field says 4 bytes, packet has 2")])
        // The byte named is the handle's in the file.
        #expect(bytes[dataStart + 8] == 0x40 && Array(bytes[dataStart..<(dataStart + 5)]) == [0, 0, 0, 1, 0x04])
    }

    @Test func inAnEnhancedPacketBlock() throws {
        let bytes = Self.header + Self.enhanced(Self.reset, at: Self.t) + Self.enhanced(Self.cutDisconnection, at: Self.t + 1)
        let r = try Self.problems(bytes, "epb-offsets")
        // Blocks at 48 (40 bytes) and 88; the second's data at 88 + 28.
        Self.expectProblems(r.problems, dataStart: 88 + 28, in: bytes)
        #expect(r.offsets == [48, 88])
    }

    @Test func inASimplePacketBlock() throws {
        let bytes = Self.header + Self.enhanced(Self.reset, at: Self.t) + Self.simple(Self.cutDisconnection)
        let r = try Self.problems(bytes, "spb-offsets")
        // Blocks at 48 and 88; the SPB's data at 88 + 12 (it was reported 16 bytes further, at
        // 88 + 28 + 8, as if the block were an EPB).
        Self.expectProblems(r.problems, dataStart: 88 + 12, in: bytes)
        // A record's file_offset is its block's start, an SPB's as an EPB's.
        #expect(r.offsets == [48, 88])
    }

    @Test func afterABlockThatIsNoPacket() throws {
        let bytes = Self.header + Self.enhanced(Self.reset, at: Self.t) + Self.statistics
            + Self.enhanced(Self.cutDisconnection, at: Self.t + 1)
        let r = try Self.problems(bytes, "isb-offsets")
        // EPB at 48, ISB at 88 (24 bytes), EPB at 112 (tshark's frame.file_off); its data at 112 + 28.
        Self.expectProblems(r.problems, dataStart: 112 + 28, in: bytes)
        #expect(r.offsets == [48, 112])
    }

    @Test func simplePacketAfterABlockThatIsNoPacket() throws {
        let bytes = Self.header + Self.enhanced(Self.reset, at: Self.t) + Self.statistics + Self.simple(Self.cutDisconnection)
        let r = try Self.problems(bytes, "isb-spb-offsets")
        Self.expectProblems(r.problems, dataStart: 112 + 12, in: bytes)
        #expect(r.offsets == [48, 112])
    }
}
