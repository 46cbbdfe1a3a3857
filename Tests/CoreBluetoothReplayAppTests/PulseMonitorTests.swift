import CoreBluetoothReplay
import Foundation
import Testing

/// The pulse monitor against Captures/heart-rate-healthy.btsnoop (Pulse HRM advertises 180D and
/// 180F; an iBeacon and a fitness band advertise nearby; Body Sensor Location 2A38 = 01 Chest,
/// Battery Level 2A19 = 5C = 92 %; the advertised RSSI -59 dBm; Captures/README.md).
@Suite struct PulseMonitorTests {
    @Test func scanTimeoutSubscribeUnsubscribeCancelAndReconnect() throws {
        let replay = try CBReplay(capture: CapturePaths.sample("heart-rate-healthy.btsnoop"))
        let app = replay.activate { PulseMonitor(now: { replay.clock.now }) }
        replay.run(for: 30)
        // Scanning with duplicates: the one device advertising 180D (asked for in 128-bit form),
        // reported at every advertising event of the 3 s scan, always the same CBPeripheral object.
        #expect(app.log.first == "0.000000 scanning true")
        #expect(app.sightings.count == 1)
        #expect((app.sightings.values.first?.count ?? 0) > 5)
        #expect(app.sameObjectEverySighting)
        #expect(app.log.contains { $0.hasPrefix("3.000000 scan stopped false") })
        // State transitions as iOS reports them.
        #expect(app.states.map { "\($0.0)=\($0.1.rawValue)" } ==
                ["before connect=0", "after connect=1", "didConnect=2", "after cancel=3", "didDisconnect=0", "retrieved=0", "didConnect=2"])
        // Filtered discovery in 128-bit form finds 180D, shown as "180D".
        #expect(app.log.contains { $0.hasSuffix("services [\"180D\", \"180F\"]") })
        #expect(app.bodyLocation == 0x01)
        #expect(app.battery == 92)
        #expect(app.beats.count > 5)
        // notifications off -> confirmed -> cancel -> didDisconnect with no error -> 1 s later the
        // same object from retrievePeripherals, connected again with no services until rediscovered.
        let lines = app.log.map { String($0.split(separator: " ", maxSplits: 1)[1]) }
        let offAt = try #require(lines.firstIndex(of: "notifying false ok"))
        #expect(lines[offAt + 1] == "disconnected no error")
        #expect(lines[offAt + 2] == "retrieved same object true")
        #expect(lines[offAt + 3] == "connected session 2 services nil")
        #expect(lines[offAt + 4] == "rssi -59")
        #expect(lines[offAt + 5] == "services [\"180D\"]")
        #expect(lines.last == "notifying true ok")
        #expect(replay.diagnostics.isEmpty)
    }

    /// The UUID forms apps use: 16-bit, 32-bit and 128-bit Base UUID forms of one SIG UUID are one
    /// CBUUID (equal, one hash, printed "180D"); vendor UUIDs print upper-case whatever their case.
    @Test func uuidFormsAsAppsWriteThem() {
        let short = CBUUID(string: "180D")
        let long = CBUUID(string: "0000180D-0000-1000-8000-00805F9B34FB")
        let lower = CBUUID(string: "0000180d-0000-1000-8000-00805f9b34fb")
        #expect(short == long)
        #expect(short == lower)
        #expect(long.uuidString == "180D")
        #expect(Set([short, long, lower]).count == 1)
        #expect([short: 1][long] == 1)
        #expect(CBUUID(string: "0000180D") == short)
        #expect(CBUUID(data: Data([0x18, 0x0D])) == short)
        #expect(short.data == Data([0x18, 0x0D]))
        #expect(CBUUID(string: "58af3dca-6fc0-4fa3-9464-74662f043a39").uuidString == "58AF3DCA-6FC0-4FA3-9464-74662F043A39")
        let vendor = UUID(uuidString: "58AF3DCA-6FC0-4FA3-9464-74662F043A39")!
        #expect(CBUUID(nsuuid: vendor) == CBUUID(string: "58AF3DCA-6FC0-4FA3-9464-74662F043A39"))
        switch long {
        case PulseMonitor.heartRateService: break
        default: Issue.record("switch on a CBUUID did not match the 16-bit form")
        }
    }
}
