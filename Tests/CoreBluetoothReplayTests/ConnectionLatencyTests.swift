import BLEReplay
import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// `setDesiredConnectionLatency(_:for:)` (Docs/peripheral.md "Connection latency"): the system
/// asks the connected central for the class's connection interval (an L2CAP Connection Parameter
/// Update Request, Core v5.4 Vol 3 Part A 4.20), the central's controller moves the link at the
/// instant (Vol 6 Part B 5.1.1), and the app's notifications and `peripheralManagerIsReady` then
/// follow the new interval. A central whose recording shows it refusing an update refuses.
@Suite struct ConnectionLatencyTests {
    /// A peripheral app that notifies FFC1 (service FFC0: 0x000A service, 0x000B declaration,
    /// 0x000C value, 0x000D the system's CCCD) as fast as the transmit queue takes it: on
    /// subscription and at every isReady it sends until `updateValue` returns false. It keeps the
    /// subscribed central and the virtual instant (µs) of every isReady.
    final class Streamer: NSObject, CBPeripheralManagerDelegate {
        let now: () -> Int64
        var manager: CBPeripheralManager!
        let characteristic = CBMutableCharacteristic(type: CBUUID(string: "FFC1"), properties: [.notify], value: nil, permissions: [.readable])
        var central: CBCentral?
        var readyTimes: [Int64] = []
        var sent = 0

        init(now: @escaping () -> Int64) {
            self.now = now
            super.init()
            manager = CBPeripheralManager(delegate: self, queue: nil)
        }

        func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
            peripheral.publishAndAdvertiseFFC0(with: characteristic)
        }

