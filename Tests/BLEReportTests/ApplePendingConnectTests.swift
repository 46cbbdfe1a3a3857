import TestSupport
import Foundation
import Testing
import BLEAnalysis
import BLETimeline

/// An iPhone trace that ends while a connect is pending. iOS never times out a connect (Apple's
/// connect(_:options:) documentation; REFERENCE.md "Timing facts"), so the app is still waiting:
/// the diagnosis says so (`connect-pending`) instead of saying nothing. A connect answered,
/// cancelled (LE Create Connection Cancel, Core v5.4 Vol 4 Part E 7.8.13) or ended by HCI Reset
/// (7.3.2) is not pending.
@Suite("iOS: a connect pending at the end of the trace")
struct ApplePendingConnectTests {
    static let sensor: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]

    /// LE Create Connection (7.8.12): scan interval/window 0x0060/0x0030, filter policy 0 (the
    /// peer named), peer address type 1 (random), the peer, own address type 0, interval
    /// 24-40, latency 0, supervision timeout 400, CE length 0-0.
    static func create(_ c: inout SpecCapture, at ms: Int64) {
        c.cmd(ms, 0x200D, [0x60, 0x00, 0x30, 0x00, 0x00, 0x01] + sensor.reversed()
                + [0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x90, 0x01, 0x00, 0x00, 0x00, 0x00])
        c.commandStatus(ms + 1, 0x200D)
    }

    func findings(_ c: SpecCapture) throws -> [Finding] {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let file = dir + "/pending.pklg"
        try c.writePacketLogger(to: file)
        let store = try Support.timeline([file], at: dir + "/t.db")
        return try DiagnosisLoader.load(store).flatMap(\.findings).map(\.finding)
    }

    @Test func pendingConnectIsReported() throws {
        var c = SpecCapture()
        Self.create(&c, at: 0)
        c.evt(60_000, 0x0E, [0x01, 0x01, 0x10, 0x00] + [UInt8](repeating: 0, count: 8))   // an unrelated Command Complete at 60 s
        let pending = try #require(try findings(c).first { $0.code == "connect-pending" })
        #expect(pending.title == "Connection attempt to C4:7A:3B:12:9E:51 still pending when the capture ended, 60.000 s after it")
        #expect(pending.evidence == [1])
        #expect(pending.cbError == nil)
    }

    @Test func answeredOrCancelledConnectIsNotPending() throws {
        var answered = SpecCapture()
        Self.create(&answered, at: 0)
        answered.connectionComplete(500, handle: 0x40, role: 0, peer: Self.sensor)
        #expect(!(try findings(answered)).contains { $0.code == "connect-pending" })
        var cancelled = SpecCapture()
        Self.create(&cancelled, at: 0)
        cancelled.cmd(30_000, 0x200E, [])
        cancelled.evt(30_001, 0x0E, [0x01, 0x0E, 0x20, 0x00])
        #expect(!(try findings(cancelled)).contains { $0.code == "connect-pending" })
        var reset = SpecCapture()
        Self.create(&reset, at: 0)
        reset.cmd(30_000, 0x0C03, [])
        reset.evt(30_001, 0x0E, [0x01, 0x03, 0x0C, 0x00])
        #expect(!(try findings(reset)).contains { $0.code == "connect-pending" })
    }
}
