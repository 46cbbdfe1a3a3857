import Foundation
import Testing
import TestSupport
import BLETimeline

/// The btsnoop record header's cumulative drops (RFC 1761 packet record): each rise is a gap the
/// writer left. The `capture-gap` finding said how many times the counter rose from its first 20
/// rises only: 25 rises read "rose 20 time(s)".
@Suite("capture writer drops counted in full")
struct CaptureWriterDropsTests {
    /// 30 Read By Type requests on an open link, the counter rising by one at each of records 4-28.
    static func bytes() -> [UInt8] {
        var c = SpecCapture()
        let h: UInt16 = 0x0040
        c.connectionComplete(0, handle: h, role: 0x00, peer: [0xC0, 0x11, 0x22, 0x33, 0x44, 0x55])
        for i in 0..<30 {
            c.att(Int64(100 + 10 * i), handle: h, [0x08] + c.le16(0x0001) + c.le16(0xFFFF) + c.le16(0x2803), received: false)
        }
        var out = c.bytes
        // File header 16 octets; per record 24 octets of header (drops at +12) then the packet.
        var offset = 16, record = 1, drops: UInt32 = 0
        while offset + 24 <= out.count {
            let included = Int(out[offset + 4]) << 24 | Int(out[offset + 5]) << 16 | Int(out[offset + 6]) << 8 | Int(out[offset + 7])
            if (4...28).contains(record) { drops += 1 }
            for k in 0..<4 { out[offset + 12 + k] = UInt8(truncatingIfNeeded: drops >> (24 - 8 * UInt32(k))) }
            offset += 24 + included
            record += 1
        }
        return out
    }

    @Test func everyRiseIsCountedAndTheFirstTwentyCited() throws {
        let directory = Support.scratch()
        defer { Support.remove(directory) }
        try Data(Self.bytes()).write(to: URL(fileURLWithPath: directory + "/drops.btsnoop"))
        let store = try Support.timeline([directory + "/drops.btsnoop"], at: directory + "/drops.db")
        let rows = try store.database.rows("SELECT title, detail, evidence_packet_ids FROM finding WHERE title LIKE 'The capture writer dropped%'")
        let f = try #require(rows.first)
        #expect(f[0].string == "The capture writer dropped 25 packet(s)")
        #expect(f[1].string == "The btsnoop cumulative-drops counter rose 25 time(s) (the first 20 cited): what happened in those gaps is not in the capture.")
        #expect(f[2].string == "[" + (4...23).map(String.init).joined(separator: ",") + "]")
    }
}
