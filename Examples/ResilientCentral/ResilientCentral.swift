// The error handling iOS apps need: didFailToConnect and didDisconnectPeripheral with and
// without an error, CBError / CBATTError codes and domains, retrying a read after
// insufficientAuthentication / insufficientEncryption (iOS pairs, then the retry succeeds),
// reconnecting with exponential backoff on DispatchQueue.main.asyncAfter, and state
// restoration (CBCentralManagerOptionRestoreIdentifierKey, willRestoreState). Compiles against
// Apple's CoreBluetooth and, on Linux, CoreBluetoothReplay
// (Tests/CoreBluetoothReplayExampleTests/ResilientCentralTests.swift).
#if canImport(CoreBluetooth)
import CoreBluetooth
#else
import CoreBluetoothReplay
#endif
import Foundation

final class ResilientCentral: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    /// A value to write once the characteristics are known (the app's configuration step).
    struct Write { let characteristic: CBUUID; let value: Data }

    enum Event: Equatable {
        case connected(Double)
        case failedToConnect(Double, domain: String, code: Int)
        case disconnected(Double, domain: String?, code: Int?)
        case reconnectScheduled(Double, delay: Double)
        case readFailed(CBUUID, domain: String, code: Int)
        case read(CBUUID, Data)
        case writeFailed(CBUUID, domain: String, code: Int)
        case wrote(CBUUID)
        case writeSent(Double, CBUUID)
        case restored([UUID])
    }

    static let restoreIdentifier = "com.example.resilient.central"

    let targetName: String
    let service: CBUUID
    let writes: [Write]
    let retryDelay: TimeInterval
    /// Seconds since the app started, from `now()` (Date() on a device, the replay clock in a test).
    let now: () -> Double
    private(set) var events: [Event] = []
    private(set) var central: CBCentralManager!
    private(set) var device: CBPeripheral?
    private var failures = 0
    private var retried: Set<CBUUID> = []
    private var userDisconnected = false

    init(targetName: String, service: CBUUID, writes: [Write] = [], retryDelay: TimeInterval = 3,
         now: @escaping () -> Double) {
        self.targetName = targetName
        self.service = service
        self.writes = writes
        self.retryDelay = retryDelay
        self.now = now
        super.init()
        central = CBCentralManager(delegate: self, queue: nil,
                                   options: [CBCentralManagerOptionRestoreIdentifierKey: Self.restoreIdentifier])
    }

    func disconnect() {
        userDisconnected = true
        if let device { central.cancelPeripheralConnection(device) }
    }

    // MARK: Connection lifecycle

    func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        let peripherals = dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral] ?? []
        events.append(.restored(peripherals.map(\.identifier)))
        if let p = peripherals.first {
            device = p
            p.delegate = self
        }
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn else { return }
        if let device {
            if device.state == .connected { device.discoverServices([service]) } else { central.connect(device, options: nil) }
        } else {
            central.scanForPeripherals(withServices: nil, options: nil)
        }
    }

    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                        advertisementData: [String: Any], rssi RSSI: NSNumber) {
        guard device == nil, advertisementData[CBAdvertisementDataLocalNameKey] as? String == targetName else { return }
        central.stopScan()
        device = peripheral
        peripheral.delegate = self
        central.connect(peripheral, options: [CBConnectPeripheralOptionNotifyOnDisconnectionKey: true])
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        events.append(.connected(now()))
        failures = 0
        peripheral.discoverServices([service])
    }

    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) {
        let e = (error ?? CBError(.unknown)) as NSError
        events.append(.failedToConnect(now(), domain: e.domain, code: e.code))
        if let cb = error as? CBError, cb.code == .connectionFailed || cb.code == .connectionTimeout {
            reconnect(peripheral)
        }
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        guard let error else {
            events.append(.disconnected(now(), domain: nil, code: nil))
            return
        }
        let e = error as NSError
        events.append(.disconnected(now(), domain: e.domain, code: e.code))
        if !userDisconnected, (error as? CBError)?.code == .connectionTimeout || (error as? CBError)?.code == .peripheralDisconnected {
            reconnect(peripheral)
        }
    }

    /// 1 s, 2 s, 4 s, ... capped at 30 s, on the main queue as apps do.
    private func reconnect(_ peripheral: CBPeripheral) {
        let delay = min(30, pow(2, Double(failures)))
        failures += 1
        events.append(.reconnectScheduled(now(), delay: delay))
        DispatchQueue.main.asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self, peripheral.state == .disconnected else { return }
            self.central.connect(peripheral, options: [CBConnectPeripheralOptionNotifyOnDisconnectionKey: true])
        }
    }

    // MARK: GATT

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        guard let s = peripheral.services?.first(where: { $0.uuid == service }) else { return }
        peripheral.discoverCharacteristics(nil, for: s)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        let characteristics = service.characteristics ?? []
        for c in characteristics where c.properties.contains(.read) && !c.properties.contains(.write) {
            peripheral.readValue(for: c)
        }
        for w in writes {
            guard let c = characteristics.first(where: { $0.uuid == w.characteristic }) else { continue }
            events.append(.writeSent(now(), c.uuid))
            peripheral.writeValue(w.value, for: c, type: .withResponse)
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        if let error {
            let e = error as NSError
            events.append(.readFailed(characteristic.uuid, domain: e.domain, code: e.code))
            // Reading a protected value makes iOS pair; the app reads again once it has.
            switch (error as? CBATTError)?.code {
            case .insufficientAuthentication?, .insufficientEncryption?:
                retryLater(characteristic.uuid) { peripheral.readValue(for: characteristic) }
            default:
                break
            }
            return
        }
        events.append(.read(characteristic.uuid, characteristic.value ?? Data()))
    }

    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: Error?) {
        guard let error else { return events.append(.wrote(characteristic.uuid)) }
        let e = error as NSError
        events.append(.writeFailed(characteristic.uuid, domain: e.domain, code: e.code))
        // An application error (0x80-0x9F) from the accessory: it was busy; send it again once.
        if e.domain == CBATTErrorDomain, (0x80...0x9F).contains(e.code),
           let w = writes.first(where: { $0.characteristic == characteristic.uuid }) {
            retryLater(characteristic.uuid) { peripheral.writeValue(w.value, for: characteristic, type: .withResponse) }
        }
    }

    private func retryLater(_ uuid: CBUUID, _ body: @escaping () -> Void) {
        guard retried.insert(uuid).inserted else { return }
        DispatchQueue.main.asyncAfter(deadline: .now() + retryDelay, execute: body)
    }
}
