import Foundation
import Testing
import BLECore
import BLECapture
@testable import BLELive

/// `RecordCoding` mirrors BLECapture: encoding writes what `BtsnoopWriter` writes, decoding
/// reads what `BtsnoopReader` reads, in every datalink, for every real capture.
@Suite struct RecordCodingTests {
    static let datalinks: [UInt32] = [1001, 1002, 2001]

    @Test(arguments: Live.btsnoopCaptures, datalinks)
    func encodingEqualsBtsnoopWriter(name: String, datalink: UInt32) throws {
        let records = try Live.records(Live.capture(name))
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/writer.btsnoop"
        let writer = try BtsnoopWriter(path: path, datalink: datalink)
        var ours = RecordCoding.fileHeader(datalink: BtsnoopDatalink(rawValue: datalink))
        for r in records {
            try writer.write(r)
            if let packet = RecordCoding.encode(r, datalink: BtsnoopDatalink(rawValue: datalink)) {
                ours += RecordCoding.fileBytes(packet)
            }
        }
        try writer.close()
        let theirs = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(ours.count == theirs.count)
        #expect(ours == theirs)
    }

    @Test(arguments: Live.btsnoopCaptures)
    func decodingEqualsBtsnoopReader(name: String) throws {
        let path = Live.capture(name)
        let expected = try Live.records(path)
        let chunks = try Live.btsnoopChunks(path)
        let datalink = BtsnoopDatalink(rawValue: chunks.header[12...].reduce(0) { $0 << 8 | UInt32($1) })
        var offset = 16
        for (i, (chunk, e)) in zip(chunks.records, expected).enumerated() {
            let word = { (at: Int) in chunk[at..<(at + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
            let stamp = chunk[16..<24].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let packet = BtsnoopPacket(flags: word(8), originalLength: word(0), cumulativeDrops: word(12),
                                       timestamp: Int64(bitPattern: stamp) - Timestamp.btsnoopEpochOffset,
                                       body: Array(chunk[24...]))
            let got = RecordCoding.decode(packet, datalink: datalink, frameNumber: i + 1, fileOffset: offset)
            #expect(Live.RecordKey(got) == Live.RecordKey(e))
            offset += chunk.count
        }
    }

    @Test func userLoggingRoundTrip() {
        // 07 priority debug | 0b ident length 11 | "bluetoothd\0" | "hello\0"
        let body: [UInt8] = [0x07, 0x0B] + Array("bluetoothd\0".utf8) + Array("hello\0".utf8)
        #expect(RecordCoding.userLoggingText(body[...]) == Array("bluetoothd: hello".utf8))
        #expect(RecordCoding.userLoggingBody(Array("bluetoothd: hello".utf8)) == [0x06] + body.dropFirst())
        #expect(RecordCoding.userLoggingText([0x06, 0x09, 0x41][...]) == nil)
    }

    @Test func notesHaveNoH4Form() {
        let note = CaptureRecord(frameNumber: 1, timestamp: 0, direction: .unknown, kind: .note,
                                 payload: Array("note".utf8), fileOffset: 0, rawType: 12)
        #expect(RecordCoding.encode(note, datalink: .h4) == nil)
        // System Note: the text gets its NUL back.
        #expect(RecordCoding.encode(note, datalink: .monitor)?.body == Array("note\0".utf8))
    }
}

@Suite struct RotationPolicyTests {
    @Test(arguments: [
        ("100M", RotationPolicy.size(bytes: 100 << 20)), ("64K", .size(bytes: 64 << 10)), ("2GiB", .size(bytes: 2 << 30)),
        ("1mb", .size(bytes: 1 << 20)), ("4096", .size(bytes: 4096)), ("30s", .duration(milliseconds: 30_000)),
        ("30min", .duration(milliseconds: 1_800_000)), ("1h", .duration(milliseconds: 3_600_000)),
        ("2d", .duration(milliseconds: 172_800_000)),
    ])
    func parses(text: String, policy: RotationPolicy) throws {
        #expect(try RotationPolicy(parsing: text) == policy)
    }

    @Test(arguments: ["", "M", "10m", "0M", "-1h", "1.5G", "12parsecs", "100"])
    func refuses(text: String) {
        let error = #expect(throws: RotationPolicy.ParseError.self) { try RotationPolicy(parsing: text) }
        if text == "10m" { #expect(error?.message.contains("10M for megabytes or 10min for minutes") == true) }
    }

    @Test func segmentNames() {
        #expect(RotationPolicy.segmentPath("/tmp/x.btsnoop", number: 1) == "/tmp/x.1.btsnoop")
        #expect(RotationPolicy.segmentPath("/tmp/x", number: 12) == "/tmp/x.12")
        #expect(RotationPolicy.segmentPath("/tmp/a.b/x", number: 2) == "/tmp/a.b/x.2")
        #expect(RotationPolicy.segmentPath(".hidden", number: 3) == ".hidden.3")
    }
}
