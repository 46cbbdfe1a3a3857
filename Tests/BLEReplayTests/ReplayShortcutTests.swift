@testable import BLEReplay
import BLEDecode
import Testing

/// The shortcuts the replay took for speed and memory (issue 12, 17) give exactly what the code
/// they replaced gave.
@Suite("Replay shortcuts")
struct ReplayShortcutTests {
    /// `ATTMatchKey.attributeHandle` reads the handle of the handle-value PDUs without decoding:
    /// for every opcode and every length up to 8 bytes (and a 4 KiB value), what a full decode gives.
    @Test func attributeHandleIsWhatTheDecoderSays() {
        var g = SplitMix64(seed: 12)
        for op in 0...255 {
            for count in [1, 2, 3, 4, 5, 6, 7, 8, 4_096] {
                let bytes = [UInt8(op)] + (1..<count).map { _ in UInt8(truncatingIfNeeded: g.next()) }
                let decoded = (try? ATTPDU(decoding: bytes[...]))?.attributeHandle
                #expect(ATTMatchKey.attributeHandle(bytes) == decoded, "opcode \(op), \(count) bytes")
                #expect(ATTMatchKey(pdu: bytes) == ATTMatchKey(opcode: ATTOpcode(UInt8(op)), handle: count >= 3 ? decoded : nil))
            }
        }
        #expect(ATTMatchKey.attributeHandle([]) == nil)
    }

    /// The value history keeps the PDUs and cuts the values out when asked: a Read Response's value
    /// after its opcode, a Write Request's and a notification's after opcode and handle, the latest
    /// at or before the moment asked about (Core v5.4 Vol 3 Part F 3.4.4.4, 3.4.5.1, 3.4.7.1).
    @Test func valueHistoryGivesTheValues() {
        var h = ValueHistory()
        h.answered([0x0A, 0x21, 0x00], [0x0B, 0x01, 0x02], at: 10)           // Read Request / Response
        h.answered([0x12, 0x21, 0x00, 0x07], [0x13], at: 20)                 // Write Request / Response
        h.answered([0x12, 0x21, 0x00, 0x08], [0x01, 0x12, 0x21, 0x00, 0x03], at: 25)  // refused: nothing stored
        h.sent([0x1B, 0x21, 0x00, 0x09, 0x0A], at: 30)                        // notification
        h.wrote([0x52, 0x30, 0x00], at: 40)                                   // Write Command, empty value
        h.sent([0x1B, 0x21], at: 50)                                          // too short: nothing
        h.answered([0x0A, 0x22, 0x00], [0x0B], at: 60)                        // empty Read Response
        #expect(h.value(of: 0x21, at: 9) == nil)
        #expect(h.value(of: 0x21, at: 10) == [0x01, 0x02])
        #expect(h.value(of: 0x21, at: 24) == [0x07])
        #expect(h.value(of: 0x21, at: 29) == [0x07])
        #expect(h.value(of: 0x21, at: 1_000) == [0x09, 0x0A])
        #expect(h.value(of: 0x30, at: 40) == [])
        #expect(h.value(of: 0x22, at: 60) == [])
        #expect(h.values[0x21]?.map(\.offset) == [10, 20, 30])
        #expect(h.values[0x21]?.map(\.value) == [[0x01, 0x02], [0x07], [0x09, 0x0A]])
    }

    /// The scheduler keeps its actions apart from its heap and reuses their slots: events that
    /// schedule and cancel others still run in (time, order, sequence) order, each exactly once.
    @Test func schedulerOrderWithReusedSlots() {
        let s = Scheduler()
        var g = SplitMix64(seed: 17)
        var expected: [(time: Int64, order: Int, sequence: Int)] = []
        var ran: [Int] = []
        var sequence = 0
        var cancelledSequences: Set<Int> = []
        func add(depth: Int) {
            let time = s.now + 1 + Int64(g.next() % 50)  // never at the running event's time: one global order
            let order = g.next() % 3 == 0 ? Scheduler.unordered : Int(g.next() % 4)
            let mine = sequence
            sequence += 1
            expected.append((time, order, mine))
            let id = s.schedule(at: time, order: order) {
                ran.append(mine)
                if depth < 3 { for _ in 0..<2 { add(depth: depth + 1) } }
            }
            if g.next() % 7 == 0 {
                s.cancel(id)
                cancelledSequences.insert(mine)
            }
        }
        for _ in 0..<200 { add(depth: 0) }
        s.run()
        // Every event not cancelled ran once, and in (time, order, sequence) order.
        let wanted = expected.filter { !cancelledSequences.contains($0.sequence) }
        #expect(ran.count == wanted.count)
        #expect(Set(ran).count == ran.count)
        let byRun = ran.map { r in expected.first { $0.sequence == r }! }
        for (a, b) in zip(byRun, byRun.dropFirst()) {
            #expect(a.time <= b.time)
            if a.time == b.time, a.order == b.order { #expect(a.sequence < b.sequence) }
            if a.time == b.time { #expect(a.order <= b.order) }
        }
        #expect(s.eventsRun == wanted.count)
    }
}
