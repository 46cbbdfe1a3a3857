import Foundation
import Testing
import BLEReport

/// A file in an input folder whose name is not UTF-8 (Linux names are bytes): the report and the
/// warehouse's ingest named it by its repaired spelling, which does not exist, and said "No such
/// file or directory" of a file that is there. Now the reason is the name itself.
@Suite struct NonUTF8FileNameTests {
    @Test func aNameThatIsNotUTF8IsSaidToBeSo() throws {
        let dir = NSTemporaryDirectory() + "blereplay-nonutf8-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // "phone-<FF FE>.btsnoop": 0xFF and 0xFE never occur in UTF-8 (RFC 3629 section 1).
        let raw: [UInt8] = Array("\(dir)/phone-".utf8) + [0xFF, 0xFE] + Array(".btsnoop".utf8) + [0]
        let fd = raw.withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: raw.count) { open($0, O_CREAT | O_WRONLY, 0o644) }
        }
        #expect(fd >= 0)
        close(fd)
        let expansion = ReportInputs.expand([dir])
        #expect(expansion.files.isEmpty)
        let reasons = expansion.problems.compactMap(\.reason)
        #expect(reasons.count == 1)
        #expect(reasons.first?.contains("the file name is not UTF-8 (bytes 70 68 6F 6E 65 2D FF FE 2E 62 74 73 6E 6F 6F 70)") == true, "\(reasons)")
        #expect(reasons.first?.contains("No such file") == false, "\(reasons)")
    }
}
