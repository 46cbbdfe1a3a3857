import Testing
@testable import BLEReplay

/// What a recorded connection shows each attribute holding (`ValueHistory`), for reads the
/// recording never made.
@Suite("value history")
struct ValueHistoryTests {
    /// Read Multiple Variable (Core v5.4 Vol 3 Part F 3.4.4.11-12): the values of every handle of
    /// the request, each after its 2-byte length; the last one cut short at ATT_MTU - 1 (its
    /// length says 5, 2 bytes came) is not its value. Before, none of them was kept, and a script
    /// or app reading 0x0003 later got the unrecorded-value answer (Read Not Permitted) though the
    /// recording shows the value.
    @Test func readMultipleVariableGivesEachHandleItsValue() {
        var h = ValueHistory()
        // 20 | 03 00 | 08 00 | 0B 00: Read Multiple Variable Request for 0x0003, 0x0008, 0x000B
        let request: [UInt8] = [0x20, 0x03, 0x00, 0x08, 0x00, 0x0B, 0x00]
        // 21 | 04 00 "abcd" | 01 00 38 | 05 00 01 02 (cut short)
        let response: [UInt8] = [0x21, 0x04, 0x00, 0x61, 0x62, 0x63, 0x64, 0x01, 0x00, 0x38, 0x05, 0x00, 0x01, 0x02]
        h.answered(request, response, at: 1_000)
        #expect(h.value(of: 0x0003, at: 1_000) == Array("abcd".utf8))
        #expect(h.value(of: 0x0008, at: 5_000) == [0x38])
        #expect(h.value(of: 0x000B, at: 5_000) == nil)
        #expect(h.value(of: 0x0003, at: 999) == nil)
        // 21 | 00 00 | 02 00 41 42: an empty value is a value.
        h.answered([0x20, 0x03, 0x00, 0x0B, 0x00], [0x21, 0x00, 0x00, 0x02, 0x00, 0x41, 0x42], at: 2_000)
        #expect(h.value(of: 0x0003, at: 2_000) == [])
        #expect(h.value(of: 0x000B, at: 2_000) == [0x41, 0x42])
    }

    /// A Read Response is the whole rest of the PDU, as before.
    @Test func readResponseIsTheRestOfThePDU() {
        var h = ValueHistory()
        h.answered([0x0A, 0x11, 0x00], [0x0B, 0x01, 0x02, 0x03], at: 10)
        #expect(h.value(of: 0x0011, at: 10) == [1, 2, 3])
    }

    /// Read By Type (Core v5.4 Vol 3 Part F 3.4.4.1-2; Read Using Characteristic UUID, Vol 3
    /// Part G 4.8.2): every handle-value pair is that handle's value. Before, none was kept: a
    /// later read fell back to an older notification of the handle, or to another connection's.
    @Test func readByTypeGivesEachHandleItsValue() {
        var h = ValueHistory()
        // 1B 03 00 01: notification of 0x0003 = 01 at 1 ms.
        h.sent([0x1B, 0x03, 0x00, 0x01], at: 1_000)
        // 08 | 01 00 | FF FF | 00 2A: Read By Type Request 0x0001-0xFFFF, type 2A00 (Device Name)
        let request: [UInt8] = [0x08, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x2A]
        // 09 | 06 (pair: 2-byte handle + 4-byte value) | 03 00 "Pong" | 09 00 "Ping"
        let response: [UInt8] = [0x09, 0x06, 0x03, 0x00, 0x50, 0x6F, 0x6E, 0x67, 0x09, 0x00, 0x50, 0x69, 0x6E, 0x67]
        h.answered(request, response, at: 2_000)
        #expect(h.value(of: 0x0003, at: 1_500) == [0x01])
        #expect(h.value(of: 0x0003, at: 2_000) == Array("Pong".utf8))
        #expect(h.value(of: 0x0009, at: 9_000) == Array("Ping".utf8))
        // 09 | 07 | 03 00 "Pong": a pair size the response does not fill adds nothing.
        h.answered(request, [0x09, 0x07, 0x03, 0x00, 0x50, 0x6F, 0x6E, 0x67], at: 3_000)
        #expect(h.values[0x0003]?.count == 2)
    }

    /// Read Blob (3.4.4.5-6) joins its part at its offset to the value read before it: a long
    /// Device Name read by type (19 bytes at ATT_MTU 23, 3.4.4.2: cut at ATT_MTU - 4), then its
    /// rest by Read Blob at offset 19 (Vol 3 Part G 4.8.2). A part whose offset is past the known
    /// value is no value.
    @Test func readBlobJoinsTheLongValue() {
        var h = ValueHistory()
        let name = Array("A rather long device name".utf8)   // 25 bytes
        // 09 | 15 (2 + 19) | 03 00 | the first 19 bytes
        h.answered([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x2A], [0x09, 0x15, 0x03, 0x00] + name.prefix(19), at: 1_000)
        // 0C | 03 00 | 13 00 (offset 19) -> 0D | the last 6 bytes
        h.answered([0x0C, 0x03, 0x00, 0x13, 0x00], [0x0D] + name.suffix(6), at: 1_100)
        #expect(h.value(of: 0x0003, at: 1_050) == Array(name.prefix(19)))
        #expect(h.value(of: 0x0003, at: 1_100) == name)
        // 0C | 05 00 | 04 00: nothing known of 0x0005 before: not a value.
        h.answered([0x0C, 0x05, 0x00, 0x04, 0x00], [0x0D, 0x01], at: 1_200)
        #expect(h.value(of: 0x0005, at: 2_000) == nil)
    }

