import CoreBluetoothReplay
import Foundation

/// An app written the iOS way: scan, connect to the device named `target` (any connectable one
/// when nil), discover every service and characteristic, then run `ready` once per connection.
/// Every callback is logged with its virtual time; `insideCall` is true while the test is inside
/// one of its own CBPeripheral calls, so a callback delivered during the call is caught.
final class DiscoveringApp: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    let clock: CBReplayClock
    let target: String?
    var central: CBCentralManager!
    var peripheral: CBPeripheral?
    var log: [String] = []
    var values: [String: [Data]] = [:]
    var errors: [String: [any Error]] = [:]
    var deliveredInsideCall = false
    var insideCall = false
    var connections = 0
    /// When set, only the peripheral with this identifier (CBReplay.identifier(for:)).
    var targetIdentifier: UUID?
    var disconnectTimestamps: [(CFAbsoluteTime, TimeInterval)] = []
    var servicesAtDisconnect: [CBService]?? = .none
    var ready: ((DiscoveringApp, CBPeripheral) -> Void)?
    var onValue: ((DiscoveringApp, CBCharacteristic, (any Error)?) -> Void)?
    var onWrite: ((DiscoveringApp, CBCharacteristic, (any Error)?) -> Void)?
    var onDisconnect: ((DiscoveringApp, CBPeripheral) -> Void)?
    private var pendingServices = 0

    init(replay: CBReplay, target: String?) {
        clock = replay.clock
        self.target = target
        super.init()
        central = replay.activate { CBCentralManager(delegate: self, queue: nil) }
    }

    func note(_ s: String) {
        if insideCall { deliveredInsideCall = true }
        log.append(String(format: "%.6f ", clock.now) + s)
    }

    /// Runs one of the app's own calls, noting any callback that arrives before it returns.
    func call(_ body: () -> Void) {
        insideCall = true
        body()
        insideCall = false
    }

    func characteristic(_ uuid: String) -> CBCharacteristic? {
        peripheral?.services?.flatMap { $0.characteristics ?? [] }.first { $0.uuid == CBUUID(string: uuid) }
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        if central.state == .poweredOn { central.scanForPeripherals(withServices: nil) }
    }
    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
        guard self.peripheral == nil, (advertisementData[CBAdvertisementDataIsConnectable] as? NSNumber)?.boolValue ?? true else { return }
        if let targetIdentifier, peripheral.identifier != targetIdentifier { return }
        if targetIdentifier == nil, let target, advertisementData[CBAdvertisementDataLocalNameKey] as? String != target, peripheral.name != target { return }
        self.peripheral = peripheral
        central.stopScan()
        central.connect(peripheral)
    }
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        note("connect")
        connections += 1
        peripheral.delegate = self
        call { peripheral.discoverServices(nil) }
    }
    /// iOS 17's form (called instead of the shorter one): notes the timestamp, then as the shorter one.
    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, timestamp: CFAbsoluteTime,
                        isReconnecting: Bool, error: (any Error)?) {
        disconnectTimestamps.append((timestamp, clock.now))
        centralManager(central, didDisconnectPeripheral: peripheral, error: error)
    }
    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?) {
        note("disconnect \((error as? CBError)?.code.rawValue ?? -1)")
        servicesAtDisconnect = .some(peripheral.services)
        onDisconnect?(self, peripheral)
    }
    /// A failed attempt is tried again, as apps do (iOS attempts never time out by themselves).
    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?) {
        note("fail \((error as? CBError)?.code.rawValue ?? -1)")
        central.connect(peripheral)
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        note("services \((peripheral.services ?? []).map(\.uuid.uuidString).joined(separator: ","))")
        pendingServices = peripheral.services?.count ?? 0
        if pendingServices == 0 { ready?(self, peripheral) }
        for s in peripheral.services ?? [] { call { peripheral.discoverCharacteristics(nil, for: s) } }
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        note("characteristics \(service.uuid.uuidString): \((service.characteristics ?? []).map(\.uuid.uuidString).joined(separator: ","))")
        pendingServices -= 1
        if pendingServices == 0 { ready?(self, peripheral) }
    }
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?) {
        let code = error.map { " error \(($0 as NSError).domain) \(($0 as NSError).code)" } ?? ""
        note("value \(characteristic.uuid.uuidString) \(characteristic.value?.count ?? -1) bytes\(code)")
        if let error { errors[characteristic.uuid.uuidString, default: []].append(error) } else if let v = characteristic.value {
            values[characteristic.uuid.uuidString, default: []].append(v)
        }
        onValue?(self, characteristic, error)
    }
    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: (any Error)?) {
        let code = error.map { " error \(($0 as NSError).domain) \(($0 as NSError).code)" } ?? ""
        note("wrote \(characteristic.uuid.uuidString)\(code)")
        if let error { errors[characteristic.uuid.uuidString, default: []].append(error) }
        onWrite?(self, characteristic, error)
    }
}
