import CoreBluetoothReplay
import Foundation

/// An app that shows a peripheral's service tree, written the iOS way: scan, connect to the first
/// connectable peripheral, discover every service, then each service's included services
/// (`discoverIncludedServices(_:for:)`), then the characteristics of every included service, and
/// read each readable one. Every callback is logged with its virtual time.
final class IncludedServicesBrowser: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    let clock: CBReplayClock
    var central: CBCentralManager!
    var peripheral: CBPeripheral?
    /// The included services asked for; nil asks for all.
    var includedFilter: [CBUUID]?
    var log: [String] = []
    /// Included services as found, per including service: "UUID start-end" is not visible to an
    /// app, so the UUIDs.
    var included: [String: [String]] = [:]
    var includedErrors: [String: Int] = [:]
    var values: [String: Data] = [:]

    init(replay: CBReplay) {
        clock = replay.clock
        super.init()
        central = replay.activate { CBCentralManager(delegate: self, queue: nil) }
    }

    func note(_ s: String) { log.append(String(format: "%.6f ", clock.now) + s) }

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
        note("connect")
        peripheral.delegate = self
        peripheral.discoverServices(nil)
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        note("services \((peripheral.services ?? []).map(\.uuid.uuidString).joined(separator: ","))")
        for s in peripheral.services ?? [] { peripheral.discoverIncludedServices(includedFilter, for: s) }
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverIncludedServicesFor service: CBService, error: (any Error)?) {
        if let error {
            note("included \(service.uuid.uuidString) error \((error as NSError).code)")
            includedErrors[service.uuid.uuidString] = (error as NSError).code
            return
        }
        let found = service.includedServices ?? []
        note("included \(service.uuid.uuidString): \(found.map(\.uuid.uuidString).joined(separator: ","))")
        if !found.isEmpty { included[service.uuid.uuidString] = found.map(\.uuid.uuidString) }
        for s in found { peripheral.discoverCharacteristics(nil, for: s) }
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        note("characteristics \(service.uuid.uuidString): \((service.characteristics ?? []).map(\.uuid.uuidString).joined(separator: ","))")
        for c in service.characteristics ?? [] where c.properties.contains(.read) { peripheral.readValue(for: c) }
    }
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?) {
        note("value \(characteristic.uuid.uuidString) \(characteristic.value.map { Array($0) } ?? []) \((error as NSError?)?.code ?? 0)")
        if error == nil, let v = characteristic.value { values[characteristic.uuid.uuidString] = v }
    }
}
