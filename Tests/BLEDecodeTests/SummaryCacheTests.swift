import Testing
import BLECore
@testable import BLEDecode

/// Summaries handed out again from `SummaryCache` (issue 12: formatting the same fragment and
/// notification summaries record after record was a large part of the decoding thread) read
/// exactly as the ones formatted each time, whatever evictions the slots go through.
@Suite("Summary cache")
struct SummaryCacheTests {
    /// More distinct fragment summaries than slots, looked up twice in two orders: every line is
    /// the formatted one, and no two different summaries share a key.
    @Test func fragmentLinesEqualTheFormattedOnes() {
        var cache = SummaryCache()
        var keys = Set<UInt64>()
        var inputs: [(Direction, Bool, Int, Int?)] = []
        for direction in [Direction.sent, .received, .unknown] {
            for start in [true, false] {
                for received in stride(from: 0, through: 65_539, by: 37) {
                    inputs.append((direction, start, received, nil))
                    inputs.append((direction, start, received, 65_539 - received % 1000))
                }
            }
        }
        for (direction, start, received, expected) in inputs + inputs.reversed() {
            let key = SummaryCache.fragmentKey(direction: direction, start: start, received: received, expected: expected)
            guard let key else {
                Issue.record("no key for \(received) of \(expected.map(String.init) ?? "?")")
                continue
            }
            keys.insert(key)
            let formatted = Fmt.fragmentSummary(prefix: Fmt.prefix(direction), start: start, received: received,
                                                expected: expected)
            #expect(cache.line(key) { formatted } == formatted)
        }
        #expect(keys.count == inputs.count)
        #expect(inputs.count > 2 * SummaryCache.slotCount)
        #expect(SummaryCache.fragmentKey(direction: .sent, start: true, received: -1, expected: nil) == nil)
    }

    /// Handle-value PDUs on many handles in both directions, each twice: the decoder's summary is
    /// `prefix + ATTPDU.summary`, as before the cache. Bytes: L2CAP length, CID 0x0004, then
    /// the PDU (opcode, handle little-endian, one value byte where it has one).
    @Test func attSummariesReadAsFormatted() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        for _ in 0..<2 {
            for handle in UInt16(0)..<1500 {
                for (opcode, value) in [(UInt8(0x1B), [UInt8(7)]), (0x1D, [7]), (0x12, [7]), (0x52, [7]), (0x13, []), (0x1E, [])] {
                    let takesHandle = opcode != 0x13 && opcode != 0x1E
                    let att = [opcode] + (takesHandle ? [UInt8(handle & 0xFF), UInt8(handle >> 8)] + value : [])
                    for direction in [Direction.sent, .received] {
                        let l2cap = [UInt8(att.count), 0x00, 0x04, 0x00] + att
                        let packet = decoder.decode(Rec.acl(direction, handle: 0x0040, pb: 0b10, l2cap))
                        let pdu = try ATTPDU(decoding: att[...])
                        #expect(packet.summary == Fmt.prefix(direction) + pdu.summary)
                    }
                }
            }
        }
    }
}
