import BLECapture
import BLECore
import Foundation
import Testing
@testable import BLEReplay

/// The written trace past `HCITraceRecorder.memoryLimit` (issue 17): its records go to a spill
/// file as they come, and what `writeBtsnoop` writes and `records` gives back is what a trace kept
/// in memory gives.
@Suite struct HCITraceRecorderTests {
    /// `count` records: ACL fragments of 31 bytes, commands and events, as a replay makes them;
    /// returns them as the trace should give them back.
    @discardableResult
    static func fill(_ trace: HCITraceRecorder, count: Int) -> [CaptureRecord] {
        var out: [CaptureRecord] = []
        for i in 0..<count {
            let payload = (0..<(i % 3 == 0 ? 31 : 7)).map { UInt8(truncatingIfNeeded: $0 &+ i) }
            let time = Int64(i) * 1_250
            let (kind, direction): (PacketKind, Direction) = switch i % 3 {
            case 0: (.acl, i % 2 == 0 ? .sent : .received)
            case 1: (.command, .sent)
            default: (.event, .received)
            }
            switch kind {
            case .command: trace.command(payload, at: time)
            case .event: trace.event(payload, at: time)
            default: trace.append(payload, kind: kind, direction: direction, at: time)
            }
            out.append(CaptureRecord(frameNumber: trace.frameCount, timestamp: trace.epoch &+ time, direction: direction, kind: kind,
                                     payload: payload, fileOffset: 0))
        }
        return out
    }

    @Test func aSpilledTraceIsWrittenAsAKeptOne() throws {
        let count = 3 * HCITraceRecorder.memoryLimit / (31 + HCITraceRecorder.recordOverhead)
        let spilled = HCITraceRecorder(epoch: 1_700_000_000_000_000, keepsRecords: true)
        let made = Self.fill(spilled, count: count)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("spilled.btsnoop").path
        try spilled.writeBtsnoop(to: path)

        // The same records written in one go, as the trace kept in memory wrote them.
        let expected = directory.appendingPathComponent("expected.btsnoop").path
        let writer = try BtsnoopWriter(path: expected, datalink: 1002)
        for r in made { try writer.write(r) }
        try writer.close()
        let back = spilled.records
        #expect(back.count == count)
        #expect(back.map(\.payload) == made.map(\.payload))
        #expect(back.map(\.timestamp) == made.map(\.timestamp))
        #expect(back.map(\.kind) == made.map(\.kind))
        #expect(spilled.frameCount == count)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(contentsOf: URL(fileURLWithPath: expected)))
        // Still open for more after a write.
        Self.fill(spilled, count: 3)
        #expect(spilled.records.count == count + 3)
    }

    @Test func aSmallTraceStaysInMemory() {
        let trace = HCITraceRecorder(epoch: 0, keepsRecords: true)
        Self.fill(trace, count: 30)
        #expect(trace.records.map(\.frameNumber) == Array(1...30))
        #expect(trace.records[0].payload == (0..<31).map { UInt8($0) })
    }
}
