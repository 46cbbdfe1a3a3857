import CoreBluetoothReplay
import Foundation
import Testing

/// `CBConnectPeripheralOptionEnableAutoReconnect` (iOS 17; Apple's documentation of the key:
/// "After a peripheral device connects, this setting enables the system to initiate a connection
/// to the peer device automatically when the link drops. The system uses
/// centralManager(_:didDisconnectPeripheral:timestamp:isReconnecting:error:) to notify the caller
/// about the disconnection"). In heart-rate-supervision-timeout the link is lost (HCI 0x08 ->
/// CBError 6) and Pulse HRM advertises again.
@Suite struct AutoReconnectingMonitorTests {
    static func run(for seconds: TimeInterval, then: ((AutoReconnectingMonitor, CBReplay) -> Void)? = nil) throws -> (AutoReconnectingMonitor, CBReplay) {
        let replay = try CBReplay(capture: CapturePaths.sample("heart-rate-supervision-timeout.btsnoop"))
        let app = replay.activate { AutoReconnectingMonitor(now: { replay.clock.now }) }
        replay.run(for: seconds)
        then?(app, replay)
        return (app, replay)
    }

    @Test func theSystemReconnectsAndSaysSo() throws {
        let (app, replay) = try Self.run(for: 60)
        let lost = try #require(app.log.first { $0.contains("disconnected") })
        // The system goes on connecting: the app hears isReconnecting true, the peripheral is
        // .connecting (the system's pending connection), and the app's own connect is not needed.
        #expect(lost.hasSuffix("disconnected 6 reconnecting true state 1"))
        let connects = app.log.filter { $0.hasSuffix("connected") && !$0.contains("dis") }
        #expect(connects.count == 2)
        let lostAt = try #require(Double(lost.split(separator: " ")[0]))
        let last = try #require(connects.last)
        let again = try #require(Double(last.split(separator: " ")[0]))
        #expect(again > lostAt)
        // Subscribed again, and the sensor's notifications of its second recorded connection come.
        #expect(app.log.filter { $0.hasSuffix("subscribed true") }.count == 2)
        #expect(app.log.contains { line in (Double(line.split(separator: " ")[0]) ?? 0) > again && line.contains("bpm") })
        #expect(app.peripheral?.state == .connected)
        #expect(replay.diagnostics.isEmpty)
    }

    /// Cancelling ends the system's reconnecting: the app hears one didDisconnect with no error and
    /// isReconnecting false, and no connection comes back.
    @Test func cancellingStopsTheReconnecting() throws {
        let (app, replay) = try Self.run(for: 10)
        app.forget()
        replay.run(for: 60)
        let disconnects = app.log.filter { $0.contains("disconnected") }
        #expect(disconnects.count == 1)
        #expect(disconnects.first?.hasSuffix("disconnected -1 reconnecting false state 0") == true)
        #expect(app.log.filter { $0.hasSuffix("connected") && !$0.contains("dis") }.count == 1)
        #expect(app.peripheral?.state == .disconnected)
    }

    /// The system, not the app, keeps the option: after the app is terminated and relaunched
    /// (state restoration) it goes on reconnecting the restored peripheral when the link drops.
    @Test func theSystemKeepsReconnectingAcrossARelaunch() throws {
        let replay = try CBReplay(capture: CapturePaths.sample("heart-rate-supervision-timeout.btsnoop"))
        let first = replay.activate { AutoReconnectingMonitor(now: { replay.clock.now }, restoreIdentifier: "monitor") }
        replay.run(for: 10)
        #expect(first.peripheral?.state == .connected)
        replay.relaunch()
        let app = replay.activate { AutoReconnectingMonitor(now: { replay.clock.now }, restoreIdentifier: "monitor") }
        replay.run(for: 50)
        #expect(app.log.first?.hasSuffix("restored 2") == true)
        #expect(app.log.contains { $0.hasSuffix("disconnected 6 reconnecting true state 1") })
        #expect(app.log.filter { $0.hasSuffix("connected") && !$0.contains("dis") }.count == 1)
        #expect(app.peripheral?.state == .connected)
    }

    /// Twice the same run: the same transcript and the same written capture, byte for byte.
    @Test func aRunIsTheSameTwice() throws {
        func once() throws -> ([String], Data) {
            let (app, replay) = try Self.run(for: 60)
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("auto-reconnect-\(UUID().uuidString).btsnoop").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try replay.writeCapture(to: path)
            return (app.log, try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        let (a, b) = (try once(), try once())
        #expect(a.0 == b.0)
        #expect(a.1 == b.1)
        #expect(a.1.count > 1_000)
    }
}
