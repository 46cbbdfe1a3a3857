import Foundation
import Testing
import BLECore
import BLECapture
@testable import BLELive

/// A btsnoop stream whose header says datalink 1001 (unencapsulated HCI, H1) while its records
/// start with an H4 packet-type byte: the live path judges it as `BtsnoopReader` judges a file
/// (`MislabelledH4Check`, over the first 16 records), reads it as H4 and says so in a note;
/// a genuine H1 stream stays H1. Fed through a pipe (`--stdin`) and a followed file (`--follow`).
@Suite("btsnoop stream labelled 1001 holding H4", .serialized)
struct MislabelledH4StreamTests {
    static func be32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }

    /// REFERENCE.md "btsnoop": "btsnoop\0", version 1, `datalink`; then per packet original
    /// length, included length, flags, cumulative drops 0, timestamp (µs since 0000-01-01,
    /// 1,700,000,000 s after the Unix epoch plus 1 ms per record), the packet.
    static func btsnoop(datalink: UInt32, _ packets: [(flags: UInt32, body: [UInt8])]) -> [UInt8] {
        var bytes = Array("btsnoop\0".utf8) + be32(1) + be32(datalink)
        for (i, p) in packets.enumerated() {
            let stamp = UInt64(1_700_000_000_000_000 + 1_000 * i) + 0x00DC_DDB3_0F2F_8000
            bytes += be32(UInt32(p.body.count)) + be32(UInt32(p.body.count)) + be32(p.flags) + be32(0)
                + be32(UInt32(stamp >> 32)) + be32(UInt32(stamp & 0xFFFF_FFFF)) + p.body
        }
        return bytes
    }

    /// H4 packets (Core v5.4 Vol 4 Part A 2, Part E 5.4) with the flags a btsnoop writer gives
    /// them (bit 0 received, bit 1 command/event).
    static let h4: [(flags: UInt32, body: [UInt8])] = [
        // sent command: 01 | opcode 0x0C03 HCI_Reset, length 0
        (2, [0x01, 0x03, 0x0C, 0x00]),
        // received event: 04 | 0E Command Complete, length 4: 1 packet, opcode 0x0C03, status 0
        (3, [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]),
        // sent command: 01 | opcode 0x200C LE Set Scan Enable, length 2: enable 1, filter duplicates 0
        (2, [0x01, 0x0C, 0x20, 0x02, 0x01, 0x00]),
        // received event: 04 | 0E Command Complete, length 4: 1 packet, opcode 0x200C, status 0
        (3, [0x04, 0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00]),
        // sent ACL: 02 | handle 0x040 PB 00, length 7 | L2CAP length 3, CID 4 | ATT Read Request 0x0003
        (0, [0x02, 0x40, 0x00, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0A, 0x03, 0x00]),
        // received ACL: 02 | handle 0x040 PB 10, length 6 | L2CAP length 2, CID 4 | ATT Read Response 2A
        (1, [0x02, 0x40, 0x20, 0x06, 0x00, 0x02, 0x00, 0x04, 0x00, 0x0B, 0x2A]),
    ]

    /// The same packets as an H1 writer writes them: no type byte.
    static let h1 = h4.map { (flags: $0.flags, body: Array($0.body.dropFirst())) }

    /// What `BtsnoopReader` reads from `bytes` (with the check), and its notes.
    static func fileRecords(_ bytes: [UInt8]) throws -> (records: [Live.RecordKey], notes: [String]) {
        var reader = try CaptureFile.open(source: MemorySource(bytes))
        var records: [Live.RecordKey] = []
        while let r = try reader.next() { records.append(Live.RecordKey(r)) }
        return (records, reader.notes.map(\.message))
    }

    @Test func h4LabelledH1FromAPipeIsRecordedAsH4WithANote() throws {
        let input = Self.btsnoop(datalink: 1001, Self.h4)
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fd = try RecordingEquivalenceTests.pipe(input)
        defer { close(fd) }
        let summary = try Live.record(StreamSource(fileDescriptor: fd, name: "pipe"),
                                      RecordingOptions(outputPath: dir + "/rec.btsnoop", databasePath: dir + "/rec.db"))
        #expect(summary.stopReason == .endOfInput && summary.failure == nil)
        #expect(summary.records == 6)
        #expect(summary.warnings.isEmpty)
        let file = try Self.fileRecords(input)
        #expect(summary.notes == file.notes.map { "pipe: byte 16: \($0)" })
        #expect(file.notes.first?.contains("6 of the first 6 records are H4 packets") == true)
        // The packets are what the file reader makes of them: kinds and payloads after the type byte.
        let rows = try Live.rows(dir + "/rec.db", "SELECT kind, raw FROM packet ORDER BY frame")
        #expect(rows.map { $0[0] } == ["cmd", "evt", "cmd", "evt", "acl", "acl"].map { .text($0) })
        #expect(rows.map { $0[1] } == Self.h4.map { .blob(Array($0.body.dropFirst())) })
        #expect(try Live.rows(dir + "/rec.db", "SELECT status FROM capture") == [[.text("complete")]])
        // The btsnoop output is H4 (1002) holding the records as they came.
        let output = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/rec.btsnoop")))
        #expect(output == Self.btsnoop(datalink: 1002, Self.h4))
        // And its timeline is that of importing the input file.
        try Live.importTimeline(dir + "/rec.btsnoop", into: dir + "/out.db")
        try RecordingEquivalenceTests.expectSameTimeline(dir + "/rec.db", dir + "/out.db")
    }

    @Test func h4LabelledH1InAFollowedFileIsReadAsH4() throws {
        let input = Self.btsnoop(datalink: 1001, Self.h4)
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = dir + "/log"
        try Data(input).write(to: URL(fileURLWithPath: log))
        let source = try FollowSource(path: log, pollIntervalMilliseconds: 1)
        var records: [Live.RecordKey] = []
        var idle = 0
        while idle < 3 {
            switch try source.next(timeoutMilliseconds: 5) {
            case .record(let r): records.append(Live.RecordKey(r.record, timestamp: true)); idle = 0
            case .idle: idle += 1
            case .notice, .end: idle = 0
            }
        }
        let file = try Self.fileRecords(input)
        #expect(records == file.records)
        #expect(records.map(\.kind) == [.command, .event, .command, .event, .acl, .acl])
        #expect(source.notes == file.notes.map { "\(log): byte 16: \($0)" })
        #expect(source.warnings.isEmpty)
    }

    /// Fed a byte at a time, no record comes before the verdict: 16 records whole (or the input
    /// ended); then every record is read as the file reader reads it.
    @Test(arguments: [6, 16, 20])
    func judgedOnTheFirst16Records(count: Int) throws {
        let packets = (0..<count).map { Self.h4[$0 % Self.h4.count] }
        let input = Self.btsnoop(datalink: 1001, packets)
        let recordEnds = packets.reduce(into: [16]) { $0.append($0.last! + 24 + $1.body.count) }.dropFirst()
        var decoder = LiveStreamDecoder(source: "test")
        var records: [Live.RecordKey] = []
        for (i, byte) in input.enumerated() {
            decoder.feed([byte])
            while let r = try decoder.next(arrival: 0) { records.append(Live.RecordKey(r.record)) }
            if records.isEmpty {
                // Held while fewer than 16 records are whole.
                #expect(recordEnds.filter { $0 <= i + 1 }.count < 16)
            }
        }
        if count < 16 {
            #expect(records.isEmpty)
            try decoder.inputEnded()
            while let r = try decoder.next(arrival: 0) { records.append(Live.RecordKey(r.record)) }
        }
        #expect(decoder.pendingBytes == 0)
        let file = try Self.fileRecords(input)
        #expect(records == file.records)
        #expect(records.count == count && records.allSatisfy { $0.rawType == 1 || $0.rawType == 2 || $0.rawType == 4 })
        #expect(decoder.takeNotes() == file.notes.map { "test: byte 16: \($0)" })
    }

    /// Over TCP (btsnoop_net): 6 records, then the server closes; they come out as H4 when
    /// the connection ends, the note among the source's notes.
    @Test func h4LabelledH1OverTCPIsRecordedAsH4() throws {
        let input = Self.btsnoop(datalink: 1001, Self.h4)
        let (fd, port) = try TCPSourceTests.listener()
        _ = TCPSourceTests.serve(fd, sessions: [input])
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = TCPSource(host: "127.0.0.1", port: port, retries: 0)
        let summary = try Live.record(source, RecordingOptions(outputPath: dir + "/net.btsnoop"))
        #expect(summary.records == 6)
        #expect(summary.notes == (try Self.fileRecords(input)).notes.map { "\(source.name): byte 16: \($0)" })
        let output = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/net.btsnoop")))
        #expect(output == Self.btsnoop(datalink: 1002, Self.h4))
    }

    @Test func genuineH1StaysH1() throws {
        let input = Self.btsnoop(datalink: 1001, Self.h1)
        let fd = try RecordingEquivalenceTests.pipe(input)
        defer { close(fd) }
        let source = StreamSource(fileDescriptor: fd, name: "pipe")
        var records: [Live.RecordKey] = []
        loop: while true {
            switch try source.next(timeoutMilliseconds: 100) {
            case .record(let r): records.append(Live.RecordKey(r.record))
            case .end: break loop
            case .idle, .notice: continue
            }
        }
        #expect(records == (try Self.fileRecords(input)).records)
        #expect(records.map(\.payload) == Self.h1.map(\.body))
        #expect(source.notes.isEmpty && source.warnings.isEmpty)
    }
}
