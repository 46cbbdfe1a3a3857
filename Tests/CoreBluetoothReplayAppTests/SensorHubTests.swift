import CoreBluetoothReplay
import Foundation
import Testing

/// SensorHub (a singleton-style BLE manager with a state machine and a sequential GATT queue)
/// against the sample captures. Known answers from the recordings (Captures/README.md,
/// `blereplay gatt`): Pulse HRM's Body Sensor Location 2A38 = 01, Battery Level 2A19 = 5C,
/// heart-rate notifications `06 xx`; in heart-rate-supervision-timeout the link is lost (0x08 ->
/// CBError 6) 25.146746 s in, and the device advertises again.
@Suite struct SensorHubTests {
    static func run(_ capture: String, for seconds: TimeInterval) throws -> (SensorHub, CBReplay) {
        let replay = try CBReplay(capture: CapturePaths.sample(capture))
        let hub = replay.activate { () -> SensorHub in
            let hub = SensorHub(targetName: "Pulse HRM", now: { replay.clock.now })
            hub.start()
            return hub
        }
        replay.run(for: seconds)
        return (hub, replay)
    }

    static func lines(_ log: [String], containing text: String) -> [String] { log.filter { $0.contains(text) } }

    @Test func readsThenSubscribesOneRequestAtATime() throws {
        let (hub, replay) = try Self.run("heart-rate-healthy.btsnoop", for: 30)
        let steps = hub.log.map { $0.split(separator: " ", maxSplits: 1)[1] }.filter { !$0.hasPrefix("notified") }
        #expect(Array(steps.prefix(10)) == ["radio 5", "state scanning", "state connecting", "connected", "state discovering",
                                          "discovered 180D,180F", "state ready", "read 2A38 01", "read 2A19 5c",
                                          "subscribed 2A37 true"])
        let beats = Self.lines(hub.log, containing: "notified 2A37 06")
        #expect(beats.count >= 10)
        #expect(hub.values[CBUUID(string: "2A37")]?.allSatisfy { $0.count == 2 && $0.first == 0x06 } == true)
        #expect(replay.diagnostics.isEmpty)
        #expect(hub.state == .ready)
    }

    @Test func reconnectsAfterTheRecordedLinkLossWithItsOwnBackoff() throws {
        let (hub, replay) = try Self.run("heart-rate-supervision-timeout.btsnoop", for: 120)
        let lost = try #require(Self.lines(hub.log, containing: "disconnected").first)
        // CBError.connectionTimeout (6); iOS invalidates the services on disconnection.
        #expect(lost == "25.146746 disconnected 6 services nil")
        let lostAt = try #require(Double(lost.split(separator: " ")[0]))
        let retry = try #require(Self.lines(hub.log, containing: "reconnect in").first)
        #expect(retry.hasSuffix("reconnect in 1.0"))
        // The reconnect timer fires exactly 1 s of virtual time after the loss.
        let second = try #require(Self.lines(hub.log, containing: "state connecting").dropFirst().first)
        #expect(abs(try #require(Double(second.split(separator: " ")[0])) - (lostAt + 1)) < 1e-9)
        #expect(Self.lines(hub.log, containing: "connected").filter { !$0.contains("dis") }.count >= 2)
        // This recording never read 2A38 or 2A19: the read fails with CBATTError 2 (Read Not
        // Permitted, `ReplayConfiguration.unrecordedValues`), never an empty value, on both links.
        #expect(Self.lines(hub.log, containing: "read 2A38 error 2").count == 2)
        #expect(Self.lines(hub.log, containing: "subscribed 2A37 true").count == 2)
        #expect(replay.diagnostics.isEmpty)
    }

    /// A lazy singleton's manager is often created before the test's replay exists. It is
    /// `.unknown` (as on iOS before the first state update) and binds to the next replay
    /// activated on its thread, which gives it `centralManagerDidUpdateState` as a new manager.
    @Test func aManagerCreatedOutsideActivateBindsToTheNextReplay() throws {
        var clock: CBReplayClock?
        let hub = SensorHub(targetName: "Pulse HRM", now: { clock?.now ?? -1 })
        hub.start()
        #expect(hub.central.replay == nil)
        #expect(hub.central.state == .unknown)
        let replay = try CBReplay(capture: CapturePaths.sample("heart-rate-healthy.btsnoop"))
        clock = replay.clock
        replay.run(for: 30)
        #expect(hub.central.replay === replay)
        #expect(hub.central.state == .poweredOn)
        #expect(hub.log.contains { $0.hasSuffix("read 2A19 5c") })
    }

    /// `replay.adopt(_:)` binds a manager explicitly (the singleton across two tests' replays).
    @Test func adoptRebindsASingletonsManagerToANewReplay() throws {
        let (hub, first) = try Self.run("heart-rate-healthy.btsnoop", for: 5)
        let second = try CBReplay(capture: CapturePaths.sample("heart-rate-healthy.btsnoop"))
        second.adopt(hub.central)
        #expect(hub.central.replay === second)
        #expect(first.manager == nil)
        second.run(for: 1)
        #expect(hub.log.filter { $0.contains("radio 5") }.count == 2)
    }
}
