import BLECapture
import BLECore
import Foundation
import Testing
@testable import BLETimeline

/// The reader thread's batches are bounded in bytes, not only in records (issue 17: 64 KiB
/// records in batches of 2,048 made memory grow with the records' size).
@Suite("Decode pipeline batches")
struct DecodeBatchTests {
    /// btsnoop v1, datalink 1002; 200 records of the largest ACL packet: H4 02 | 40 20 (handle
    /// 0x0040, PB start) | FF FF (length 65535) | L2CAP FB FF 04 00 (65531 bytes, ATT) | 1B 14 00
    /// (Handle Value Notification, handle 0x0014) and 65528 value bytes.
    @Test func batchesStayUnderAByteBound() throws {
        func be32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }
        func be64(_ v: Int64) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }
        let h4: [UInt8] = [0x02, 0x40, 0x20, 0xFF, 0xFF, 0xFB, 0xFF, 0x04, 0x00, 0x1B, 0x14, 0x00]
            + [UInt8](repeating: 0x5A, count: 65_528)
        var file = Array("btsnoop".utf8) + [0] + be32(1) + be32(1002)
        for i in 0..<200 {
            file += be32(UInt32(h4.count)) + be32(UInt32(h4.count)) + be32(1) + be32(0)
            file += be64(Timestamp.btsnoopEpochOffset + 1_777_881_600_000_000 + Int64(i) * 7_500) + h4
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("batches-\(UUID().uuidString).btsnoop").path
        try Data(file).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }

        let pipeline = DecodePipeline(input: .file(path), keepKeys: false)
        var records = 0, largest = 0
        loop: while true {
            switch pipeline.next() {
            case .batch(let b):
                records += b.packets.count
                largest = max(largest, b.packets.reduce(0) { $0 + $1.record.payload.count })
                pipeline.recycle(b)
            case .finishProblems:
                break
            case .end(let e):
                #expect(e.warnings.isEmpty && e.stopError == nil && e.timestampWarnings.isEmpty)
                break loop
            }
        }
        #expect(records == 200)
        #expect(largest <= DecodePipeline.batchBytes + 65_539)
    }
}
