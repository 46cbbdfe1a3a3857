import CoreBluetoothReplay
import Foundation
import Testing

/// Apple, `centralManager(_:didDisconnectPeripheral:error:)`: "All services, characteristics, and
/// characteristic descriptors a peripheral become invalidated after it disconnects." An app that
/// keeps a `CBCharacteristic` across a reconnection and reads it without discovering again gets no
/// callback on iOS (nordicsemi/IOS-CoreBluetooth-Mock issue 98, on the native CoreBluetooth: "when
/// we reconnect, we don't get callbacks for the didUpdateValueFor after we've called readValue";
/// Wolox/WLXBluetoothDevice issue 27: "After reconnection characteristics cannot be read or
/// written"). The replay served the request on the old object's handle and answered it. Now a
/// request on an attribute that is not among the peripheral's current discovered attributes is
/// dropped (noted in `replay.diagnostics`); the same characteristic discovered again works.
/// heart-rate-healthy: 2A38 Body Sensor Location = 01.
@Suite struct InvalidatedAttributeTests {
    final class App: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
        var central: CBCentralManager!
        var peripheral: CBPeripheral?
        var stale: CBCharacteristic?
        var staleDescriptor: CBDescriptor?
        var connections = 0
        var heard: [String] = []

        init(replay: CBReplay) {
            super.init()
            central = replay.activate { CBCentralManager(delegate: self, queue: nil) }
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            if central.state == .poweredOn { central.scanForPeripherals(withServices: [CBUUID(string: "180D")]) }
        }
        func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
            guard self.peripheral == nil else { return }
            self.peripheral = peripheral
            central.stopScan()
            central.connect(peripheral)
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            connections += 1
            peripheral.delegate = self
            if connections == 1 {
                peripheral.discoverServices([CBUUID(string: "180D")])
            } else if let stale, let staleDescriptor {
                // Kept from the first connection: invalidated by the disconnection.
                peripheral.readValue(for: stale)
                peripheral.setNotifyValue(true, for: stale)
                peripheral.readValue(for: staleDescriptor)
                peripheral.discoverServices([CBUUID(string: "180D")])
            }
        }
        func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
            central.connect(peripheral)
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
            if let s = peripheral.services?.first { peripheral.discoverCharacteristics(nil, for: s) }
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
            let measurement = service.characteristics?.first { $0.uuid == CBUUID(string: "2A37") }
            let location = service.characteristics?.first { $0.uuid == CBUUID(string: "2A38") }
            if connections == 1, let measurement {
                stale = location
                peripheral.discoverDescriptors(for: measurement)
            } else if let location {
                heard.append("fresh is stale: \(location === stale)")
                peripheral.readValue(for: location)
            }
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: Error?) {
            staleDescriptor = characteristic.descriptors?.first
            central.cancelPeripheralConnection(peripheral)
        }
        func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
            heard.append("value \(characteristic.uuid.uuidString) \(characteristic.value.map { Array($0) } ?? []) connection \(connections)")
        }
        func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor descriptor: CBDescriptor, error: Error?) {
            heard.append("descriptor value")
        }
        func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: Error?) {
            heard.append("notification state \(characteristic.uuid.uuidString)")
        }
    }

    @Test func requestsOnAttributesFromBeforeTheDisconnectionGetNoCallback() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = App(replay: replay)
        replay.run(for: 10)
        #expect(app.connections == 2)
        #expect(app.heard == ["fresh is stale: false", "value 2A38 [1] connection 2"])
        #expect(replay.diagnostics.contains { $0.message.contains("invalidated") })
    }
}
