import CoreBluetoothReplay
import Foundation
import Testing

/// What a read of a Client Characteristic Configuration descriptor (2902) gives: this client's
/// own configuration. Core v5.4 Vol 3 Part G 3.3.3.3: the descriptor is "readable with no
/// authentication or authorization", its value is set to the default 0x0000 "at each connection
/// with non-bonded devices", and each client has its own. So an app that never subscribed reads
/// 0 (an NSNumber, as CoreBluetooth types 2902, Apple's `CBDescriptor.value`), whatever the
/// recorded central had written, and after `setNotifyValue(true)` it reads 1 (notifications).
/// heart-rate-healthy: the recorded central wrote 01 00 to 2A37's CCCD 0x000F (packet 132) and
/// never touched 2A19's CCCD 0x0015; the replay read 0x000F as 1 and 0x0015 as CBATTError 2.
@Suite struct CCCDReadTests {
    final class App: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
        var central: CBCentralManager!
        var peripheral: CBPeripheral?
        var reads: [String] = []
        var pendingDescriptors = 0
        let clock: CBReplayClock

        init(replay: CBReplay) {
            clock = replay.clock
            super.init()
            central = replay.activate { CBCentralManager(delegate: self, queue: nil) }
        }
        func characteristic(_ uuid: String) -> CBCharacteristic? {
            peripheral?.services?.flatMap { $0.characteristics ?? [] }.first { $0.uuid == CBUUID(string: uuid) }
        }
        func cccd(_ uuid: String) -> CBDescriptor? {
            characteristic(uuid)?.descriptors?.first { $0.uuid == CBUUID(string: CBUUIDClientCharacteristicConfigurationString) }
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            if central.state == .poweredOn { central.scanForPeripherals(withServices: nil) }
        }
        func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
            guard self.peripheral == nil, peripheral.name == "Pulse HRM" else { return }
            self.peripheral = peripheral
            central.stopScan()
            central.connect(peripheral)
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            peripheral.delegate = self
            peripheral.discoverServices(nil)
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
            for s in peripheral.services ?? [] { peripheral.discoverCharacteristics(nil, for: s) }
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
            for c in service.characteristics ?? [] where c.properties.contains(.notify) {
                pendingDescriptors += 1
                peripheral.discoverDescriptors(for: c)
            }
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: Error?) {
            pendingDescriptors -= 1
            guard pendingDescriptors == 0 else { return }
            // Well after the recorded central subscribed to 2A37 (packet 132).
            clock.schedule(after: 8) { [self] in
                if let d = cccd("2A37") { peripheral.readValue(for: d) }
                if let d = cccd("2A19") { peripheral.readValue(for: d) }
            }
        }
        func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor descriptor: CBDescriptor, error: Error?) {
            let owner = descriptor.characteristic?.uuid.uuidString ?? "?"
            reads.append("\(owner) \(error.map { "error \(($0 as NSError).code)" } ?? "\((descriptor.value as? NSNumber)?.intValue ?? -1)")")
            if reads.count == 2, let c = characteristic("2A37") { peripheral.setNotifyValue(true, for: c) }
            if reads.count == 3, let c = characteristic("2A37") { peripheral.setNotifyValue(false, for: c) }
        }
        func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: Error?) {
            if let d = cccd("2A37") { peripheral.readValue(for: d) }
        }
    }

    @Test func aClientThatNeverSubscribedReadsZeroAndThenItsOwnConfiguration() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = App(replay: replay)
        replay.run(for: 20)
        #expect(app.reads == ["2A37 0", "2A19 0", "2A37 1", "2A37 0"])
    }
}