    /// Multiple Handle Value Notification (3.4.7.4): handle, 2-byte length, value, for each.
    /// Before, the whole rest of the PDU (lengths and the next handles included) was taken as
    /// the first handle's value.
    @Test func multipleHandleValueNotificationGivesEachHandleItsValue() {
        var h = ValueHistory()
        // 23 | 03 00 02 00 AA BB | 06 00 01 00 CC
        h.sent([0x23, 0x03, 0x00, 0x02, 0x00, 0xAA, 0xBB, 0x06, 0x00, 0x01, 0x00, 0xCC], at: 500)
        #expect(h.value(of: 0x0003, at: 500) == [0xAA, 0xBB])
        #expect(h.value(of: 0x0006, at: 500) == [0xCC])
    }

    /// Read Multiple (3.4.4.7-8): the values one after another, no lengths. They are the
    /// handles' values when lengths known from the connection's other values (here a Read By
    /// Type of 0x0006, 1 byte, and a Write Request of 0x0008, 2 bytes) explain the response.
    @Test func readMultipleIsSplitByKnownLengths() {
        var h = ValueHistory()
        // 09 | 03 | 06 00 AA: 0x0006 is 1 byte long.
        h.answered([0x08, 0x01, 0x00, 0xFF, 0xFF, 0xF2, 0xFF], [0x09, 0x03, 0x06, 0x00, 0xAA], at: 100)
        // 12 | 08 00 | BB CC -> 13: 0x0008 is 2 bytes long.
        h.answered([0x12, 0x08, 0x00, 0xBB, 0xCC], [0x13], at: 200)
        // 0E | 06 00 | 08 00 -> 0F | 11 | 22 33
        h.answered([0x0E, 0x06, 0x00, 0x08, 0x00], [0x0F, 0x11, 0x22, 0x33], at: 300)
        // The lengths may come from later values too: known only at the connection's end.
        h.answered([0x12, 0x0A, 0x00, 0x01, 0x02, 0x03], [0x13], at: 400)
        // 0E | 0A 00 | 06 00 -> 0F | 44 55 66 | 77
        h.answered([0x0E, 0x0A, 0x00, 0x06, 0x00], [0x0F, 0x44, 0x55, 0x66, 0x77], at: 350)
        h.finish()
        #expect(h.value(of: 0x0006, at: 300) == [0x11])
        #expect(h.value(of: 0x0008, at: 300) == [0x22, 0x33])
        #expect(h.value(of: 0x0006, at: 350) == [0x77])
        #expect(h.value(of: 0x000A, at: 350) == [0x44, 0x55, 0x66])
        // In time order: the write at 400 is still the latest.
        #expect(h.value(of: 0x000A, at: 400) == [0x01, 0x02, 0x03])
        #expect(h.value(of: 0x0006, at: 200) == [0xAA])
    }

    /// The last handle's length may stay unknown when the response is surely whole (shorter than
    /// ATT_MTU - 1 at the least MTU, 23); lengths that do not add up, or an unknown length before
    /// the last, attribute nothing; a response that fills ATT_MTU - 1 exactly was cut, and the
    /// values whole before the cut are kept.
    @Test func readMultipleKeepsOnlyWhatTheLengthsExplain() {
        var h = ValueHistory()
        h.answered([0x12, 0x06, 0x00, 0xAA], [0x13], at: 10)                  // 0x0006: 1 byte
        h.answered([0x12, 0x08, 0x00, 0xBB, 0xCC], [0x13], at: 10)            // 0x0008: 2 bytes
        // Last unknown (0x0020), not cut: it has the rest.
        h.answered([0x0E, 0x06, 0x00, 0x20, 0x00], [0x0F, 0x01, 0x02, 0x03], at: 100)
        // Known lengths 1 + 2 = 3, response 4 bytes, not cut: the lengths changed. Nothing.
        h.answered([0x0E, 0x06, 0x00, 0x08, 0x00], [0x0F, 0x05, 0x06, 0x07, 0x08], at: 200)
        // Unknown 0x0030 before the last: nothing.
        h.answered([0x0E, 0x30, 0x00, 0x06, 0x00], [0x0F, 0x09, 0x0A], at: 300)
        // 0x0006 (1) + 0x0040 (20 bytes, known) + ...: 22 bytes fill ATT_MTU 23 - 1: cut in 0x0008.
        h.answered([0x12, 0x40, 0x00] + Array(repeating: 0x40, count: 20), [0x13], at: 10)
        h.answered([0x0E, 0x06, 0x00, 0x40, 0x00, 0x08, 0x00], [0x0F, 0x0B] + Array(repeating: 0x41, count: 20) + [0x0C], at: 400)
        h.finish()
        #expect(h.value(of: 0x0020, at: 100) == [0x02, 0x03])
        #expect(h.value(of: 0x0006, at: 100) == [0x01])
        #expect(h.value(of: 0x0006, at: 299) == [0x01])
        #expect(h.value(of: 0x0008, at: 299) == [0xBB, 0xCC])
        #expect(h.value(of: 0x0030, at: 999) == nil)
        #expect(h.value(of: 0x0006, at: 400) == [0x0B])
        #expect(h.value(of: 0x0040, at: 400) == Array(repeating: 0x41, count: 20))
        #expect(h.value(of: 0x0008, at: 400) == [0xBB, 0xCC])
    }
}