        func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic) {
            self.central = central
            stream()
        }

        func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {
            readyTimes.append(now())
            stream()
        }

        func stream() {
            while manager.updateValue(Data([UInt8(truncatingIfNeeded: sent)]), for: characteristic, onSubscribedCentrals: nil) { sent += 1 }
        }
    }

    static let handle: UInt16 = 0x41

    /// A remote central (LE Connection Complete role 0x01, Core v5.4 Vol 4 Part E 7.7.65.1;
    /// interval 30 ms, latency 0, supervision timeout 4 s) that connects at 100 ms, turns FFC1's
    /// notifications on at 200 ms (Write Request 12 | 0D 00 | 01 00, Vol 3 Part G 3.3.3.3; the
    /// recorded phone's Write Response 13) and disconnects at 4 s (0x13). `linkEvents` adds LE
    /// Meta events (subevent first) at their times in ms.
    static func capture(linkEvents: [(ms: Int64, event: [UInt8])] = []) throws -> String {
        var c = SpecCapture()
        c.connectionComplete(100, handle: handle, role: 1, peer: [0x21, 0x43, 0x65, 0x87, 0xA9, 0x5C])
        c.served(200, handle: handle, [0x12, 0x0D, 0x00, 0x01, 0x00], [0x13])
        for e in linkEvents { c.evt(e.ms, 0x3E, e.event) }
        c.disconnectionComplete(4_000, handle: handle, reason: 0x13)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("latency-\(UUID().uuidString).btsnoop").path
        try c.write(to: path)
        return path
    }

    /// What the local host and controller exchanged about the link's parameters, in the replay's
    /// trace, with virtual times (µs): L2CAP LE signalling (CID 0x0005) as sent or received, and
    /// LE Connection Update Complete events (LE Meta 0x3E, subevent 0x03) with their status.
    struct ParameterTrace: Equatable {
        var signalling: [(time: Int64, sent: Bool, bytes: [UInt8])] = []
        var updates: [(time: Int64, status: UInt8, interval: UInt16)] = []

        static func == (a: ParameterTrace, b: ParameterTrace) -> Bool {
            a.signalling.map { "\($0.time) \($0.sent) \($0.bytes)" } == b.signalling.map { "\($0.time) \($0.sent) \($0.bytes)" }
                && a.updates.map { "\($0)" } == b.updates.map { "\($0)" }
        }
    }

    static func parameterTrace(_ replay: CBReplay) -> ParameterTrace {
        var t = ParameterTrace()
        for r in replay.world.trace.records {
            let p = r.payload
            let time = r.timestamp - replay.world.configuration.epoch
            // ACL: handle+flags (2), length (2), L2CAP length (2), CID (2), then the signalling command.
            if r.kind == .acl, p.count >= 12, p[6] == 0x05, p[7] == 0x00 { t.signalling.append((time, r.direction == .sent, Array(p[8...]))) }
            // LE Connection Update Complete: 3E, length, 03, status, handle (2), interval (2), latency (2), timeout (2).
            if r.kind == .event, p.count >= 12, p[0] == 0x3E, p[2] == 0x03 { t.updates.append((time, p[3], UInt16(p[6]) | UInt16(p[7]) << 8)) }
        }
        return t
    }

    /// Gaps between successive instants.
    static func gaps(_ times: [Int64]) -> [Int64] { zip(times.dropFirst(), times).map { $0 - $1 } }

    /// A replay of `path` with the streamer as the app, run for `seconds`.
    static func streaming(_ path: String, for seconds: TimeInterval) throws -> (replay: CBReplay, app: Streamer) {
        let replay = try CBReplay(capture: path)
        let app = replay.activate { Streamer(now: { replay.world.now }) }
        replay.run(for: seconds)
        return (replay, app)
    }

    /// Runs the streamer for 1 s, asks for `.low` then, and runs 1.5 s more.
    static func runLow(_ path: String) throws -> (replay: CBReplay, app: Streamer, askedAt: Int64) {
        let (replay, app) = try streaming(path, for: 1)
        let askedAt = replay.world.now
        if let central = app.central { app.manager.setDesiredConnectionLatency(.low, for: central) }
        replay.run(for: 1.5)
        return (replay, app, askedAt)
    }

    /// Before the request, isReady comes at every 30 ms connection event; the request goes out
    /// at once (L2CAP Connection Parameter Update Request for 15 ms, the link's latency 0 and
    /// 4 s timeout) and is on air at the next connection event, the central accepts at the event
    /// after that, and the link moves to 15 ms at the instant, 6 connection events later (Vol 6
    /// Part B 5.1.1): the LE Connection Update Complete comes then, and from then on isReady comes
    /// every 15 ms.
    @Test func notificationsFollowTheNewIntervalAfterTheInstant() throws {
        let path = try Self.capture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (replay, app, askedAt) = try Self.runLow(path)
        let trace = Self.parameterTrace(replay)
        let before = app.readyTimes.filter { $0 <= askedAt }
        #expect(before.count > 10, "\(app.readyTimes)")
        #expect(Set(Self.gaps(before)) == [30_000], "\(before)")
        let update = try #require(trace.updates.first, "no LE Connection Update Complete in the trace")
        #expect(trace.updates.count == 1)
        #expect(update.status == 0 && update.interval == 12, "\(update)")
        // The first connection event after the request carries it; the central answers at the next.
        let firstEvent = try #require(app.readyTimes.first { $0 > askedAt })
        #expect(firstEvent - askedAt <= 30_000)
        #expect(update.time == firstEvent + 30_000 + 6 * 30_000, "update at \(update.time), first event after the request at \(firstEvent)")
        // Request 12 | id 01 | length 08 00 | min 0C 00 | max 0C 00 | latency 00 00 | timeout 90 01 (4 s);
        // response 13 | id 01 | length 02 00 | result 00 00 (accepted).
        #expect(trace.signalling.map(\.bytes) == [[0x12, 0x01, 0x08, 0x00, 0x0C, 0x00, 0x0C, 0x00, 0x00, 0x00, 0x90, 0x01],
                                                  [0x13, 0x01, 0x02, 0x00, 0x00, 0x00]], "\(trace.signalling)")
        #expect(trace.signalling.map(\.time) == [askedAt, firstEvent + 30_000])
        #expect(trace.signalling.map(\.sent) == [true, false])
        let after = app.readyTimes.filter { $0 >= update.time }
        #expect(after.count > 50, "\(app.readyTimes)")
        // The instant is the first connection event on the new interval.
        #expect(after.first == update.time)
        #expect(Set(Self.gaps(after)) == [15_000], "\(after)")
        #expect(replay.diagnostics.isEmpty, "\(replay.diagnostics)")
    }

    /// The same run twice gives the same virtual instants: isReady, the signalling and the update.
    @Test func theSameRunTwiceGivesTheSameInstants() throws {
        let path = try Self.capture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try Self.runLow(path)
        let second = try Self.runLow(path)
        #expect(!Self.parameterTrace(first.replay).updates.isEmpty)
        #expect(first.app.readyTimes == second.app.readyTimes)
        #expect(Self.parameterTrace(first.replay) == Self.parameterTrace(second.replay))
        #expect(first.replay.world.trace.records.map(\.timestamp) == second.replay.world.trace.records.map(\.timestamp))
    }

    /// A central that is no longer connected: nothing is sent, the link's gone, and the call is
    /// noted as an API misuse, as iOS logs one.
    @Test func aCentralThatIsNotConnectedGetsNothingAndADiagnostic() throws {
        let path = try Self.capture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (replay, app) = try Self.streaming(path, for: 5)
        let central = try #require(app.central)
        #expect(replay.diagnostics.isEmpty, "\(replay.diagnostics)")
        app.manager.setDesiredConnectionLatency(.low, for: central)
        replay.run(for: 1)
        let trace = Self.parameterTrace(replay)
        #expect(trace.signalling.isEmpty && trace.updates.isEmpty)
        let misuse = replay.diagnostics.filter { $0.kind == .apiMisuse }
        #expect(misuse.count == 1, "\(replay.diagnostics)")
        #expect(misuse.first?.message.contains("setDesiredConnectionLatency(_:for:)") == true, "\(misuse)")
        #expect(misuse.first?.message.contains("not connected") == true, "\(misuse)")
    }

    /// A central whose recording shows it refusing an update (an LE Connection Update Complete
    /// with 0x3B Unacceptable Connection Parameters, at 3 s) refuses the app's request: the
    /// L2CAP response says rejected (result 0x0001), the link keeps 30 ms, and isReady keeps
    /// coming every 30 ms. The recorded refusal is still written at its recorded time.
    @Test func aCentralRecordedRefusingAnUpdateRefuses() throws {
        // 03 | 3B | 41 00 | 0C 00 (15 ms) | 00 00 | 90 01 (4 s)
        let path = try Self.capture(linkEvents: [(3_000, [0x03, 0x3B, 0x41, 0x00, 0x0C, 0x00, 0x00, 0x00, 0x90, 0x01])])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (replay, app, askedAt) = try Self.runLow(path)
        let trace = Self.parameterTrace(replay)
        #expect(trace.signalling.map(\.bytes) == [[0x12, 0x01, 0x08, 0x00, 0x0C, 0x00, 0x0C, 0x00, 0x00, 0x00, 0x90, 0x01],
                                                  [0x13, 0x01, 0x02, 0x00, 0x01, 0x00]], "\(trace.signalling)")
        #expect(!trace.updates.contains { $0.status == 0 }, "\(trace.updates)")
        let after = app.readyTimes.filter { $0 > askedAt }
        #expect(after.count > 30)
        #expect(Set(Self.gaps(after)) == [30_000], "\(after)")
    }

    /// One procedure at a time: `.high` asked while the `.low` update is under way goes once that
    /// one's instant has passed (120 ms from its own instant on), and `.medium` asked first, the
    /// interval the link already has, sends nothing.
    @Test func aCallWhileAnUpdateIsUnderWayWaitsForIt() throws {
        let path = try Self.capture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (replay, app) = try Self.streaming(path, for: 1)
        let central = try #require(app.central)
        app.manager.setDesiredConnectionLatency(.medium, for: central)
        #expect(Self.parameterTrace(replay).signalling.isEmpty)
        app.manager.setDesiredConnectionLatency(.low, for: central)
        app.manager.setDesiredConnectionLatency(.high, for: central)
        replay.run(for: 2)
        let trace = Self.parameterTrace(replay)
        #expect(trace.updates.map(\.interval) == [12, 96], "\(trace.updates)")
        #expect(trace.signalling.map { $0.bytes[0] } == [0x12, 0x13, 0x12, 0x13], "\(trace.signalling)")
        guard trace.updates.count == 2, trace.signalling.count == 4 else { return }
        #expect(trace.signalling[2].time == trace.updates[0].time)
        let after = app.readyTimes.filter { $0 >= trace.updates[1].time }
        #expect(after.count > 5 && Set(Self.gaps(after)) == [120_000], "\(after)")
    }

    /// The recorded central's own update (accepted, to 45 ms, at 1.9 s) keeps its recorded time
    /// and wins over the app's from then on: 30 ms, then 15 ms after the instant, then 45 ms.
    @Test func aLaterRecordedUpdateWins() throws {
        // 03 | 00 | 41 00 | 24 00 (45 ms) | 00 00 | 90 01 (4 s)
        let path = try Self.capture(linkEvents: [(1_900, [0x03, 0x00, 0x41, 0x00, 0x24, 0x00, 0x00, 0x00, 0x90, 0x01])])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (replay, app, _) = try Self.runLow(path)
        let updates = Self.parameterTrace(replay).updates
        #expect(updates.map(\.interval) == [12, 36], "\(updates)")
        guard updates.count == 2 else { return }
        let between = app.readyTimes.filter { $0 > updates[0].time && $0 <= updates[1].time }
        #expect(!between.isEmpty && Set(Self.gaps(between)) == [15_000], "\(between)")
        let after = app.readyTimes.filter { $0 >= updates[1].time }
        #expect(after.count > 5 && Set(Self.gaps(after)) == [45_000], "\(after)")
    }
}
