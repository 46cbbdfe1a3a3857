import CoreBluetoothReplay
import Foundation
import Testing

/// Central-side calls iOS drops with an "API MISUSE" log line (Docs/replay.md "Commands before
/// `.poweredOn`"), and a second `CBCentralManager`, which the replay reports (Docs/replay.md
/// "Known limits").
@Suite struct ManagerMisuseTests {
    /// A restored app that calls `discoverServices` in `willRestoreState`, before the manager is
    /// `.poweredOn`: iOS logs "API MISUSE: … can only accept this command while in the powered
    /// on state" and drops it (no callback ever).
    final class EarlyCaller: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
        var central: CBCentralManager!
        var discovered = 0
        var stateAtRestore: CBManagerState?
        init(replay: CBReplay) {
            super.init()
            central = replay.activate {
                CBCentralManager(delegate: self, queue: nil, options: [CBCentralManagerOptionRestoreIdentifierKey: "early"])
            }
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {}
        func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
            stateAtRestore = central.state
            for p in dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral] ?? [] {
                p.delegate = self
                p.discoverServices(nil)
                p.readRSSI()
            }
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) { discovered += 1 }
    }

    @Test func callsBeforePoweredOnAreDroppedWithAnAPIMisuseDiagnostic() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let first = Recorder(replay: replay, target: "Pulse HRM", restoreIdentifier: "early")
        replay.run(for: 10)
        #expect(first.peripheral?.state == .connected)
        replay.relaunch()
        let early = EarlyCaller(replay: replay)
        replay.run(for: 5)
        #expect(early.stateAtRestore == .unknown)
        #expect(early.central.state == .poweredOn)
        #expect(early.discovered == 0)
        #expect(replay.diagnostics.contains {
            $0.message.contains("API MISUSE") && $0.message.contains("discoverServices")
                && $0.message.contains("can only accept this command while in the powered on state")
        })
    }

    /// A request on a peripheral that is not connected (an app that reads its last
    /// characteristic after `didDisconnectPeripheral`): iOS logs "API MISUSE: <CBPeripheral …>
    /// can only accept commands while in the connected state" and drops it, with no callback.
    @Test func callsOnAPeripheralThatIsNotConnectedAreDroppedWithAnAPIMisuseDiagnostic() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = DiscoveringApp(replay: replay, target: "Pulse HRM")
        var kept: CBCharacteristic?
        app.ready = { app, p in
            kept = app.characteristic("2A19")
            app.central.cancelPeripheralConnection(p)
        }
        app.onDisconnect = { _, p in
            if let kept { p.readValue(for: kept) }
            p.readRSSI()
        }
        replay.run(for: 5)
        #expect(app.peripheral?.state == .disconnected)
        #expect(!app.log.contains { $0.contains("value 2A19") })
        let misuse = replay.diagnostics.filter { $0.kind == .apiMisuse }
        #expect(misuse.map { $0.message.contains("can only accept commands while in the connected state") } == [true, true])
        #expect(misuse.first?.message.contains("readValue(for:)") == true)
        #expect(misuse.last?.message.contains("readRSSI()") == true)
        #expect(misuse.allSatisfy { $0.message.contains("disconnected") })
    }

    /// A second `CBCentralManager` in one replay: the first stops hearing (a limitation), and the
    /// replay says so in `diagnostics` rather than silently.
    @Test func aSecondCentralManagerIsReported() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        _ = Recorder(replay: replay, target: "Pulse HRM")
        _ = Recorder(replay: replay, target: "Pulse HRM", autoConnect: false)
        replay.run(for: 1)
        #expect(replay.diagnostics.contains { $0.message.contains("second CBCentralManager") })
    }
}
