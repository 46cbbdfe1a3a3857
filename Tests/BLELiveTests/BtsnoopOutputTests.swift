import Foundation
import Testing
import BLECore
import BLECapture
import BLETimeline
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

/// What a SIGKILL at any moment leaves: the timeline commits only records the btsnoop file on
/// disk already holds (the sink flushes the file before each commit, also the commits made
/// every `commitEvery` records between two ticks).
@Suite struct CommitOrderTests {
    @Test func timelineOnDiskNeverAheadOfTheBtsnoopFile() throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let chunks = try Live.btsnoopChunks(Live.capture("android-lock-pairing.btsnoop"))
        var decoder = LiveStreamDecoder(source: "test")
        decoder.feed(chunks.header + chunks.records.prefix(95).flatMap { $0 })
        let options = RecordingOptions(outputPath: dir + "/out.btsnoop", databasePath: dir + "/out.db",
                                       flushIntervalMilliseconds: 1_000_000, commitEvery: 10, analyze: false)
        let sink = try RecordingSink(options: options, sourceName: "test")
        try sink.start(format: .btsnoop(.h4), now: 0)
        var accepted = 0
        while let record = try decoder.next(arrival: 0) {
            try sink.accept(record, now: 0)  // no tick: only the every-10-records commits happen
            accepted += 1
            let committed = try SQLiteDatabase(path: dir + "/out.db", readOnly: true).scalarInt("SELECT count(*) FROM packet").map(Int.init) ?? -1
            let onDisk = try Live.btsnoopChunks(dir + "/out.btsnoop").records.count
            #expect(committed == accepted / 10 * 10)
            #expect(onDisk >= committed, "after \(accepted) records")
        }
        #expect(accepted == 95)
        try sink.finish(warnings: [])
    }
}
