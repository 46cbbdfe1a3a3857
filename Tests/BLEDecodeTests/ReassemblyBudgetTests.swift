import BLECore
import Testing
@testable import BLEDecode

/// What pending reassemblies may hold (issue 17: 3,840 reassemblies that never completed took
/// 306 MB). A pending PDU holds what arrived, not what its header announces, and all of them
/// together at most `ACLReassembler.pendingBudget` bytes.
@Suite("Reassembly memory budget")
struct ReassemblyBudgetTests {
    /// On each of 3,839 handles (0x0000-0x0EFF but 0x0EDC, the vendor diagnostic handle) a start
    /// fragment: L2CAP header FF FF 04 00 (length 65535, CID 0x0004 ATT) and 16 bytes of it.
    /// None ever completes.
    @Test func neverCompletingStartsHoldOnlyWhatArrived() {
        var decoder = PacketDecoder()
        let data = [0xFF, 0xFF, 0x04, 0x00] + [UInt8](repeating: 0x1B, count: 16)
        for handle in UInt16(0)..<0x0F00 where handle != 0x0EDC {
            _ = decoder.decode(Rec.acl(.received, handle: handle, pb: 0b10, data))
        }
        #expect(decoder.reassembler.states.count == 0x0EFF)
        #expect(decoder.reassembler.pendingBytes == 0x0EFF * 20)
        // Reserved capacity follows the bytes held, not the 65,539 announced.
        let capacity = decoder.reassembler.states.values.map { $0.pending.bytes.capacity }.max() ?? 0
        #expect(capacity < 1024)
        let problems = decoder.finish()
        #expect(problems.filter { $0.reason.hasPrefix("incomplete L2CAP PDU discarded (end of capture)") }.count == 0x0EFF)
    }

    /// 300 starts of 60,000 bytes each (18 MB) exceed the 16 MiB budget: the oldest are
    /// discarded with a problem saying why, the newest stay pending.
    @Test func oldestAreDiscardedPastTheBudget() {
        var decoder = PacketDecoder()
        let data = [0xFF, 0xFF, 0x04, 0x00] + [UInt8](repeating: 0x1B, count: 60_000)
        var discarded = 0
        for handle in UInt16(0)..<300 {
            let p = decoder.decode(Rec.acl(.received, handle: handle, pb: 0b10, data))
            discarded += p.problems.filter { $0.reason.contains("MiB of L2CAP PDUs pending at once") }.count
        }
        let held = decoder.reassembler.pendingBytes
        #expect(held <= ACLReassembler.pendingBudget)
        #expect(held == decoder.reassembler.states.count * 60_004)
        #expect(discarded == 300 - decoder.reassembler.states.count)
        #expect(discarded > 0)
        let kept = decoder.reassembler.states.keys.map(\.handle)
        #expect(kept.contains(299) && !kept.contains(0))
    }
}

/// Continuations appended in place (`ACLReassembler.add`'s common case) count in the budget as
/// those taken out and put back did.
@Suite("Reassembly memory budget, continuations")
struct ReassemblyContinuationBudgetTests {
    /// 300 PDUs of 65,539 bytes (L2CAP length FF FF, CID 0x0004) started with 20 bytes each, then
    /// continued 10,000 bytes at a time six times, round robin, none completing (60,020 bytes): past 16 MiB the oldest are discarded with a problem, never
    /// the one being continued, and the bytes held are those of the PDUs left.
    @Test func continuationsPastTheBudgetDiscardTheOldest() {
        var decoder = PacketDecoder()
        let start = [0xFF, 0xFF, 0x04, 0x00] + [UInt8](repeating: 0x1B, count: 16)
        let more = [UInt8](repeating: 0x2C, count: 10_000)
        var discarded = 0
        for handle in UInt16(0)..<300 {
            _ = decoder.decode(Rec.acl(.received, handle: handle, pb: 0b10, start))
        }
        for _ in 0..<6 {
            for handle in UInt16(0)..<300 {
                let p = decoder.decode(Rec.acl(.received, handle: handle, pb: 0b01, more))
                discarded += p.problems.filter { $0.reason.contains("MiB of L2CAP PDUs pending at once") }.count
                if !p.problems.contains(where: { $0.reason.hasPrefix("continuation fragment") }) {
                    #expect(decoder.reassembler.states[ACLReassembler.Key(handle: handle, direction: .received)] != nil)
                }
            }
        }
        let held = decoder.reassembler.pendingBytes
        #expect(held <= ACLReassembler.pendingBudget)
        #expect(held == decoder.reassembler.states.values.reduce(0) { $0 + $1.pending.bytes.count })
        #expect(discarded == 300 - decoder.reassembler.states.count)
        #expect(discarded > 0)
    }
}
