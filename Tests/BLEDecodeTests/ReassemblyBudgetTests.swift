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
