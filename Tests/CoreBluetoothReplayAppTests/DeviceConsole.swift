import Foundation
#if canImport(CoreBluetooth) && !COREBLUETOOTH_REPLAY
import CoreBluetooth
#else
import CoreBluetoothReplay
#endif

/// A "device console" screen as iOS developers write one to poke at a gadget: connect to the
/// first device whose name matches, discover everything (`discoverServices(nil)`, then
/// characteristics and descriptors of each), read every readable characteristic and every
/// descriptor, subscribe to everything that notifies or indicates, read the RSSI, then send a
/// payload to every writable characteristic (with response when it has `.write`, else in chunks
/// of `maximumWriteValueLength(for: .withoutResponse)` paced by `canSendWriteWithoutResponse` and
/// `peripheralIsReady(toSendWriteWithoutResponse:)`), and finally disconnect. Every callback is
/// logged with the peripheral's state at that moment, so a test can check order and states.
final class DeviceConsole: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    private(set) var central: CBCentralManager!
    private(set) var device: CBPeripheral?
    private(set) var log: [String] = []
    private(set) var reads: [CBUUID: Data] = [:]
    private(set) var readErrors: [CBUUID: Error] = [:]
    private(set) var descriptorReads: [String: Any] = [:]
    private(set) var writes: [CBUUID: Error?] = [:]
    private(set) var subscribed: [CBUUID: Error?] = [:]
    private(set) var rssi: NSNumber?
    private(set) var readyCallbacks = 0
    private(set) var chunksSent = 0
    private(set) var disconnectError: Error??
    private(set) var stateWhenCancelled: CBPeripheralState?
    private(set) var stateRightAfterConnect: CBPeripheralState?
    private(set) var maxWithoutResponse = 0
    private(set) var streamedTo: [CBUUID] = []
    private(set) var largestChunk = 0
    private let namePrefix: String
    private let payloadSize: Int
    private var outstanding = 0
    private var streamQueue: [(CBCharacteristic, Data)] = []
    private let now: () -> TimeInterval

    init(namePrefix: String, payloadSize: Int = 600, now: @escaping () -> TimeInterval) {
        self.namePrefix = namePrefix
        self.payloadSize = payloadSize
        self.now = now
        super.init()
        central = CBCentralManager(delegate: self, queue: nil, options: [CBCentralManagerOptionShowPowerAlertKey: true])
    }

    private func note(_ text: String) {
        log.append(String(format: "%.6f ", now()) + text)
    }

    private func stateName(_ s: CBPeripheralState) -> String {
        switch s {
        case .disconnected: return "disconnected"
        case .connecting: return "connecting"
        case .connected: return "connected"
        case .disconnecting: return "disconnecting"
        @unknown default: return "?"
        }
    }

    // MARK: - CBCentralManagerDelegate

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        switch central.state {
        case .poweredOn:
            central.scanForPeripherals(withServices: nil, options: [CBCentralManagerScanOptionAllowDuplicatesKey: false])
        case .poweredOff, .resetting, .unauthorized, .unsupported, .unknown:
            note("radio \(central.state.rawValue)")
        @unknown default:
            break
        }
    }

    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                        advertisementData: [String: Any], rssi RSSI: NSNumber) {
        let name = advertisementData[CBAdvertisementDataLocalNameKey] as? String ?? peripheral.name ?? ""
        guard device == nil, name.hasPrefix(namePrefix) else { return }
        central.stopScan()
        device = peripheral
        peripheral.delegate = self
        central.connect(peripheral, options: [CBConnectPeripheralOptionNotifyOnDisconnectionKey: true])
        stateRightAfterConnect = peripheral.state
        note("connecting to \(name)")
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        note("connected \(stateName(peripheral.state)) services \(peripheral.services == nil ? "nil" : "kept")")
        peripheral.discoverServices(nil)
    }

    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) {
        note("failed \(String(describing: error))")
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        disconnectError = .some(error)
        if let error = error as NSError? {
            note("disconnected \(stateName(peripheral.state)) \(error.domain) \(error.code)")
        } else {
            note("disconnected \(stateName(peripheral.state)) cleanly")
        }
    }

    // MARK: - CBPeripheralDelegate

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        if let error = error { note("services error \(error)"); return }
        guard let services = peripheral.services else { return }
        note("services \(services.map { $0.uuid.uuidString }.joined(separator: ","))")
        for service in services {
            outstanding += 1
            peripheral.discoverCharacteristics(nil, for: service)
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        outstanding -= 1
        guard error == nil, let characteristics = service.characteristics else { return }
        for characteristic in characteristics {
            outstanding += 1
            peripheral.discoverDescriptors(for: characteristic)
            if characteristic.properties.contains(.read) {
                outstanding += 1
                peripheral.readValue(for: characteristic)
            }
            if characteristic.properties.contains(.notify) || characteristic.properties.contains(.indicate) {
                outstanding += 1
                peripheral.setNotifyValue(true, for: characteristic)
            }
        }
        finishIfDone(peripheral)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: Error?) {
        outstanding -= 1
        for descriptor in characteristic.descriptors ?? [] {
            outstanding += 1
            peripheral.readValue(for: descriptor)
        }
        finishIfDone(peripheral)
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor descriptor: CBDescriptor, error: Error?) {
        outstanding -= 1
        let key = "\(descriptor.characteristic?.uuid.uuidString ?? "?")/\(descriptor.uuid.uuidString)"
        if let error = error {
            descriptorReads[key] = error
        } else {
            descriptorReads[key] = descriptor.value
        }
        finishIfDone(peripheral)
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        if let error = error {
            readErrors[characteristic.uuid] = error
            outstanding -= 1
        } else if let value = characteristic.value {
            if reads[characteristic.uuid] == nil {
                reads[characteristic.uuid] = value
                if characteristic.properties.contains(.read) { outstanding -= 1 }
            }
        }
        finishIfDone(peripheral)
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: Error?) {
        outstanding -= 1
        subscribed[characteristic.uuid] = error
        note("notify \(characteristic.uuid.uuidString) \(characteristic.isNotifying) \(error.map { ($0 as NSError).code } ?? 0)")
        finishIfDone(peripheral)
    }

    func peripheral(_ peripheral: CBPeripheral, didReadRSSI RSSI: NSNumber, error: Error?) {
        rssi = RSSI
        note("rssi \(RSSI)")
        startWriting(peripheral)
    }

    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: Error?) {
        writes[characteristic.uuid] = error
        note("wrote \(characteristic.uuid.uuidString) \(error.map { "\(($0 as NSError).domain) \(($0 as NSError).code)" } ?? "ok")")
        finishWritingIfDone(peripheral)
    }

    func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) {
        readyCallbacks += 1
        pump(peripheral)
    }

    // MARK: - Steps

    private var discoveryDone = false
    private func finishIfDone(_ peripheral: CBPeripheral) {
        guard outstanding == 0, !discoveryDone else { return }
        discoveryDone = true
        note("discovery done")
        peripheral.readRSSI()
    }

    private var pendingWrites = 0
    private func startWriting(_ peripheral: CBPeripheral) {
        let payload = Data((0..<payloadSize).map { UInt8(truncatingIfNeeded: $0) })
        for service in peripheral.services ?? [] {
            for c in service.characteristics ?? [] {
                if c.properties.contains(.write) {
                    pendingWrites += 1
                    peripheral.writeValue(payload.prefix(8), for: c, type: .withResponse)
                } else if c.properties.contains(.writeWithoutResponse) {
                    let max = peripheral.maximumWriteValueLength(for: .withoutResponse)
                    maxWithoutResponse = max
                    streamedTo.append(c.uuid)
                    var offset = 0
                    while offset < payload.count {
                        streamQueue.append((c, payload.subdata(in: offset..<min(offset + max, payload.count))))
                        offset += max
                    }
                }
            }
        }
        pump(peripheral)
    }

    private func pump(_ peripheral: CBPeripheral) {
        while !streamQueue.isEmpty && peripheral.canSendWriteWithoutResponse {
            let (c, chunk) = streamQueue.removeFirst()
            peripheral.writeValue(chunk, for: c, type: .withoutResponse)
            largestChunk = max(largestChunk, chunk.count)
            chunksSent += 1
        }
        finishWritingIfDone(peripheral)
    }

    private func finishWritingIfDone(_ peripheral: CBPeripheral) {
        guard streamQueue.isEmpty, writes.count == pendingWrites, peripheral.state == .connected else { return }
        note("writes done, \(chunksSent) chunks")
        central.cancelPeripheralConnection(peripheral)
        stateWhenCancelled = peripheral.state
    }
}
