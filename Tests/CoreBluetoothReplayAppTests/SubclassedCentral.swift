import Foundation
#if canImport(CoreBluetooth) && !COREBLUETOOTH_REPLAY
import CoreBluetooth
#else
import CoreBluetoothReplay
#endif

/// A subclassing client: a reusable base class conforms to the delegate protocols and implements
/// the plumbing (state, scan, connect, discovery), declaring hooks its subclasses override; a
/// device-specific subclass overrides them. As often happens, the subclass also implements a
/// delegate method the base class never declared (`peripheral(_:didUpdateValueFor:error:)`):
/// iOS calls it (the Objective-C runtime finds it); Swift on Linux cannot, and the replay says so
/// in `CBReplay.diagnostics` (Docs/replay.md "API as on iOS").
class BaseCentral: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    var central: CBCentralManager!
    var peripheral: CBPeripheral?
    private(set) var log: [String] = []
    let services: [CBUUID]

    init(services: [CBUUID]) {
        self.services = services
        super.init()
        central = CBCentralManager(delegate: self, queue: nil)
    }

    func note(_ s: String) { log.append(s) }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        note("state \(central.state.rawValue)")
        if central.state == .poweredOn { central.scanForPeripherals(withServices: services, options: nil) }
    }

    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
        guard self.peripheral == nil, shouldConnect(to: advertisementData) else { return }
        self.peripheral = peripheral
        central.stopScan()
        central.connect(peripheral, options: nil)
    }

    /// Hooks for subclasses.
    func shouldConnect(to advertisementData: [String: Any]) -> Bool { true }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        peripheral.delegate = self
        peripheral.discoverServices(services)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        for s in peripheral.services ?? [] { peripheral.discoverCharacteristics(nil, for: s) }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {}
}

final class HeartRateClient: BaseCentral {
    private(set) var subscribed: [String] = []
    private(set) var beats: [Data] = []

    init() { super.init(services: [CBUUID(string: "180D")]) }

    override func shouldConnect(to advertisementData: [String: Any]) -> Bool {
        advertisementData[CBAdvertisementDataLocalNameKey] as? String == "Pulse HRM"
    }

    override func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        note("connected")
        super.centralManager(central, didConnect: peripheral)
    }

    override func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        for c in service.characteristics ?? [] where c.properties.contains(.notify) {
            note("subscribe \(c.uuid.uuidString)")
            peripheral.setNotifyValue(true, for: c)
        }
    }

    /// Only the subclass implements these two (the base class never declared them).
    func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: Error?) {
        subscribed.append(characteristic.uuid.uuidString)
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        if let v = characteristic.value { beats.append(v) }
    }
}
