import Foundation
#if canImport(CoreBluetooth) && !COREBLUETOOTH_REPLAY
import CoreBluetooth
#else
import CoreBluetoothReplay
#endif

/// A smart-lock controller written as lock apps are: its own serial queue for CoreBluetooth
/// (`CBCentralManager(delegate:queue:options:)`), a service filter in the lower-case 128-bit form
/// copied from the vendor's documentation, indications on the status characteristic, a command
/// written with response, UI updates published on the main queue, and a reconnect two seconds
/// after an unexpected disconnection (`asyncAfter` on its own queue). Remembers the lock's
/// identifier the way apps keep it in UserDefaults and, on the next connect, gets the peripheral
/// back with `retrievePeripherals(withIdentifiers:)`.
final class LockController: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    static let lockService = CBUUID(string: "58af3dca-6fc0-4fa3-9464-74662f043a39")
    static let statusCharacteristic = CBUUID(string: "58AF3DCA-6FC0-4FA3-9464-74662F043A3A")
    static let commandCharacteristic = CBUUID(string: "58AF3DCA-6FC0-4FA3-9464-74662F043A3B")

    let queue = DispatchQueue(label: "com.acme.lock.ble")
    private(set) var central: CBCentralManager!
    private(set) var lock: CBPeripheral?
    private(set) var savedIdentifier: UUID?
    private var status: CBCharacteristic?
    private var command: CBCharacteristic?
    /// Written on `queue` only.
    private(set) var log: [String] = []
    /// What the UI showed (main queue).
    private(set) var ui: [String] = []
    private(set) var offQueue = 0
    private(set) var disconnectErrors: [Error?] = []
    private(set) var statusUpdates: [Data] = []
    private(set) var connects = 0
    private(set) var retrievedSameObject: Bool?
    private(set) var connectedList: [[UUID]] = []
    private let now: () -> TimeInterval
    var reconnects = true

    init(now: @escaping () -> TimeInterval) {
        self.now = now
        super.init()
        central = CBCentralManager(delegate: self, queue: queue,
                                   options: [CBCentralManagerOptionShowPowerAlertKey: NSNumber(value: true)])
    }

    private func note(_ text: String) {
        if DispatchQueue.getSpecific(key: Self.key) != "lock" { offQueue += 1 }
        log.append(String(format: "%.6f ", now()) + text)
    }
    static let key = DispatchSpecificKey<String>()

    private func show(_ text: String) {
        DispatchQueue.main.async { self.ui.append(text) }
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        queue.setSpecific(key: Self.key, value: "lock")
        note("state \(central.state.rawValue)")
        guard central.state == .poweredOn else { return }
        central.scanForPeripherals(withServices: nil, options: nil)
        show("Searching…")
    }

    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                        advertisementData: [String: Any], rssi RSSI: NSNumber) {
        guard lock == nil, let name = peripheral.name, name.hasPrefix("EL_") else { return }
        note("found \(name) rssi \(RSSI)")
        central.stopScan()
        lock = peripheral
        savedIdentifier = peripheral.identifier
        central.connect(peripheral, options: nil)
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        connects += 1
        note("connected")
        show("Connected")
        connectedList.append(central.retrieveConnectedPeripherals(withServices: [Self.lockService]).map { $0.identifier })
        peripheral.delegate = self
        peripheral.discoverServices([Self.lockService])
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        disconnectErrors.append(error)
        status = nil
        command = nil
        if let error = error {
            let ns = error as NSError
            note("disconnected \(ns.domain) \(ns.code) state \(peripheral.state.rawValue)")
            show("Lost connection: \(error.localizedDescription)")
            guard reconnects else { return }
            queue.asyncAfter(deadline: .now() + 2) { [weak self] in self?.reconnect() }
        } else {
            note("disconnected by us state \(peripheral.state.rawValue)")
            show("Disconnected")
        }
    }

    private func reconnect() {
        guard let id = savedIdentifier, let p = central.retrievePeripherals(withIdentifiers: [id]).first else { return }
        retrievedSameObject = p === lock
        note("reconnecting state \(p.state.rawValue)")
        lock = p
        central.connect(p, options: nil)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        guard let service = peripheral.services?.first(where: { $0.uuid == Self.lockService }) else {
            note("no lock service in \(peripheral.services?.map { $0.uuid.uuidString } ?? [])")
            return
        }
        note("service \(service.uuid.uuidString)")
        peripheral.discoverCharacteristics([Self.statusCharacteristic, Self.commandCharacteristic], for: service)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        for c in service.characteristics ?? [] {
            switch c.uuid {
            case Self.statusCharacteristic: status = c
            case Self.commandCharacteristic: command = c
            default: break
            }
        }
        note("characteristics status \(status != nil) command \(command != nil)")
        if let status = status { peripheral.setNotifyValue(true, for: status) }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: Error?) {
        note("indications \(characteristic.isNotifying) \(error.map { "\(($0 as NSError).domain) \(($0 as NSError).code)" } ?? "ok")")
        guard characteristic.isNotifying, let command = command else { return }
        let unlock = Data([0x01, 0x50, 0x5c, 0x85, 0x02, 0xa0, 0x00, 0x90, 0x11, 0xe2,
                           0x9d, 0x3b, 0x60, 0xc7, 0xca, 0xd2, 0x2d, 0x5f, 0x31, 0x19])
        peripheral.writeValue(unlock, for: command, type: .withResponse)
    }

    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: Error?) {
        note("wrote \(characteristic.uuid == Self.commandCharacteristic ? "command" : "?") \(error.map { "\(($0 as NSError).code)" } ?? "ok")")
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        guard characteristic.uuid == Self.statusCharacteristic, let value = characteristic.value else { return }
        statusUpdates.append(value)
        note("status \(value.count) bytes")
        show("Status \(value.first.map { String($0) } ?? "-")")
    }
}
