import CoreBluetoothReplay
import Dispatch
import Foundation
import Testing

/// An app on its own queue, as iOS apps that keep Bluetooth off the main thread are written:
/// every delegate callback and every timer it schedules on that queue runs on it
/// (`dispatchPrecondition(condition: .onQueue(bleQueue))` holds), in virtual time.
@Suite struct OwnQueueTests {
    final class App: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
        static let key = DispatchSpecificKey<String>()
        let bleQueue = DispatchQueue(label: "app.ble")
        let clock: CBReplayClock
        var central: CBCentralManager!
        var peripheral: CBPeripheral?
        var calls: [(String, Bool)] = []

        init(replay: CBReplay) {
            clock = replay.clock
            super.init()
            bleQueue.setSpecific(key: Self.key, value: "ble")
            central = replay.activate { CBCentralManager(delegate: self, queue: bleQueue) }
        }
        func note(_ what: String) { calls.append((what, DispatchQueue.getSpecific(key: Self.key) == "ble")) }

        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            note("state")
            if central.state == .poweredOn { central.scanForPeripherals(withServices: nil) }
        }
        func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
            guard self.peripheral == nil, advertisementData[CBAdvertisementDataLocalNameKey] as? String == "Pulse HRM" else { return }
            note("discover")
            self.peripheral = peripheral
            central.stopScan()
            central.connect(peripheral)
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            note("connect")
            peripheral.delegate = self
            peripheral.discoverServices(nil)
            bleQueue.asyncAfter(deadline: .now() + 2) { [self] in note("timer \(clock.now)") }
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) { note("services") }
    }

    @Test func callbacksAndTimersRunOnTheManagersQueue() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = App(replay: replay)
        replay.run(for: 10)
        #expect(app.calls.map(\.0).prefix(4) == ["state", "discover", "connect", "services"])
        #expect(app.calls.contains { $0.0.hasPrefix("timer") })
        #expect(app.calls.allSatisfy { $0.1 })
    }
}
