import BLECore
import Testing
@testable import BLEDecode

/// How a link found in progress learns its transport (`TransportClues`, Core v5.4 Vol 4 Part E
/// 7.1-7.8, 7.7; Vol 3 Part A 2.1), and that a link a Connection Complete opened never changes.
@Suite struct TransportClueTests {
    func learned(_ p: DecodedPacket) -> [(Transport, String)] {
        p.events.compactMap { if case .transportLearned(_, let t, let clue) = $0 { (t, clue) } else { nil } }
    }

    /// A dynamic CID (0x0040, LE credit-based channel and RFCOMM alike) says nothing; Mode Change
    /// (event 0x14: Status, Connection_Handle, Current_Mode, Interval) exists on BR/EDR only.
    @Test func modeChangeMakesALinkFoundInProgressBREDR() {
        var d = PacketDecoder()
        let first = d.decode(Rec.l2cap(.received, handle: 0x000B, cid: 0x0040, [0x0B, 0xEF, 0x01, 0x99]))
        #expect(learned(first).isEmpty)
        let mode = d.decode(Rec.evt([0x14, 0x06, 0x00, 0x0B, 0x00, 0x02, 0x20, 0x03]))
        #expect(learned(mode).map(\.0) == [.bredr] && learned(mode).map(\.1) == ["Mode Change"])
        #expect(d.tracker.connection(0x000B)?.transport == .bredr)
        // Known now: a second clue adds nothing.
        #expect(learned(d.decode(Rec.evt([0x14, 0x06, 0x00, 0x0B, 0x00, 0x00, 0x00, 0x00]))).isEmpty)
    }

    /// ATT on the LE fixed channel 0x0004 settles the guess as LE, once; Exit Sniff Mode (command
    /// 0x0804) after it is BR/EDR-only and wins: LE fixed channels and sniff cannot share a link,
    /// and sniff is the one LE has no form of.
    @Test func leChannelSettlesTheGuessAndABREDROnlyCommandOverridesIt() {
        var d = PacketDecoder()
        let att = d.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0004, [0x1B, 0x21, 0x00, 0x01]))
        #expect(learned(att).map(\.0) == [.le] && learned(att).map(\.1) == ["L2CAP CID 0x0004"])
        #expect(learned(d.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0004, [0x1B, 0x21, 0x00, 0x02]))).isEmpty)
        let sniff = d.decode(Rec.cmd([0x04, 0x08, 0x02, 0x40, 0x00]))
        #expect(learned(sniff).map(\.0) == [.bredr])
    }

    /// A link LE Connection Complete opened is LE: a BR/EDR-only event naming its handle (a
    /// confused controller, a damaged capture) does not make it BR/EDR.
    @Test func connectionCompleteIsNeverOverridden() {
        var d = PacketDecoder()
        _ = d.decode(Rec.leConnectionComplete(handle: 0x0041))
        #expect(learned(d.decode(Rec.evt([0x14, 0x06, 0x00, 0x41, 0x00, 0x02, 0x20, 0x03]))).isEmpty)
        #expect(d.tracker.connection(0x0041)?.transport == .le)
    }
}
