import Foundation
#if canImport(CoreBluetooth) && !COREBLUETOOTH_REPLAY
import CoreBluetooth
#else
import CoreBluetoothReplay
#endif

/// A delegate-forwarding client, as apps with several screens write one: a proxy owns the manager
/// and every peripheral's delegate slot, and passes each callback to its listeners with optional
/// chaining (`listener.centralManager?(…)`, `listener.peripheral?(…)`), so each listener
/// implements only what it cares about. The proxy connects to the first device advertising
/// `name`, discovers everything and reads every readable characteristic once.
final class ForwardingCentral: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    private struct Listener { weak var target: (CBCentralManagerDelegate & CBPeripheralDelegate)? }
    private var listeners: [Listener] = []
    var central: CBCentralManager!
    private(set) var peripheral: CBPeripheral?
    private let name: String?
    private let identifier: UUID?

    init(name: String?, identifier: UUID? = nil) {
        self.name = name
        self.identifier = identifier
        super.init()
        central = CBCentralManager(delegate: self, queue: nil)
    }

    func add(_ listener: CBCentralManagerDelegate & CBPeripheralDelegate) { listeners.append(Listener(target: listener)) }

    private func each(_ body: (CBCentralManagerDelegate & CBPeripheralDelegate) -> Void) {
        for l in listeners { if let t = l.target { body(t) } }
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        each { $0.centralManagerDidUpdateState(central) }
        if central.state == .poweredOn { central.scanForPeripherals(withServices: nil, options: nil) }
    }

    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
        each { $0.centralManager?(central, didDiscover: peripheral, advertisementData: advertisementData, rssi: RSSI) }
        guard self.peripheral == nil else { return }
        let named = name.map { advertisementData[CBAdvertisementDataLocalNameKey] as? String == $0 } ?? false
        guard named || peripheral.identifier == identifier else { return }
        self.peripheral = peripheral
        central.stopScan()
        central.connect(peripheral, options: nil)
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        each { $0.centralManager?(central, didConnect: peripheral) }
        peripheral.delegate = self
        peripheral.discoverServices(nil)
    }

    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) {
        each { $0.centralManager?(central, didFailToConnect: peripheral, error: error) }
        central.connect(peripheral, options: nil)
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        each { $0.centralManager?(central, didDisconnectPeripheral: peripheral, error: error) }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        each { $0.peripheral?(peripheral, didDiscoverServices: error) }
        for s in peripheral.services ?? [] { peripheral.discoverCharacteristics(nil, for: s) }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        each { $0.peripheral?(peripheral, didDiscoverCharacteristicsFor: service, error: error) }
        for c in service.characteristics ?? [] where c.properties.contains(.read) { peripheral.readValue(for: c) }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        each { $0.peripheral?(peripheral, didUpdateValueFor: characteristic, error: error) }
    }

    func peripheralDidUpdateName(_ peripheral: CBPeripheral) {
        each { $0.peripheralDidUpdateName?(peripheral) }
    }
}

/// Listeners that implement a few methods each, as screens do.
final class ScanList: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    private(set) var seen: [UUID: String] = [:]
    private(set) var states: [CBManagerState] = []
    func centralManagerDidUpdateState(_ central: CBCentralManager) { states.append(central.state) }
    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
        seen[peripheral.identifier] = advertisementData[CBAdvertisementDataLocalNameKey] as? String ?? seen[peripheral.identifier] ?? ""
    }
}

final class DeviceScreen: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    private(set) var events: [String] = []
    private(set) var values: [String: Data] = [:]
    private(set) var readErrors: [String: Int] = [:]
    func centralManagerDidUpdateState(_ central: CBCentralManager) {}
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) { events.append("connected") }
    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        events.append("disconnected \((error as NSError?)?.code ?? 0)")
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        events.append("services \((peripheral.services ?? []).map(\.uuid.uuidString).joined(separator: ","))")
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        for c in service.characteristics ?? [] {
            let props = [(CBCharacteristicProperties.read, "read"), (.write, "write"), (.notify, "notify"), (.indicate, "indicate")]
            events.append("characteristic \(c.uuid.uuidString) \(props.filter { c.properties.contains($0.0) }.map(\.1).joined(separator: ","))")
        }
    }
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        if let error { readErrors[characteristic.uuid.uuidString] = (error as NSError).code } else { values[characteristic.uuid.uuidString] = characteristic.value }
    }
}
