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
}
