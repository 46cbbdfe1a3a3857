import BLECore
import Foundation
import TestSupport
import Testing
@testable import BLEReplay

/// Links whose recorded end is not what their last HCI Disconnect or their open handle suggests,
/// replayed as `diagnose` reads them:
/// - a Disconnect the controller did not carry out (refused in its Command Status, Core v5.4
///   Vol 4 Part E 7.7.15, with none accepted before it; or accepted and then reported failed by a
///   Disconnection Complete with a non-zero status, 7.7.5: the link stays up) is no local
///   disconnect: the recorded central does not end the link there, and the link's later loss
///   (0x08) happens again at its recorded instant;
/// - a link whose handle a later Connection Complete gave to a new link, its own Disconnection
///   Complete not in the capture (7.7.65.1: a handle names one link while it exists), ended by
///   then with no reason in the capture: compared up to its last packet, not "still connected".
@Suite struct UnrecordedEndingReplayTests {
    static let peer: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]
    static let peer2: [UInt8] = [0xD1, 0x22, 0x33, 0x44, 0x55, 0x66]

    /// Records in ms. Link 1 (0x0040): Disconnect refused (0x0C), lost 0x08 at 5000. Link 2
    /// (0x0041): Disconnect accepted, its completion failed (0x0C), lost 0x08 at 12000. Link 3
    /// (0x0042): accepted, a second refused, ended 0x16 at 13160.
    static func failedDisconnects() -> SpecCapture {
        var c = SpecCapture()
        c.connectionComplete(0, handle: 0x40, role: 0, peer: peer)
        c.att(50, handle: 0x40, [0x0A, 0x03, 0x00], received: false)
        c.att(80, handle: 0x40, [0x0B, 0x41], received: true)
        c.cmd(100, 0x0406, c.le16(0x40) + [0x13])
        c.commandStatus(101, 0x0406, status: 0x0C)
        c.disconnectionComplete(5000, handle: 0x40, reason: 0x08)
        c.connectionComplete(6000, handle: 0x41, role: 0, peer: peer)
        c.cmd(6100, 0x0406, c.le16(0x41) + [0x13])
        c.commandStatus(6101, 0x0406)
        c.evt(6160, 0x05, [0x0C, 0x41, 0x00, 0x13])
        c.disconnectionComplete(12000, handle: 0x41, reason: 0x08)
        c.connectionComplete(13000, handle: 0x42, role: 0, peer: peer)
        c.cmd(13100, 0x0406, c.le16(0x42) + [0x13])
        c.commandStatus(13101, 0x0406)
        c.cmd(13120, 0x0406, c.le16(0x42) + [0x05])
        c.commandStatus(13121, 0x0406, status: 0x0C)
        c.disconnectionComplete(13160, handle: 0x42, reason: 0x16)
        return c
    }

    static func reusedHandle() -> SpecCapture {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: peer)                 // 1
        c.att(200, handle: 0x40, [0x0A, 0x03, 0x00], received: false)               // 2
        c.att(230, handle: 0x40, [0x0B, 0x41], received: true)                      // 3
        c.connectionComplete(9000, handle: 0x40, role: 0, peer: peer2)               // 4: the old link's end not in the capture
        c.att(9100, handle: 0x40, [0x0A, 0x05, 0x00], received: false)              // 5
        c.att(9130, handle: 0x40, [0x0B, 0x42], received: true)                     // 6
        c.disconnectionComplete(9500, handle: 0x40, reason: 0x13)                    // 7
        return c
    }

    @Test func aDisconnectTheControllerDidNotCarryOutIsNotReplayedAsOne() throws {
        try TestCaptures.writtenRoundTrip(Self.failedDisconnects(), name: "failed-disconnect") { _, _, session, result in
            #expect(session.connections.map { $0.localDisconnect != nil } == [false, false, true])
            #expect(result.verdicts.map(\.reproduced) == [true, true, true])
            #expect(result.verdicts[0].recordedEnd == "disconnected 0x08 Connection Timeout at +5.000000 s into conn 1")
            #expect(result.verdicts[0].simulatedEnd == result.verdicts[0].recordedEnd)
            #expect(result.verdicts[1].recordedEnd == "disconnected 0x08 Connection Timeout at +6.000000 s into conn 2")
            #expect(result.verdicts[1].simulatedEnd == result.verdicts[1].recordedEnd)
            // The accepted Disconnect (0x13 at 100 ms into link 3) is the one replayed, not the refused 0x05.
            #expect(session.connections[2].localDisconnect?.reason == 0x13)
            #expect(session.connections[2].localDisconnect?.time == 100_000)
        }
    }

    @Test func aLinkWhoseHandleWasGivenToANewLinkIsComparedUpToItsLastPacket() throws {
        try TestCaptures.writtenRoundTrip(Self.reusedHandle(), name: "reused-handle") { _, _, session, result in
            #expect(session.connections.count == 2)
            #expect(session.connections[0].endNotShown)
            #expect(session.connections[0].end == 130_000)   // its last packet, 3, at 230 ms; the link began at 100 ms
            #expect(result.verdicts.map(\.reproduced) == [true, true])
            let old = result.verdicts[0]
            #expect(old.comparedUpTo == 3)
            #expect(!old.recordedEnd.contains("still connected"), "\(old.recordedEnd)")
            #expect(old.recordedEnd.contains("packet 4"), "\(old.recordedEnd)")
            #expect(result.verdicts[1].recordedEnd == "disconnected 0x13 Remote User Terminated Connection at +0.500000 s into conn 2")
        }
    }
}
