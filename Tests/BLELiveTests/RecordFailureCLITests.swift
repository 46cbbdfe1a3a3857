import Foundation
import Testing
import BLECore
import BLETimeline
@testable import BLELive

/// A recording stopped by its source's bytes keeps that ending in the timeline, as `import`
/// keeps the damage of a file: a reader of the timeline alone must learn that the stream broke.
@Suite struct RecordFailureCLITests {
    /// 50 whole records of a btsnoop stream, then bytes that are no record header (the included
    /// length, bytes 4-7, reads 0x41474521, "AGE!"). The recorder stops with exit 65 and keeps the 50 records;
    /// the capture said `complete` with no warning, while importing the same bytes says
    /// `corrupt` with the error. Now the recording says `corrupt` too, with the same error.
    @Test func aStreamThatBreaksIsCorruptInTheTimeline() throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let chunks = try Live.btsnoopChunks(Live.capture("android-yeelock.btsnoop"))
        let good = chunks.header + chunks.records[..<50].flatMap { $0 }
        let damaged = good + Array("GARBAGE!GARBAGE!GARBAGE!GARBAGE!".utf8)
        let offset = good.count
        let error = "record 51: included length 1095189793 exceeds the largest HCI packet (65540)"

        let r = try RecordCLITests.run(["record", "--stdin", "-o", dir + "/r.btsnoop", "--db", dir + "/r.db"], stdin: damaged)
        #expect(r.status == 65)
        #expect(r.stderr == "blereplay record: <stdin>: byte \(offset): \(error)\n", "\(r.stderr)")
        let row = try #require(try Live.rows(dir + "/r.db", "SELECT status, records, warnings FROM captures").first)
        #expect(row[0].string == "corrupt")
        #expect(row[1].int == 50)
        #expect(row[2].string == "[\"<stdin>: byte \(offset): \(error)\"]")
        let diagnose = try RecordCLITests.run(["diagnose", dir + "/r.db"])
        #expect(diagnose.stdout.contains("50 records (corrupt)"), "\(diagnose.stdout)")

        // What `import` says of the same bytes in a file.
        FileManager.default.createFile(atPath: dir + "/d.btsnoop", contents: Data(damaged))
        let imported = try RecordCLITests.run(["import", dir + "/d.btsnoop", "--db", dir + "/i.db"])
        #expect(imported.status == 65)
        #expect(try Live.rows(dir + "/i.db", "SELECT status FROM captures").first?[0].string == "corrupt")

        // A stream that ends cleanly stays `complete`.
        let clean = try RecordCLITests.run(["record", "--stdin", "--db", dir + "/c.db"], stdin: good)
        #expect(clean.status == 0)
        #expect(try Live.rows(dir + "/c.db", "SELECT status, warnings FROM captures").first?.map(\.string) == ["complete", "[]"])
    }
}
