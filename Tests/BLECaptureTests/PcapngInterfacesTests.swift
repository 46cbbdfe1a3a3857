import BLECore
import Foundation
import Testing
@testable import BLECapture

/// pcapng files whose interfaces have different link types (Scripts/blegen/shapes.py
/// `mixed_linktypes`): libpcap refuses them, tshark 4.0 reads the four frames (LE Connection
/// Complete received, Read Request with unknown direction on the LINKTYPE 187 interface, Read
/// Response received, Disconnection Complete), with an event's direction taken from its H4 type.
/// Blocks laid out as draft-ietf-opsawg-pcapng says (type, total length, body, total length).
@Suite("pcapng with several interfaces")
struct PcapngInterfacesTests {
    private static func block(_ type: UInt32, _ body: [UInt8], bigEndian: Bool = false) -> [UInt8] {
        let padded = body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
        let n = UInt32(padded.count + 12)
        let u32: (UInt32) -> [UInt8] = bigEndian ? { .be32($0) } : { .le32($0) }
        return u32(type) + u32(n) + padded + u32(n)
    }

    private static let shb = block(0x0A0D0D0A, .le32(0x1A2B3C4D) + .le16(1) + .le16(0) + .le64(UInt64.max))

    private static func idb(_ linkType: UInt16, tsresol: UInt8? = nil) -> [UInt8] {
        var options: [UInt8] = []
        if let tsresol { options = .le16(9) + .le16(1) + [tsresol, 0, 0, 0] + .le16(0) + .le16(0) }
        return block(1, .le16(linkType) + .le16(0) + .le32(0) + options)
    }

    private static func epb(_ interface: UInt32, _ ticks: UInt64, _ data: [UInt8]) -> [UInt8] {
        block(6, .le32(interface) + .le32(UInt32(ticks >> 32)) + .le32(UInt32(ticks & 0xFFFF_FFFF))
            + .le32(UInt32(data.count)) + .le32(UInt32(data.count)) + data)
    }

    // H4 packets (type byte first): an LE Connection Complete event, a Read Request on handle
    // 0x0040, a Disconnection Complete (Core v5.4 Vol 4 Part E 7.7.65.1, 5.4.2, 7.7.5).
    private static let connected: [UInt8] = [0x04, 0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x01,
                                             0x51, 0x9E, 0x12, 0x3B, 0x7A, 0xC4, 0x18, 0x00, 0x00, 0x00,
                                             0x90, 0x01, 0x00]
    private static let read: [UInt8] = [0x02, 0x40, 0x00, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0A, 0x03, 0x00]
    private static let gone: [UInt8] = [0x04, 0x05, 0x04, 0x00, 0x40, 0x00, 0x13]

    @Test func interfacesOfDifferentLinkTypesAreEachReadAsTheirOwn() throws {
        let t: UInt64 = 1_775_034_000_010_000   // 2026-04-01T09:00:00.01Z in microseconds
        let file = Self.shb + Self.idb(201) + Self.idb(187)
            + Self.epb(0, t, .be32(1) + Self.connected)
            + Self.epb(1, t + 10_000, Self.read)
            + Self.epb(0, t + 20_000, .be32(1) + Self.gone)
        let result = readAll(bytes: file)
        #expect(result.error == nil)
        #expect(result.records.count == 3)
        #expect(result.records.map(\.kind) == [.event, .acl, .event])
        #expect(result.records.map(\.direction) == [.received, .unknown, .received])
        #expect(result.records.map(\.timestamp) == [Int64(t), Int64(t) + 10_000, Int64(t) + 20_000])
        #expect(result.records[1].payload == Array(Self.read.dropFirst()))
        #expect(result.records.map(\.frameNumber) == [1, 2, 3])
        // The first EPB starts after the SHB (28 bytes) and the two IDBs (20 bytes each)
        #expect(result.records.first?.fileOffset == 68)
        #expect(result.info?.format == .pcapng)
    }

    @Test func theSameFileOnDiskReadsAlike() throws {
        let file = Self.shb + Self.idb(201) + Self.idb(187) + Self.epb(1, 0, Self.read)
        let dir = try makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        let path = dir + "/mixed.pcapng"
        try writeFile(path, file)
        let result = readAll(path: path)
        #expect(result.error == nil)
        #expect(result.records.count == 1)
        #expect(result.records.first?.kind == .acl)
    }

    @Test func nanosecondResolutionOnOneInterface() throws {
        // if_tsresol 9: ticks are nanoseconds; 1_775_034_000_010_000_130 ns -> ...010_000 µs
        let ns: UInt64 = 1_775_034_000_010_000_130
        let file = Self.shb + Self.idb(201, tsresol: 9) + Self.idb(187)
            + Self.epb(0, ns, .be32(1) + Self.gone)
        let result = readAll(bytes: file)
        #expect(result.records.first?.timestamp == 1_775_034_000_010_000)
    }

    @Test func aCutBlockIsATruncationWarning() throws {
        let file = Self.shb + Self.idb(201) + Self.idb(187) + Self.epb(1, 0, Self.read)
        let cut = Array((file + Self.epb(0, 0, .be32(1) + Self.gone)).dropLast(5))
        let result = readAll(bytes: cut)
        #expect(result.error == nil)
        #expect(result.records.count == 1)
        #expect(result.warnings.count == 1)
    }

    @Test func aPacketForAnUndescribedInterfaceIsDamage() throws {
        let file = Self.shb + Self.idb(201) + Self.idb(187) + Self.epb(5, 0, Self.read)
        let result = readAll(bytes: file)
        #expect(result.error?.kind == .corrupt)
        #expect(result.error?.offset == 68)
    }
}
