import BLECore
import Foundation
import Testing
@testable import BLECapture

/// The btsnoop record encoding `BtsnoopWriter`, `BtsnoopReader` and BLELive's recorder share.
@Suite("btsnoop packets")
struct BtsnoopPacketTests {
    /// HCI Reset, sent: 01 command | 03 0c opcode 0x0C03 | 00 parameter length.
    static let reset = CaptureRecord(frameNumber: 1, timestamp: 1_700_000_000_000_000, direction: .sent,
                                     kind: .command, payload: [0x03, 0x0C, 0x00], fileOffset: 16)
    /// ACL received on handle 0x0040: 40 20 handle + flags | 05 00 length | ATT Handle Value
    /// Notification 1b | 0e 00 attribute handle | 48 49 value.
    static let notification = CaptureRecord(frameNumber: 2, timestamp: 1_700_000_000_000_123, direction: .received,
                                            kind: .acl, payload: [0x40, 0x20, 0x05, 0x00, 0x1B, 0x0E, 0x00, 0x48, 0x49],
                                            fileOffset: 44, controllerIndex: 1, cumulativeDrops: 3)

    @Test("H4 packet: flags, type byte, lengths", arguments: [(reset, UInt32(0b10), UInt8(0x01)), (notification, 0b01, 0x02)])
    func h4(record: CaptureRecord, flags: UInt32, type: UInt8) throws {
        let packet = try #require(try BtsnoopPacket(encoding: record, datalink: .h4))
        #expect(packet.flags == flags)
        #expect(packet.body == [type] + record.payload)
        #expect(packet.originalLength == UInt32(record.payload.count + 1))
        #expect(packet.recordLength == 24 + 1 + record.payload.count)
    }

    /// decode -> fields -> encode -> the same packet, in every datalink.
    @Test("record(…) then encoding gives the packet back", arguments: [BtsnoopDatalink.h1, .h4, .monitor])
    func roundTrip(datalink: BtsnoopDatalink) throws {
        for original in [Self.reset, Self.notification] {
            let packet = try #require(try BtsnoopPacket(encoding: original, datalink: datalink))
            let record = packet.record(datalink: datalink, frameNumber: original.frameNumber, fileOffset: original.fileOffset)
            #expect(record.kind == original.kind)
            #expect(record.direction == original.direction)
            #expect(record.payload == original.payload)
            #expect(record.timestamp == original.timestamp)
            #expect(record.cumulativeDrops == original.cumulativeDrops)
            #expect(record.controllerIndex == (datalink == .monitor ? original.controllerIndex : 0))
            #expect(try BtsnoopPacket(encoding: record, datalink: datalink) == packet)
        }
    }

    @Test("the file bytes: big-endian header, timestamp from 0000-01-01, then the body")
    func fileBytes() throws {
        let packet = try #require(try BtsnoopPacket(encoding: Self.reset, datalink: .h4))
        var bytes: [UInt8] = []
        packet.append(to: &bytes)
        let stamp = UInt64(Self.reset.timestamp + Timestamp.btsnoopEpochOffset)
        // original 4 | included 4 | flags 2 (command, sent) | drops 0 | timestamp | 01 03 0c 00
        var expected: [UInt8] = .be32(4) + .be32(4)
        expected += .be32(2) + .be32(0)
        expected += .be64(stamp)
        expected += [0x01, 0x03, 0x0C, 0x00]
        #expect(bytes == expected)
    }

    @Test("notes have no H4 form; a System Note gets its NUL back")
    func notes() throws {
        let note = CaptureRecord(frameNumber: 1, timestamp: 0, direction: .unknown, kind: .note,
                                 payload: Array("note".utf8), fileOffset: 0, rawType: 12)
        #expect(try BtsnoopPacket(encoding: note, datalink: .h4) == nil)
        #expect(try BtsnoopPacket(encoding: note, datalink: .h1) == nil)
        #expect(try BtsnoopPacket(encoding: note, datalink: .monitor)?.body == Array("note\0".utf8))
    }

    @Test("User Logging body <-> `ident: message` text")
    func userLogging() {
        // 07 priority debug | 0b ident length 11 | "bluetoothd\0" | "hello\0"
        let body: [UInt8] = [0x07, 0x0B] + Array("bluetoothd\0".utf8) + Array("hello\0".utf8)
        let text = body.withUnsafeBytes { MonitorText.userLogging($0) }
        #expect(text == Array("bluetoothd: hello".utf8))
        // Written back with priority 6 (info): the record keeps no priority.
        #expect(MonitorText.userLoggingBody(Array("bluetoothd: hello".utf8)) == [0x06] + body.dropFirst())
        // An ident length past the end is no User Logging layout.
        #expect([UInt8]([0x06, 0x09, 0x41]).withUnsafeBytes { MonitorText.userLogging($0) } == nil)
    }

    @Test("a packet larger than btsnoop allows is an error naming the record")
    func tooLarge() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        // H4 adds a type byte: 65540 payload bytes make a 65541-byte packet.
        var record = Self.notification
        record.payload = [UInt8](repeating: 0, count: BtsnoopPacket.maxIncludedLength)
        #expect(throws: BtsnoopPacket.EncodingError.self) { try BtsnoopPacket(encoding: record, datalink: .h4) }
        let writer = try BtsnoopWriter(path: directory + "/big.btsnoop")
        let error = #expect(throws: CaptureError.self) { try writer.write(record) }
        #expect(error?.message == "record 2: 65541-byte packet is larger than btsnoop allows")
        #expect(writer.recordsWritten == 0)
    }

    @Test("BtsnoopWriter.flush puts records on disk without closing; bytesWritten is the next offset")
    func flushWithoutClosing() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let path = directory + "/growing.btsnoop"
        let writer = try BtsnoopWriter(path: path)
        #expect(writer.bytesWritten == 16)
        try writer.write(Self.reset)
        #expect(writer.bytesWritten == 16 + 28)
        #expect(try readFile(path).isEmpty)
        try writer.flush()
        #expect(try readFile(path).count == 44)
        let read = readAll(path: path)
        #expect(read.records.map(\.fileOffset) == [16])
        try writer.write(Self.notification)
        try writer.flush()
        #expect(readAll(path: path).records.map(\.fileOffset) == [16, 44])
        try writer.close()
    }
}
