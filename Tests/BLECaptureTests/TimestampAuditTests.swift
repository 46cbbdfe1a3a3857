import BLECore
import Testing
@testable import BLECapture

/// Absurd timestamps become capture warnings naming the record (issue 17); pcapng's 64-bit
/// tick counts saturate instead of wrapping into a plausible-looking time.
@Suite("Timestamp audit")
struct TimestampAuditTests {
    static func record(_ frame: Int, _ ts: Int64) -> CaptureRecord {
        CaptureRecord(frameNumber: frame, timestamp: ts, direction: .received, kind: .event, payload: [0x0E, 0x00],
                      fileOffset: 16 + (frame - 1) * 26)
    }

    @Test func warnsAboutEachAbsurdRecord() {
        var audit = TimestampAudit()
        let stamps: [Int64] = [1_777_881_600_000_000, .max, 0, .min, -Timestamp.btsnoopEpochOffset - 1,
                               -Timestamp.btsnoopEpochOffset]
        for (i, ts) in stamps.enumerated() { audit.check(Self.record(i + 1, ts)) }
        #expect(audit.absurdRecords == 3)
        let w = audit.warnings
        #expect(w.map(\.offset) == [16 + 26, 16 + 3 * 26, 16 + 4 * 26])
        #expect(w[0].message.hasPrefix("record 2: absurd timestamp 9223372036854775807 µs since the Unix epoch (294247-01-10T04:00:54.775807Z"))
        #expect(w[1].message.hasPrefix("record 4: absurd timestamp -9223372036854775808 µs"))
        #expect(w[2].message.hasPrefix("record 5: absurd timestamp"))
    }

    /// Past 20, one line counts the rest: a file of absurd records cannot fill memory with warnings.
    @Test func boundedWarnings() {
        var audit = TimestampAudit()
        for frame in 1...25_000 { audit.check(Self.record(frame, .max)) }
        let w = audit.warnings
        #expect(w.count == TimestampAudit.reportedLimit + 1)
        #expect(w.last?.message == "24980 more record(s) with an absurd timestamp, the last one record 25000")
        #expect(w.last?.offset == 16 + 24_999 * 26)
    }

    /// pcapng (Enhanced Packet Block, Wireshark pcapng spec 4.3) with timestamp high/low
    /// FFFFFFFF FFFFFFFF at the default µs resolution: libpcap gives tv_sec 18446744073709,
    /// tv_usec 551615; seconds × 10^6 overflows Int64 and wrapped to -1 (1969-12-31, plausible)
    /// before: it saturates to Int64.max, which the audit flags.
    @Test func pcapngTicksBeyondInt64Saturate() throws {
        func le32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian, Array.init) }
        func le16(_ v: UInt16) -> [UInt8] { withUnsafeBytes(of: v.littleEndian, Array.init) }
        func block(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
            let padded = body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
            let n = UInt32(padded.count + 12)
            return le32(type) + le32(n) + padded + le32(n)
        }
        // SHB: byte-order magic 1A2B3C4D, version 1.0, section length -1
        let shb = block(0x0A0D_0D0A, le32(0x1A2B_3C4D) + le16(1) + le16(0) + [UInt8](repeating: 0xFF, count: 8))
        // IDB: LINKTYPE 201 (H4 with direction phdr), reserved, snaplen 0
        let idb = block(1, le16(201) + le16(0) + le32(0))
        // Packet: direction 00000001 (received) | H4 04 0E 04 01 03 0C 00 (Command Complete, Reset)
        let data: [UInt8] = [0, 0, 0, 1, 0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
        let epb = block(6, le32(0) + le32(0xFFFF_FFFF) + le32(0xFFFF_FFFF) + le32(UInt32(data.count)) + le32(UInt32(data.count)) + data)
        var reader = try PcapReader(bytes: shb + idb + epb)
        let r = try #require(try reader.next())
        #expect(r.kind == .event)
        #expect(r.timestamp == .max)
        #expect(!Timestamp.isPlausible(r.timestamp))
    }
}
