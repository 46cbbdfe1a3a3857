import BLECapture
import BLECore
import Testing

/// `PcapWriter` on any `Int64` timestamp (issue 17): `export --format pcap` of a capture whose
/// clock says Int64.min trapped on `seconds * 1_000_000`. A pcap record header holds 32-bit
/// unsigned seconds (1970 to 2106): outside, the nearest time it holds, counted.
@Suite("pcap record times")
struct PcapTimestampTests {
    /// (µs since the Unix epoch, ts_sec, ts_usec, clamped)
    static let cases: [(Int64, UInt32, UInt32, Bool)] = [
        (1_700_000_000_123_456, 1_700_000_000, 123_456, false),
        (0, 0, 0, false),
        (4_294_967_295_999_999, .max, 999_999, false),   // the last µs of 2106-02-07T06:28:15Z
        (4_294_967_296_000_000, .max, 999_999, true),
        (-1, 0, 0, true),
        (.min, 0, 0, true),
        (.max, .max, 999_999, true),
    ]

    @Test func headerTimes() {
        for (us, seconds, micros, clamped) in Self.cases {
            let t = PcapWriter.headerTime(us)
            #expect(t.seconds == seconds && t.micros == micros && t.clamped == clamped, "\(us): \(t)")
        }
    }

    @Test func writtenHeadersCarryThem() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let path = directory + "/times.pcap"
        let writer = try PcapWriter(path: path)
        // HCI Reset (Core v5.4 Vol 4 Part E 7.3.2): opcode 0x0C03, no parameters.
        for (i, c) in Self.cases.enumerated() {
            try writer.write(CaptureRecord(frameNumber: i + 1, timestamp: c.0, direction: .sent, kind: .command,
                                           payload: [0x03, 0x0C, 0x00], fileOffset: 0))
        }
        try writer.close()
        #expect(writer.timestampsClamped == Self.cases.filter(\.3).count)
        // 24-byte file header; each record: ts_sec u32, ts_usec u32, caplen, len (host order,
        // little-endian here), then 4 direction bytes and the 4-byte H4 command.
        let bytes = try readFile(path)
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
        #expect(bytes.count == 24 + Self.cases.count * (16 + 8))
        for (i, c) in Self.cases.enumerated() {
            let at = 24 + i * 24
            #expect(u32(at) == c.1 && u32(at + 4) == c.2, "record \(i + 1)")
        }
    }
}
