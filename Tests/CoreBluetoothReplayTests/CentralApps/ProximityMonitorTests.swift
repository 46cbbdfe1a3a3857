import BLEReplay
import CoreBluetoothReplay
import Foundation
import Testing

/// `ProximityMonitor` against the heart-rate sensor (Captures/heart-rate-healthy.btsnoop), which
/// ends the link itself (0x13) at 5 s (`disconnect:0x13@t=5s`). Apple, `readRSSI()`: "when you
/// call this method to retrieve the RSSI of the peripheral while connected to the central
/// manager, the peripheral calls the peripheral(_:didReadRSSI:error:) method of its delegate
/// object"; `retrievePeripherals(withIdentifiers:)`: the peripherals the central knows by those
/// identifiers, to connect without scanning; a peer's disconnection is CBError
/// peripheralDisconnected (7, REFERENCE.md). A command on a peripheral that is not connected is
/// dropped with an "API MISUSE" log (Docs/replay.md "Commands before `.poweredOn`").
@Suite struct ProximityMonitorTests {
    @Test func pollsRSSIWhileConnectedAndNothingAnswersAfterTheLinkWent() throws {
        var c = ReplayConfiguration()
        c.faults = [try FaultSpec(parsing: "disconnect:0x13@t=5s")]
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"), configuration: c)
        let sensor = try #require(replay.world.peripherals.first { $0.model.name == "Pulse HRM" || $0.model.advertising.localName == "Pulse HRM" })
        let app = ProximityMonitor(replay: replay, remembered: CBReplay.identifier(for: sensor.model))
        replay.run(for: 12)

        #expect(app.log == ["connect", "disconnect 7"], "\(app.log)")
        let link = try #require(replay.world.host.allLinks.first)
        let lostAt = TimeInterval(try #require(link.endedAt)) / 1_000_000
        let connected = app.polls.filter { $0.1 == .connected }
        #expect(connected.count >= 4)
        // One reading per poll made while connected, each after its poll and before the link
        // went; a poll less than one reading's delay before the loss may get none (its answer
        // never comes once the link is gone).
        #expect(app.readings.count == connected.count || (app.readings.count == connected.count - 1 && connected.last!.0 > app.readings.last!.0))
        for (i, r) in app.readings.enumerated() {
            #expect(r.0 > connected[i].0 && r.0 <= lostAt)
            #expect((-62 ... -56).contains(r.1), "RSSI \(r.1) outside what the sensor's advertising reports")
        }
        // The timer's poll after the disconnection is dropped: no callback, an API MISUSE.
        let after = app.polls.filter { $0.0 > lostAt }
        #expect(after.count == 1 && after.first?.1 == .disconnected)
        #expect(replay.diagnostics.contains { $0.kind == .apiMisuse && $0.message.contains("readRSSI") })
    }
}
