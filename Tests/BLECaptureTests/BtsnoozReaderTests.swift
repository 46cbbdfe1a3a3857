import BLECapture
import BLECore
import Foundation
import Testing

/// The btsnooz fixtures (Fixtures/make_btsnooz_fixtures.py): six records, last time
/// 1,700,000,000.123456 s, deltas 0, 1500, 2,000,000, 25,000, 4,000,000,000 and 7 µs.
@Suite("Android btsnooz")
struct BtsnoozReaderTests {
    static let timestamps: [Int64] = [
        1_699_995_998_096_949, 1_699_995_998_098_449, 1_699_996_000_098_449,
        1_699_996_000_123_449, 1_700_000_000_123_449, 1_700_000_000_123_456,
    ]

    @Test("v1 and v2 bugreports decode to the same packets", arguments: [1, 2])
    func decodes(_ version: Int) throws {
        let path = TestFiles.fixture("bugreport-btsnooz-v\(version).txt")
        #expect(path.hasPrefix(Bundle.module.bundlePath))
        let result = readAll(path: path)
        #expect(result.error == nil && result.warnings.isEmpty)
        #expect(result.info?.format == .btsnooz)
        #expect(result.info?.formatDescription == "Android btsnooz v\(version) (bugreport BTSNOOP_LOG_SUMMARY)")
        let r = result.records
        try #require(r.count == 6)
        #expect(r.map(\.timestamp) == Self.timestamps)
        #expect(r.map(\.kind) == [.command, .event, .acl, .acl, .event, .iso])
        #expect(r.map(\.direction) == [.sent, .received, .sent, .received, .received, .sent])
        #expect(r.map(\.rawType) == [0x20, 0x10, 0x21, 0x11, 0x10, 0x2D])
        #expect(r[0].payload == [0x03, 0x0C, 0x00])
        #expect(r[3].payload.count == 14)
        // v2 keeps the uncut length (type byte included); v1 only knows the included one.
        #expect(r[3].originalLength == (version == 2 ? 31 : 15))
        #expect(r[4].payload == [0x05, 0x04, 0x00, 0x40, 0x00, 0x13])
        #expect(r.map(\.frameNumber) == Array(1...6))
        #expect(result.bytesRead > 0)
    }

    @Test("the section is found far into a big bugreport")
    func farSection() throws {
        let fixture = try SampleCaptures.bugreport(version: 2)
        var text: [UInt8] = []
        let line = Array("01-01 00:00:00.000  1000  1234  1234 I Bluetooth: nothing to see here\n".utf8)
        while text.count < 3 << 20 { text += line }
        let result = readAll(bytes: text + fixture + text)
        #expect(result.error == nil)
        #expect(result.records.map(\.timestamp) == Self.timestamps)
    }

    @Test("a bugreport cut inside the section keeps the complete records and warns")
    func cutSection() throws {
        let fixture = try SampleCaptures.bugreport(version: 2)
        let text = String(decoding: fixture, as: UTF8.self)
        let end = try #require(text.range(of: "\n--- END:")).lowerBound
        let cutAt = text.utf8.distance(from: text.startIndex, to: end) - 20
        let result = readAll(bytes: Array(fixture.prefix(cutAt)))
        #expect(result.error == nil)
        #expect(result.records.count < 6)
        #expect(result.warnings.contains { $0.message.contains("has no END marker") })
        #expect(result.warnings.contains { $0.message.contains("compressed stream ends early") })
    }

    @Test("damaged base64 and zlib are corrupt, naming the section")
    func damaged() throws {
        let fixture = try SampleCaptures.bugreport(version: 2)
        let text = String(decoding: fixture, as: UTF8.self)
        let start = try #require(text.range(of: "bytes in) ---\n")).upperBound
        let section = text.utf8.distance(from: text.startIndex, to: start)

        var badCharacter = fixture
        badCharacter[section + 40] = UInt8(ascii: "*")
        let error = readAll(bytes: badCharacter).error
        #expect(error?.kind == .corrupt && error?.offset == section + 40)

        // Unsupported version byte: the first base64 quantum "AkAi" (02 40 22) becomes "A0Ai" (03 40 22).
        var version3 = fixture
        version3[section + 1] = UInt8(ascii: "0")
        #expect(readAll(bytes: version3).error?.kind == .unsupported)

        // Garbage in the middle of the compressed stream.
        var garbage = fixture
        for i in (section + 60)..<(section + 100) { garbage[i] = UInt8(ascii: "Q") }
        let damaged = readAll(bytes: garbage)
        #expect(damaged.error?.kind == .corrupt)
        #expect(damaged.error?.offset == section)
    }

    @Test("text without a section is not a capture")
    func noSection() {
        let error = readAll(bytes: Array("just some notes\nabout bluetooth\n".utf8)).error
        #expect(error?.kind == .unknownFormat)
        #expect(error?.message == "a text file without a --- BEGIN:BTSNOOP_LOG_SUMMARY section; not a capture")
    }
}
