import BLEReplay
import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// `ConnectTimeoutApp` against SpecCapture.slowTermination() (a peer whose link takes 1.5 s to
/// end after the central's Disconnect), with the Exchange MTU answer held back 1 s
/// (`delay-response`): the link is up but iOS has not yet called `didConnect` (it exchanges the
/// MTU first, Docs/replay.md "Connecting") when the app's 0.5 s timer cancels the attempt.
/// Apple, `cancelPeripheralConnection(_:)`: it "cancels an active or pending local connection",
/// and "from the app’s perspective, however, the peripheral is considered disconnected, and the
/// central manager object calls the centralManager(_:didDisconnectPeripheral:error:) method".
/// So the app never hears `didConnect` for the connection it cancelled, even when the MTU answer
/// arrives while the link is still going down.
@Suite struct ConnectTimeoutAppTests {
    static func run(timeout: TimeInterval, faults: [String]) throws -> (CBReplay, ConnectTimeoutApp) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("slow-term-\(UUID().uuidString).btsnoop").path
        try SpecCapture.slowTermination().write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var c = ReplayConfiguration()
        c.faults = try faults.map { try FaultSpec(parsing: $0) }
        let replay = try CBReplay(capture: path, configuration: c)
        let app = ConnectTimeoutApp(replay: replay, timeout: timeout)
        replay.run(for: 10)
        return (replay, app)
    }

    @Test func aCancelledPendingConnectionNeverConnects() throws {
        let (replay, app) = try Self.run(timeout: 0.5, faults: ["delay-response:exchange-mtu-request:+1s"])
        // The race this is about happened: the link came up before the cancel, and the MTU
        // answer arrived after the cancel and before the link was down.
        let link = try #require(replay.world.host.allLinks.first)
        let cancelledAt = try #require(app.cancelledAt)
        let endedAt = try #require(link.endedAt)
        #expect(TimeInterval(link.establishedAt) / 1_000_000 < cancelledAt)
        let answer = try #require(link.log.first { !$0.fromCentral && $0.bytes.first == 0x03 })
        let answeredAt = TimeInterval(link.establishedAt + answer.time) / 1_000_000
        #expect(answeredAt > cancelledAt && answeredAt < TimeInterval(endedAt) / 1_000_000)
        // What the app hears: the cancel while `.connecting` (1), then the disconnection with no
        // error, `.disconnected` (0) in it; never `didConnect`.
        #expect(app.log == ["timeout, state 1", "disconnect -1, state 0"], "\(app.log)")
        #expect(app.peripheral?.state == .disconnected)
    }

    /// Without the delay the MTU answer comes long before the timer: connected, no cancel.
    @Test func aTimelyConnectionIsNotCancelled() throws {
        let (_, app) = try Self.run(timeout: 0.5, faults: [])
        #expect(app.log == ["connect, state 2", "services FFE0"], "\(app.log)")
    }
}

/// The same rule for a peripheral the system already has a link to (kept across a relaunch): the
/// restored app connects it again, as Apple's state-restoration guidance has apps do, then, the
/// user having removed the device from the app in the meantime, cancels in the same callback.
/// `connect` on such a peripheral gives `didConnect` at once (Docs/replay.md "Already
/// connected"), but not once the app has cancelled it: only `didDisconnectPeripheral`.
@Suite struct CancelledReconnectTests {
    final class App: NSObject, CBCentralManagerDelegate {
        var central: CBCentralManager!
        var restored: CBPeripheral?
        var forget = false
        var log: [String] = []
        init(replay: CBReplay, forget: Bool) {
            self.forget = forget
            super.init()
            central = replay.activate {
                CBCentralManager(delegate: self, queue: nil, options: [CBCentralManagerOptionRestoreIdentifierKey: "cancelled-reconnect"])
            }
        }
        func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
            restored = (dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral])?.first
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            guard central.state == .poweredOn else { return }
            if let restored {
                central.connect(restored)
                if forget { central.cancelPeripheralConnection(restored) }
            } else {
                central.scanForPeripherals(withServices: nil)
            }
        }
        func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
            guard restored == nil, peripheral.name == "Pulse HRM" else { return }
            restored = peripheral
            central.stopScan()
            central.connect(peripheral)
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) { log.append("connect") }
        func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?) {
            log.append("disconnect \((error as NSError?)?.code ?? -1)")
        }
    }

    @Test(arguments: [false, true]) func aRestoredPeripheralCancelledAtOnceNeverConnects(forget: Bool) throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let first = App(replay: replay, forget: false)
        replay.run(for: 5)
        #expect(first.log == ["connect"])
        replay.relaunch()
        let second = App(replay: replay, forget: forget)
        replay.run(for: 5)
        #expect(second.log == (forget ? ["disconnect -1"] : ["connect"]), "\(second.log)")
    }
}
