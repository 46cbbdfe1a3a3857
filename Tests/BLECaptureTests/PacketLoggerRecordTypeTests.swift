import BLECore
import Testing
@testable import BLECapture

/// PacketLogger record types and lengths other readers accept: ISO data (BlueZ
/// `src/shared/btsnoop.c` `get_pklg_opcode`: 0x12 ISO sent, 0x13 ISO received) and a record whose
/// length field is 8, a timestamp with no type byte (Wireshark `wiretap/packetlogger.c` reads
/// lengths from 8 on, an empty packet). Frame numbers must stay Wireshark's, and nothing after
/// such a record may be lost.
@Suite("PacketLogger record types")
struct PacketLoggerRecordTypeTests {
    /// u32 length (8 + type + payload), u32 seconds, u32 microseconds, type, payload; little-endian
    /// as iPhones write it.
    static func record(_ type: UInt8?, _ payload: [UInt8], micros: UInt32) -> [UInt8] {
        let length = UInt32(8 + (type == nil ? 0 : 1 + payload.count))
        return [UInt8].le32(length) + [UInt8].le32(1_777_881_600) + [UInt8].le32(micros) + (type.map { [$0] + payload } ?? [])
    }

    static let reset: [UInt8] = [0x03, 0x0C, 0x00]                 // HCI Reset, no parameters
    static let resetDone: [UInt8] = [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]   // Command Complete (Reset) status 0
    /// ISO Data (Core v5.4 Vol 4 Part E 5.4.5): handle 0x0060 PB 10 (complete) TS 0, length 8,
    /// packet sequence 0, SDU length 4, 4 bytes of SDU.
    static let iso: [UInt8] = [0x60, 0x20, 0x08, 0x00, 0x00, 0x00, 0x04, 0x00, 0xAA, 0xBB, 0xCC, 0xDD]

    @Test func isoDataHasKindAndDirection() throws {
        let bytes = Self.record(0x00, Self.reset, micros: 1) + Self.record(0x01, Self.resetDone, micros: 2)
            + Self.record(0x12, Self.iso, micros: 3) + Self.record(0x13, Self.iso, micros: 4)
        let result = readAll(bytes: bytes)
        #expect(result.error == nil)
        #expect(result.records.map(\.kind) == [.command, .event, .iso, .iso])
        #expect(result.records.map(\.direction) == [.sent, .received, .sent, .received])
        #expect(result.records[2].payload == Self.iso)
        // A file that starts with ISO records is PacketLogger too.
        let isoFirst = Self.record(0x12, Self.iso, micros: 1) + Self.record(0x13, Self.iso, micros: 2)
            + Self.record(0x12, Self.iso, micros: 3)
        #expect(readAll(bytes: isoFirst).records.count == 3)
    }

    @Test func recordWithNoTypeByteIsKeptAndReadingGoesOn() throws {
        let bytes = Self.record(0x00, Self.reset, micros: 1) + Self.record(0x01, Self.resetDone, micros: 2)
            + Self.record(0xFC, Array("hi".utf8) + [0], micros: 3) + Self.record(nil, [], micros: 4)
            + Self.record(0xFC, Array("after".utf8) + [0], micros: 5) + Self.record(0x00, Self.reset, micros: 6)
        let result = readAll(bytes: bytes)
        #expect(result.error == nil)
        #expect(result.records.map(\.frameNumber) == [1, 2, 3, 4, 5, 6])
        #expect(result.records.map(\.kind) == [.command, .event, .note, .other, .note, .command])
        #expect(result.records[3].payload.isEmpty)
        #expect(result.records[3].rawType == PacketLoggerType.noTypeByte)
        #expect(result.records[3].timestamp == 1_777_881_600_000_004)
        #expect(result.records[4].fileOffset == result.records[3].fileOffset + 12)
    }
}
