import CoreBluetoothReplay
import Foundation

/// An app that labels characteristics the way generic BLE browsers do, written the iOS way: it
/// discovers every characteristic's descriptors, reads the Characteristic User Description
/// (`CBUUIDCharacteristicUserDescriptionString`) and the Presentation Format
/// (`CBUUIDCharacteristicFormatString`), then renames the characteristic by writing a new user
/// description (`writeValue(_:for: CBDescriptor)`) and reads it back.
final class DescriptorLabels: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    var central: CBCentralManager!
    var peripheral: CBPeripheral?
    let newLabel: String
    var log: [String] = []
    /// Each descriptor value as the app got it, in order.
    var values: [(String, Any?)] = []
    var renamed = false

    init(replay: CBReplay, newLabel: String) {
        self.newLabel = newLabel
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
        for s in peripheral.services ?? [] { peripheral.discoverCharacteristics(nil, for: s) }
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        for c in service.characteristics ?? [] { peripheral.discoverDescriptors(for: c) }
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: (any Error)?) {
        log.append("descriptors \(characteristic.uuid.uuidString): \((characteristic.descriptors ?? []).map(\.uuid.uuidString).joined(separator: ","))")
        for d in characteristic.descriptors ?? [] where [CBUUIDCharacteristicUserDescriptionString, CBUUIDCharacteristicFormatString].contains(d.uuid.uuidString) {
            peripheral.readValue(for: d)
        }
    }
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor descriptor: CBDescriptor, error: (any Error)?) {
        if let error { log.append("read \(descriptor.uuid.uuidString) error \((error as NSError).code)"); return }
        values.append((descriptor.uuid.uuidString, descriptor.value))
        if descriptor.uuid.uuidString == CBUUIDCharacteristicUserDescriptionString, !renamed {
            renamed = true
            peripheral.writeValue(Data(newLabel.utf8), for: descriptor)
        }
    }
    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor descriptor: CBDescriptor, error: (any Error)?) {
        log.append("wrote \(descriptor.uuid.uuidString) \((error as NSError?)?.code ?? 0)")
        if error == nil { peripheral.readValue(for: descriptor) }
    }
}
