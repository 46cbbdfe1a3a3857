import Testing
import TestSupport

/// The values of Read Multiple Responses are the GATT database's values as the replay's are
/// (`ReadMultipleValues`, Docs/replay.md): each of a Read Multiple Variable Response (Core v5.4
/// Vol 3 Part F 3.4.4.12: a length before each); those of a Read Multiple Response (3.4.4.8: one
/// after another, no lengths) only where lengths known from the link's other values, before or
/// after it, explain the response; the latest value of each handle is the one kept. Each value of a
/// Multiple Handle Value Notification (3.4.7.4) too.
@Suite("GATT values of Read Multiple Responses")
struct ReadMultipleValueTests {
    static let peer: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x52]

    /// A central's link (ATT_MTU 23: no exchange), packet by packet.
    static func capture() -> [UInt8] {
        var c = SpecCapture()
        c.connectionComplete(0, handle: 0x0040, role: 0, peer: peer)                          // 1
        var t: Int64 = 100
        // 0A | 06 00 -> 0B | AA: 0x0006 is 1 byte long.                                        2, 3
        c.exchange(&t, handle: 0x0040, [0x0A, 0x06, 0x00], [0x0B, 0xAA])
        // 12 | 08 00 | BB CC -> 13: 0x0008 is 2 bytes long.                                    4, 5
        c.exchange(&t, handle: 0x0040, [0x12, 0x08, 0x00, 0xBB, 0xCC], [0x13])
        // 0E | 06 00 | 08 00 -> 0F | 11 | 22 33                                                6, 7
        c.exchange(&t, handle: 0x0040, [0x0E, 0x06, 0x00, 0x08, 0x00], [0x0F, 0x11, 0x22, 0x33])
        // 20 | 0A 00 | 0C 00 -> 21 | 03 00 44 55 66 | 01 00 77                               8, 9
        c.exchange(&t, handle: 0x0040, [0x20, 0x0A, 0x00, 0x0C, 0x00], [0x21, 0x03, 0x00, 0x44, 0x55, 0x66, 0x01, 0x00, 0x77])
        // 0E | 0A 00 | 30 00 -> 0F | 99 98 97 | 01 02: 0x000A is 3 bytes (packet 9); 0x0030,
        // last and of no known length, has the rest (5 bytes, less than ATT_MTU - 1: not cut). 10, 11
        c.exchange(&t, handle: 0x0040, [0x0E, 0x0A, 0x00, 0x30, 0x00], [0x0F, 0x99, 0x98, 0x97, 0x01, 0x02])
        // 0A | 08 00 -> 0B | 5A 5B: later than packet 7's value.                                12, 13
        c.exchange(&t, handle: 0x0040, [0x0A, 0x08, 0x00], [0x0B, 0x5A, 0x5B])
        // 0E | 0E 00 | 06 00 -> 0F | E1 E2 | F0: 0x000E's length comes from packet 16, later. 14, 15
        c.exchange(&t, handle: 0x0040, [0x0E, 0x0E, 0x00, 0x06, 0x00], [0x0F, 0xE1, 0xE2, 0xF0])
        // 1B | 0E 00 | D1 D2: a notification, 2 bytes.                                         16
        c.att(t, handle: 0x0040, [0x1B, 0x0E, 0x00, 0xD1, 0xD2], received: true)
        t += 40
        // 0E | 06 00 | 08 00 -> 0F | 01 02 03 04: 1 + 2 is not 4 (not cut): nothing.           17, 18
        c.exchange(&t, handle: 0x0040, [0x0E, 0x06, 0x00, 0x08, 0x00], [0x0F, 0x01, 0x02, 0x03, 0x04])
        // 23 | 10 00 02 00 AB CD | 12 00 01 00 EF: a Multiple Handle Value Notification, a
        // length before each value (3.4.7.4), as the replay learns it.                       19
        c.att(t, handle: 0x0040, [0x23, 0x10, 0x00, 0x02, 0x00, 0xAB, 0xCD, 0x12, 0x00, 0x01, 0x00, 0xEF], received: true)
        c.disconnectionComplete(t + 100, handle: 0x0040, reason: 0x13)                        // 20
        return c.bytes
    }

    @Test func readMultipleValuesAreTheHandlesValues() throws {
        let rows = try AnalysedSpecCapture.withTimeline(Self.capture()) { store in
            try store.database.rows("SELECT handle, hex(value), source, packet_id FROM gatt_value WHERE server = 'remote' ORDER BY handle")
        }
        #expect(rows.map { "\($0[0].int ?? -1) \($0[1].string ?? "-") \($0[2].string ?? "-") \($0[3].int ?? -1)" } == [
            "6 F0 read 15",
            "8 5A5B read 13",
            "10 999897 read 11",
            "12 77 read 9",
            "14 D1D2 notification 16",
            "16 ABCD notification 19",
            "18 EF notification 19",
            "48 0102 read 11",
        ])
    }
}
