import BLECore
import BLEReplay
import CoreBluetoothReplay
import Foundation
import Testing

/// The example app (Examples/HeartRateCentral, compiled here unchanged) against the sensor that
/// drops the link with 0x08 (Captures/heart-rate-supervision-timeout.btsnoop).
@Suite struct HeartRateCentralTests {
    static let capture = Samples.capture("heart-rate-supervision-timeout.btsnoop")

    /// Notification values of a recorded connection, as heart rates.
    static func recordedHeartRates(_ c: RecordedConnection) -> [Int] {
        c.pdus.filter { !$0.fromCentral && $0.bytes.first == 0x1B && $0.bytes.count >= 5 }.map { Int($0.bytes[4]) }
    }

    @Test func seesConnectionTimeoutReconnectsAfterOneSecondAndResumesNotifications() throws {
        let replay = try CBReplay(capture: Self.capture)
        let app = replay.activate { HeartRateCentral(clock: ReplayTimers(clock: replay.clock)) }
        replay.run(for: 120)

        // The link loss reaches the app as CBError.connectionTimeout (6), from HCI reason 0x08.
        let disconnects = app.events.compactMap { e -> (TimeInterval, Error?)? in
            if case .disconnected(let t, let error) = e { return (t, error) } else { return nil }
        }
        let (lostAt, error) = try #require(disconnects.first)
        let cbError = try #require(error as? CBError)
        #expect(cbError.code == .connectionTimeout)
        #expect(cbError.code.rawValue == 6)
        #expect(cbError.hciReason == 0x08)
        #expect((error! as NSError).domain == CBError.errorDomain && (error! as NSError).code == 6)
        #expect(disconnects.count == 1)

        // It happened where the recording puts it: silent a fixed delay after the subscription
        // (CCCD write), then one supervision timeout.
        let recorded = try #require(replay.session.connections.first { $0.isEstablished })
        let recordedWrite = try #require(recorded.pdus.first { $0.fromCentral && $0.bytes.first == 0x12 && $0.bytes.count == 5 && $0.bytes[3] == 1 })
        let recordedGap = try #require(recorded.disconnect).time - recordedWrite.time
        let link = try #require(replay.world.host.allLinks.first)
        let simulatedWrite = try #require(link.log.first { $0.fromCentral && $0.bytes == recordedWrite.bytes })
        let simulatedEnd = try #require(link.endedAt)
        #expect(simulatedEnd - (link.establishedAt + simulatedWrite.time) == recordedGap)
        #expect(lostAt == TimeInterval(simulatedEnd) / 1_000_000)

        // Backoff: the first reconnect attempt comes exactly `initial` (1 s) after the loss.
        let attempts = app.events.compactMap { e -> TimeInterval? in if case .reconnecting(let t) = e { return t } else { return nil } }
        #expect(attempts.count == 1)
        #expect(attempts.first.map { $0 - lostAt } == 1.0)

        // Notifications resume on the second connection, with the values the sensor sent then.
        let connects = app.events.compactMap { e -> TimeInterval? in if case .connected(let t) = e { return t } else { return nil } }
        #expect(connects.count == 2)
        let after = app.events.compactMap { e -> Int? in
            if case .heartRate(let t, let bpm) = e, t > connects[1] { return bpm } else { return nil }
        }
        let second = try #require(replay.session.connections.filter(\.isEstablished).dropFirst().first)
        #expect(!after.isEmpty)
        #expect(after == Self.recordedHeartRates(second))
        let before = app.heartRates.prefix(app.heartRates.count - after.count)
        #expect(Array(before) == Self.recordedHeartRates(recorded))
    }

    /// A fault on every subscription keeps dropping the link: the app backs off 1, 2, 4, 8, 16,
    /// then 30 s (the cap), each loss one supervision timeout (4 s, recorded) after the write.
    @Test func backoffGrowsExponentiallyUpToTheCap() throws {
        var c = ReplayConfiguration()
        c.faults = [try FaultSpec(parsing: "disconnect:0x08@after=write-request:0x000F")]
        let replay = try CBReplay(capture: Self.capture, configuration: c)
        let app = replay.activate { HeartRateCentral(clock: ReplayTimers(clock: replay.clock)) }
        replay.run(for: 150)
        let delays = app.events.compactMap { e -> TimeInterval? in if case .reconnectScheduled(_, let d) = e { return d } else { return nil } }
        #expect(Array(delays.prefix(7)) == [1, 2, 4, 8, 16, 30, 30])
        var lastLoss: TimeInterval?
        for e in app.events {
            switch e {
            case .disconnected(let t, let error):
                #expect((error as? CBError)?.code == .connectionTimeout)
                lastLoss = t
            case .reconnecting(let t):
                let expected = delays[app.events.filter { if case .reconnecting = $0 { return true } else { return false } }
                    .firstIndex { $0.time == t }!]
                #expect(lastLoss.map { ((t - $0) * 1_000_000).rounded() } == expected * 1_000_000)
            default: break
            }
        }
        let timeout = try #require(replay.session.connections.first?.parameters?.supervisionTimeout)
        for link in replay.world.host.allLinks where link.endReason != nil {
            let write = try #require(link.log.last { $0.fromCentral && $0.bytes.first == 0x12 })
            #expect(link.relative(link.endedAt!) - write.time == timeout)
        }
        #expect(app.heartRates.isEmpty)
    }

    /// Same app, same capture, same seed: the same events at the same virtual times.
    @Test func runsAreDeterministic() throws {
        func run() throws -> [String] {
            let replay = try CBReplay(capture: Self.capture)
            let app = replay.activate { HeartRateCentral(clock: ReplayTimers(clock: replay.clock)) }
            replay.run(for: 90)
            return app.events.map { "\($0.time) \($0)" } + replay.world.trace.records.map { "\($0.timestamp) \($0.payload)" }
        }
        #expect(try run() == run())
    }
}
