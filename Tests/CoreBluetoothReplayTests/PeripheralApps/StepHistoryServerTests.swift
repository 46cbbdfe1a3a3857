import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// StepHistoryServer against a recorded central built from the spec (role 0x01, interval 30 ms):
/// it exchanges the MTU (ATT MTU 185, Core v5.4 Vol 3 Part F 3.4.2), writes the control point
/// (0x000F) before it turned its indications on and is refused with 0xFD, turns on the records'
/// notifications (CCCD 0x000D) and the control point's indications (0x0010), asks for every
/// record (op code 0x01) and confirms the result's indication (Vol 3 Part F 3.4.7.3), asks for an
/// op code the app does not know (0x07: result 0x02), and disconnects (0x13).
@Suite struct StepHistoryServerTests {
    static func capture() throws -> String {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x41, role: 1, peer: [0x5A, 0x44, 0x11, 0x22, 0x33, 0x44])
        func served(_ ms: Int64, _ req: [UInt8], _ rsp: [UInt8]?) { c.served(ms, handle: 0x41, req, rsp) }
        served(150, [0x02, 0xF7, 0x00], [0x03, 0xB9, 0x00])
        served(200, [0x12, 0x0F, 0x00, 0x01], [0x01, 0x12, 0x0F, 0x00, 0xFD])
        served(250, [0x12, 0x0D, 0x00, 0x01, 0x00], [0x13])
        served(300, [0x12, 0x10, 0x00, 0x02, 0x00], [0x13])
        served(350, [0x12, 0x0F, 0x00, 0x01], [0x13])
        for r in StepHistoryServer.records { c.att(352, handle: 0x41, [0x1B, 0x0C, 0x00] + Array(r), received: false) }
        c.att(430, handle: 0x41, [0x1D, 0x0F, 0x00, 0x80, 0x01, 0x01], received: false)
        c.att(460, handle: 0x41, [0x1E], received: true)
        served(520, [0x12, 0x0F, 0x00, 0x07], [0x13])
        c.att(522, handle: 0x41, [0x1D, 0x0F, 0x00, 0x80, 0x07, 0x02], received: false)
        c.att(550, handle: 0x41, [0x1E], received: true)
        c.disconnectionComplete(2_000, handle: 0x41, reason: 0x13)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("periph-steps-\(UUID().uuidString).btsnoop").path
        try c.write(to: path)
        return path
    }

    static func run() throws -> (CBReplay, StepHistoryServer) {
        let path = try capture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { StepHistoryServer(now: { replay.clock.now }) }
        replay.run(for: 3)
        return (replay, app)
    }

    /// The replay time of a log line.
    static func time(_ line: String) -> Double { Double(line.prefix { $0 != " " }) ?? -1 }

    /// When the link came up on the replay's clock: the refused control-point write came 100 ms
    /// after the recorded connection.
    static func linkUp(_ app: StepHistoryServer) -> Double {
        (app.log.first { $0.hasSuffix("control point refused") }.map(time) ?? -1) - 0.100
    }

    /// The ATT PDUs the app's server sent, in order, with their trace timestamps.
    static func sent(_ replay: CBReplay) -> [(opcode: UInt8, at: Int64)] {
        replay.world.trace.records.compactMap { r in
            let p = r.payload
            guard r.kind == .acl, r.direction == .sent, p.count > 8, p[6] == 0x04, p[7] == 0x00 else { return nil }
            return (p[8], r.timestamp)
        }
    }

    @Test func everyAnswerMatchesTheRecordedServer() throws {
        let (replay, app) = try Self.run()
        #expect(replay.localServerDriver.divergences.isEmpty, "\(replay.localServerDriver.divergences)")
        #expect(replay.localServerDriver.servers.first?.compared == 6)
        #expect(app.sent.count == StepHistoryServer.records.count + 2)
        #expect(app.log.contains { $0.hasSuffix("control point refused") })
    }

    /// The app answers the control-point write (`respond(to:withResult:)`) before it sends the
    /// records, so its Write Response is on the bearer first, and ATT's PDUs go out in the order
    /// queued (Core v5.4 Vol 3 Part F 3.3.2): the Write Response at the recorded answer's instant
    /// (352 ms), the first records right behind it at that instant, the result's indication last.
    @Test func theWriteResponseGoesBeforeTheRecordsTheAppSendsAfterAnsweringIt() throws {
        let (replay, _) = try Self.run()
        let sent = Self.sent(replay)
        let expected: [UInt8] = [0x03, 0x01, 0x13, 0x13, 0x13] + Array(repeating: 0x1B, count: StepHistoryServer.records.count)
            + [0x1D, 0x13, 0x1D]
        #expect(sent.map(\.opcode) == expected, "\(sent.map { String(format: "%02X", $0.opcode) })")
        guard sent.count > 5 else { return }
        #expect(sent[5].at == sent[4].at, "the first record at \(sent[5].at), the Write Response at \(sent[4].at)")
    }

    /// Twenty records are more than the controller's free buffers (8 by default, less the Write
    /// Response's): `updateValue` returns false, and `peripheralManagerIsReady(toUpdateSubscribers:)`
    /// comes once for each false, at a connection event of the link (its start + k x 30 ms),
    /// when the controller returns buffers (Docs/peripheral.md "Notifying").
    @Test func theRecordsArePacedByFalseReturnsAndIsReady() throws {
        let (_, app) = try Self.run()
        let up = Self.linkUp(app)
        var owed = false, fulls = 0
        for line in app.log {
            if line.hasSuffix(" full") {
                #expect(!owed, "\(app.log)")
                owed = true
                fulls += 1
            } else if line.hasSuffix(" ready") {
                #expect(owed, "\(app.log)")
                owed = false
                let t = Self.time(line)
                let k = ((t - up) / 0.03).rounded()
                #expect(k > 0 && abs(t - (up + k * 0.03)) < 0.0005, "isReady at \(t), the link up at \(up)")
            }
        }
        #expect(fulls >= 2 && !owed, "\(app.log)")
    }

    /// The central disconnects: each of its subscriptions ends with a didUnsubscribeFrom, at the
    /// Disconnection Complete (Docs/peripheral.md "Subscriptions").
    @Test func theCentralsDisconnectEndsBothSubscriptions() throws {
        let (_, app) = try Self.run()
        let ends = app.log.filter { $0.contains("unsubscribed") }
        #expect(ends.map { $0.drop { $0 != " " } }.sorted() == [" unsubscribed control point", " unsubscribed records"], "\(app.log)")
        // The recorded Disconnection Complete, 1.9 s after the connection.
        #expect(ends.allSatisfy { abs(Self.time($0) - (Self.linkUp(app) + 1.9)) < 0.0005 }, "\(app.log)")
    }
}
