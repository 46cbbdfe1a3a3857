import Foundation
import Testing
import BLECore
import BLECapture
@testable import BLELive

/// The recorder's btsnoop writer: flush on demand, offsets, rotation by size and by time.
@Suite struct BtsnoopOutputTests {
    /// HCI Reset as an H4 btsnoop record: 24-byte header + 01 | 03 0c | 00 = 28 bytes.
    static func packet(_ n: Int) throws -> BtsnoopPacket {
        let record = CaptureRecord(frameNumber: n, timestamp: 1_700_000_000_000_000 + Int64(n), direction: .sent,
                                   kind: .command, payload: [0x03, 0x0C, 0x00], fileOffset: 0)
        return try #require(try BtsnoopPacket(encoding: record, datalink: .h4))
    }

    @Test func flushMakesRecordsVisibleWithoutClosing() throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let output = try BtsnoopOutput(path: dir + "/o.btsnoop", datalink: .h4, rotation: nil, now: 0)
        #expect(try output.write(Self.packet(1), now: 0) == 16)
        #expect(try output.write(Self.packet(2), now: 0) == 16 + 28)
        // Header written at creation; the records only after a flush.
        #expect((try FileManager.default.attributesOfItem(atPath: dir + "/o.btsnoop")[.size] as? Int) == 16)
        try output.flush()
        #expect((try FileManager.default.attributesOfItem(atPath: dir + "/o.btsnoop")[.size] as? Int) == 72)
        #expect(try Live.records(dir + "/o.btsnoop").count == 2)
    }

    @Test func rotationByDuration() throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let output = try BtsnoopOutput(path: dir + "/o.btsnoop", datalink: .h4, rotation: .duration(milliseconds: 1000), now: 0)
        for (n, now) in [(1, 0), (2, 999), (3, 1000), (4, 1500), (5, 2100)] as [(Int, Int64)] {
            _ = try output.write(Self.packet(n), now: now)
        }
        try output.close()
        #expect(output.paths == [dir + "/o.1.btsnoop", dir + "/o.2.btsnoop", dir + "/o.3.btsnoop"])
        #expect(try output.paths.map { try Live.records($0).count } == [2, 2, 1])
    }

    @Test func rotationBySizeNeverSplitsARecord() throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 16-byte header + 2 records of 28 bytes fit in 72; the third starts a new file.
        let output = try BtsnoopOutput(path: dir + "/cap", datalink: .h4, rotation: .size(bytes: 72), now: 0)
        for n in 1...5 {
            #expect(try output.write(Self.packet(n), now: 0) == (n % 2 == 1 ? 16 : 44))
        }
        try output.close()
        #expect(output.paths == [dir + "/cap.1", dir + "/cap.2", dir + "/cap.3"])
        #expect(try output.paths.map { try Live.records($0).count } == [2, 2, 1])
        #expect(output.recordsWritten == 5)
    }

    @Test func unwritableDirectoryIsAnIOError() {
        let error = #expect(throws: LiveError.self) {
            try BtsnoopOutput(path: "/nonexistent/dir/x.btsnoop", datalink: .h4, rotation: nil, now: 0)
        }
        #expect(error?.description == "/nonexistent/dir/x.btsnoop: cannot create: No such file or directory")
    }
}
