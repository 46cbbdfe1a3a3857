import CoreBluetoothReplay
import Foundation

/// An app that subscribes to a characteristic of a secondary service, written the iOS way: a
/// secondary service is not among `peripheral.services` (primary service discovery does not find
/// it), so the app discovers each service's included services, then the characteristics of
/// those, and calls `setNotifyValue(true, for:)` on each that notifies.
final class SecondaryServiceSubscriber: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    var central: CBCentralManager!
    var peripheral: CBPeripheral?
    var log: [String] = []
    var notified: [String: [Data]] = [:]

    init(replay: CBReplay) {
        super.init()
        central = replay.activate { CBCentralManager(delegate: self, queue: nil) }
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        if central.state == .poweredOn { central.scanForPeripherals(withServices: nil) }
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
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        log.append("services \((peripheral.services ?? []).map(\.uuid.uuidString).joined(separator: ","))")
        for s in peripheral.services ?? [] { peripheral.discoverIncludedServices(nil, for: s) }
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverIncludedServicesFor service: CBService, error: (any Error)?) {
        for s in service.includedServices ?? [] {
            log.append("included \(s.uuid.uuidString) primary \(s.isPrimary)")
            peripheral.discoverCharacteristics(nil, for: s)
        }
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        for c in service.characteristics ?? [] where c.properties.contains(.notify) { peripheral.setNotifyValue(true, for: c) }
    }
    func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: (any Error)?) {
        log.append("notifying \(characteristic.uuid.uuidString) \(characteristic.isNotifying) \((error as NSError?)?.code ?? 0)")
    }
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?) {
        if let v = characteristic.value, error == nil { notified[characteristic.uuid.uuidString, default: []].append(v) }
    }
}
