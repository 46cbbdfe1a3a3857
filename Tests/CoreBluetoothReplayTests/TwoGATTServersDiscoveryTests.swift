import TestSupport
import CoreBluetoothReplay
import Foundation
import Testing

/// On SpecCapture.twoServers the bike and the phone are each other's GATT servers with the same
/// handles: an app on CoreBluetoothReplay discovers the bike's own services (FFE0), never the
/// phone's (1800, 1801, 1805, ANCS) that the bike read.
@Suite struct TwoGATTServersDiscoveryTests {
    final class App: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
        var central: CBCentralManager!
        var peripheral: CBPeripheral?
        var services: [String]?
        var characteristics: [String: [String]] = [:]

        init(replay: CBReplay) {
            super.init()
            central = replay.activate { CBCentralManager(delegate: self, queue: nil) }
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            guard central.state == .poweredOn else { return }
            central.scanForPeripherals(withServices: nil)
        }
        func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
            guard self.peripheral == nil else { return }
            self.peripheral = peripheral
            central.stopScan()
            central.connect(peripheral)
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            peripheral.delegate = self
            peripheral.discoverServices(nil)
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
            services = (peripheral.services ?? []).map(\.uuid.uuidString)
            for s in peripheral.services ?? [] { peripheral.discoverCharacteristics(nil, for: s) }
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
            characteristics[service.uuid.uuidString] = (service.characteristics ?? []).map(\.uuid.uuidString)
        }
    }

    @Test func discoveryFindsOnlyTheBikesOwnServices() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("two-servers-\(UUID().uuidString).btsnoop").path
        try SpecCapture.twoServers(confirmed: true).write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = App(replay: replay)
        replay.run(for: 10)
        #expect(app.services == ["FFE0"])
        #expect(app.characteristics == ["FFE0": ["FFE1"]])
    }
}
