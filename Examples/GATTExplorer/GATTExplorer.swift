// A GATT browser as iOS "explore your device" screens write it: discover every service (and
// its included services), every characteristic and descriptor, read what is readable (values and
// descriptors), subscribe to what notifies, read RSSI, and stream a block of bytes with write
// without response paced by canSendWriteWithoutResponse / peripheralIsReady. Compiles against
// Apple's CoreBluetooth and, on Linux, CoreBluetoothReplay
// (Tests/CoreBluetoothReplayExampleTests/GATTExplorerTests.swift).
#if canImport(CoreBluetooth)
import CoreBluetooth
#else
import CoreBluetoothReplay
#endif
import Foundation

final class GATTExplorer: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    /// The 128-bit Base UUID form of a 16-bit UUID compares equal to the short form.
    static let deviceInformation = CBUUID(string: "0000180A-0000-1000-8000-00805F9B34FB")
    static let manufacturerName = CBUUID(string: "2A29")
    static let cccd = CBUUID(string: CBUUIDClientCharacteristicConfigurationString)

    let targetName: String
    /// Streamed with write without response to `streamTo` once everything is read.
    let streamTo: CBUUID?
    let streamBytes: Int

    private(set) var central: CBCentralManager!
    private(set) var device: CBPeripheral?
    private(set) var log: [String] = []
    private(set) var values: [CBUUID: Data] = [:]
    private(set) var readErrors: [CBUUID: Error] = [:]
    private(set) var descriptorValues: [String: Any] = [:]
    private(set) var notifications: [CBUUID: [Data]] = [:]
    private(set) var notifying: Set<CBUUID> = []
    private(set) var rssi: NSNumber?
    private(set) var maxWriteWithResponse = 0
    private(set) var maxWriteWithoutResponse = 0
    private(set) var chunksSent = 0
    private(set) var readyCallbacks = 0
    private(set) var discoveryComplete = false
    private var pendingDiscoveries = 0
    private var streamRemaining = 0

    init(targetName: String, streamTo: CBUUID? = nil, streamBytes: Int = 0) {
        self.targetName = targetName
        self.streamTo = streamTo
        self.streamBytes = streamBytes
        super.init()
        central = CBCentralManager(delegate: self, queue: nil)
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        if central.state == .poweredOn { central.scanForPeripherals(withServices: nil, options: nil) }
    }

    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                        advertisementData: [String: Any], rssi RSSI: NSNumber) {
        guard device == nil, peripheral.name == targetName else { return }
        central.stopScan()
        device = peripheral
        peripheral.delegate = self
        central.connect(peripheral, options: nil)
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        log.append("connected \(peripheral.name ?? "?") state=\(peripheral.state == .connected)")
        maxWriteWithResponse = peripheral.maximumWriteValueLength(for: .withResponse)
        maxWriteWithoutResponse = peripheral.maximumWriteValueLength(for: .withoutResponse)
        peripheral.discoverServices(nil)
        peripheral.readRSSI()
    }

    // MARK: Discovery

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        guard error == nil, let services = peripheral.services else { return log.append("services failed: \(error!)") }
        for service in services {
            log.append("service \(service.uuid.uuidString) primary=\(service.isPrimary)")
            pendingDiscoveries += 2
            peripheral.discoverIncludedServices(nil, for: service)
            peripheral.discoverCharacteristics(nil, for: service)
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverIncludedServicesFor service: CBService, error: Error?) {
        for included in service.includedServices ?? [] { log.append("included \(included.uuid.uuidString) in \(service.uuid.uuidString)") }
        finishedOne(peripheral)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        for characteristic in service.characteristics ?? [] {
            log.append("characteristic \(characteristic.uuid.uuidString) of \(characteristic.service?.uuid.uuidString ?? "?") props=0x\(String(characteristic.properties.rawValue, radix: 16))")
            pendingDiscoveries += 1
            peripheral.discoverDescriptors(for: characteristic)
            if characteristic.properties.contains(.read) {
                peripheral.readValue(for: characteristic)
            }
            if characteristic.properties.contains(.notify), !characteristic.isNotifying {
                peripheral.setNotifyValue(true, for: characteristic)
            }
        }
        finishedOne(peripheral)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: Error?) {
        for descriptor in characteristic.descriptors ?? [] {
            log.append("descriptor \(descriptor.uuid.uuidString) of \(characteristic.uuid.uuidString)")
            peripheral.readValue(for: descriptor)
        }
        finishedOne(peripheral)
    }

    private func finishedOne(_ peripheral: CBPeripheral) {
        pendingDiscoveries -= 1
        guard pendingDiscoveries == 0 else { return }
        discoveryComplete = true
        startStreaming(peripheral)
    }

    // MARK: Values

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        if let error { readErrors[characteristic.uuid] = error; return }
        guard let value = characteristic.value else { return }
        if characteristic.isNotifying, values[characteristic.uuid] != nil || !characteristic.properties.contains(.read) {
            notifications[characteristic.uuid, default: []].append(value)
        } else {
            values[characteristic.uuid] = value
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor descriptor: CBDescriptor, error: Error?) {
        guard error == nil, let characteristic = descriptor.characteristic else { return }
        descriptorValues["\(characteristic.uuid.uuidString)/\(descriptor.uuid.uuidString)"] = descriptor.value
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: Error?) {
        if error == nil, characteristic.isNotifying { notifying.insert(characteristic.uuid) }
    }

    func peripheral(_ peripheral: CBPeripheral, didReadRSSI RSSI: NSNumber, error: Error?) {
        if error == nil { rssi = RSSI }
    }

    func peripheralDidUpdateName(_ peripheral: CBPeripheral) { log.append("name \(peripheral.name ?? "-")") }

    func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) {
        log.append("modified \(invalidatedServices.map(\.uuid.uuidString))")
        peripheral.discoverServices(invalidatedServices.map(\.uuid))
    }

    // MARK: Write without response, paced

    private func startStreaming(_ peripheral: CBPeripheral) {
        guard let streamTo, streamBytes > 0 else { return }
        streamRemaining = streamBytes
        pump(peripheral, to: streamTo)
    }

    private func pump(_ peripheral: CBPeripheral, to uuid: CBUUID) {
        guard let target = peripheral.services?.flatMap({ $0.characteristics ?? [] }).first(where: { $0.uuid == uuid }) else { return }
        let type: CBCharacteristicWriteType = target.properties.contains(.writeWithoutResponse) ? .withoutResponse : .withResponse
        while streamRemaining > 0, type == .withResponse || peripheral.canSendWriteWithoutResponse {
            let n = min(streamRemaining, peripheral.maximumWriteValueLength(for: type))
            peripheral.writeValue(Data(repeating: UInt8(chunksSent & 0xFF), count: n), for: target, type: type)
            streamRemaining -= n
            chunksSent += 1
            if type == .withResponse { return }
        }
    }

    func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) {
        readyCallbacks += 1
        if let streamTo { pump(peripheral, to: streamTo) }
    }

    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: Error?) {
        if let error { readErrors[characteristic.uuid] = error; return }
        if characteristic.uuid == streamTo { pump(peripheral, to: characteristic.uuid) }
    }
}
