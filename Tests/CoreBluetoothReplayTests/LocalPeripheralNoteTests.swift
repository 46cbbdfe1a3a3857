import BLEReplay
import CoreBluetoothReplay
import Foundation
import Testing

/// CoreBluetoothReplay on a capture where the phone was the peripheral (LE Connection Complete
/// role 0x01, Core v5.4 Vol 4 Part E 7.7.65.1): the replay carries the note that a central cannot
/// be replayed against the remote device, which it meets as a peripheral with no GATT database.
@Suite struct LocalPeripheralNoteTests {
    /// btsnoop v1, datalink 1002: LE Connection Complete role 1 from 4F:9A:11:22:33:44, the
    /// central reads 0x0003 (rx), the phone answers (tx), Disconnection Complete 0x13.
    static func capture(role: UInt8) throws -> String {
        func be32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }
        func acl(_ pdu: [UInt8]) -> [UInt8] {
            [0x02, 0x41, 0x20, UInt8(pdu.count + 4), 0x00, UInt8(pdu.count), 0x00, 0x04, 0x00] + pdu
        }
        let records: [(Int64, [UInt8], Bool)] = [
            (100, [0x04, 0x3E, 0x13, 0x01, 0x00, 0x41, 0x00, role, 0x01, 0x44, 0x33, 0x22, 0x11, 0x9A, 0x4F,
                   0x18, 0x00, 0x00, 0x00, 0x90, 0x01, 0x00], true),
            (150, acl([0x0A, 0x03, 0x00]), role == 1),
            (152, acl([0x0B, 0x50, 0x68]), role == 0),
            (600, [0x04, 0x05, 0x04, 0x00, 0x41, 0x00, 0x13], true),
        ]
        var out = Array("btsnoop".utf8) + [0] + be32(1) + be32(1002)
        let epoch: Int64 = 0x00DC_DDB3_0F2F_8000 + 1_777_881_600_000_000
        for (ms, h4, received) in records {
            let flags: UInt32 = (received ? 1 : 0) | (h4[0] == 0x04 ? 2 : 0)
            out += be32(UInt32(h4.count)) + be32(UInt32(h4.count)) + be32(flags) + be32(0)
            out += withUnsafeBytes(of: UInt64(bitPattern: epoch + ms * 1000).bigEndian) { Array($0) } + h4
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cb-\(UUID().uuidString).btsnoop").path
        try Data(out).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func theReplayCarriesTheNote() throws {
        let path = try Self.capture(role: 1)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        replay.printsNotes = false
        #expect(replay.notes.count == 1)
        #expect(replay.notes.first?.contains("local device was the peripheral") == true)
        #expect(replay.notes.first?.contains("4F:9A:11:22:33:44") == true)
    }

    @Test func aCentralCaptureHasNoNote() throws {
        let path = try Self.capture(role: 0)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try CBReplay(capture: path).notes.isEmpty)
    }
}
