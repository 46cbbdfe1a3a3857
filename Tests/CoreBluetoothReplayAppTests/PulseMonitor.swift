import Foundation
#if canImport(CoreBluetooth) && !COREBLUETOOTH_REPLAY
import CoreBluetooth
#else
import CoreBluetoothReplay
#endif

/// A heart-rate screen as tutorials teach it and apps ship it: scan for the Heart Rate service
/// (given in its 128-bit form, as the vendor's sheet prints it) with duplicates on to show a live
/// RSSI list, stop after a few seconds (`DispatchQueue.main.asyncAfter`) and connect to the
/// strongest; subscribe to 2A37, read 2A38 and the battery; after `beatsPerSession` beats turn
/// notifications off and, once that is confirmed, cancel the connection; a second later connect
/// again through `retrievePeripherals(withIdentifiers:)`, rediscover, and read the RSSI.
final class PulseMonitor: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    static let heartRateService = CBUUID(string: "0000180D-0000-1000-8000-00805F9B34FB")
    static let batteryService = CBUUID(string: "180F")
    static let measurement = CBUUID(string: "2A37")
    static let bodyLocation = CBUUID(string: "2A38")
    static let batteryLevel = CBUUID(string: "2A19")

    private(set) var central: CBCentralManager!
    private(set) var monitor: CBPeripheral?
    private(set) var log: [String] = []
    private(set) var sightings: [UUID: [Int]] = [:]
    private(set) var sameObjectEverySighting = true
    private(set) var beats: [Int] = []
    private(set) var bodyLocation: UInt8?
    private(set) var battery: UInt8?
    private(set) var rssi: Int?
    private(set) var sessions = 0
    /// (callback, peripheral state in it)
    private(set) var states: [(String, CBPeripheralState)] = []
    private var seen: [UUID: CBPeripheral] = [:]
    private var beatsThisSession = 0
    let scanSeconds: TimeInterval
    let beatsPerSession: Int
    private let now: () -> TimeInterval

    init(scanSeconds: TimeInterval = 3, beatsPerSession: Int = 5, now: @escaping () -> TimeInterval) {
        self.scanSeconds = scanSeconds
        self.beatsPerSession = beatsPerSession
        self.now = now
        super.init()
        central = CBCentralManager(delegate: self, queue: nil)
    }

    private func note(_ text: String) { log.append(String(format: "%.6f ", now()) + text) }
    private func state(_ what: String, _ p: CBPeripheral) { states.append((what, p.state)) }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn else { return }
        central.scanForPeripherals(withServices: [Self.heartRateService],
                                   options: [CBCentralManagerScanOptionAllowDuplicatesKey: true])
        note("scanning \(central.isScanning)")
        DispatchQueue.main.asyncAfter(deadline: .now() + scanSeconds) { [weak self] in
            self?.scanFinished()
        }
    }

    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                        advertisementData: [String: Any], rssi RSSI: NSNumber) {
        if let earlier = seen[peripheral.identifier], earlier !== peripheral { sameObjectEverySighting = false }
        seen[peripheral.identifier] = peripheral
        sightings[peripheral.identifier, default: []].append(RSSI.intValue)
    }

    private func scanFinished() {
        central.stopScan()
        note("scan stopped \(central.isScanning) \(sightings.values.map { $0.count }.reduce(0, +)) sightings")
        guard let best = sightings.max(by: { ($0.value.max() ?? -127) < ($1.value.max() ?? -127) }),
              let peripheral = seen[best.key] else { return }
        monitor = peripheral
        peripheral.delegate = self
        state("before connect", peripheral)
        central.connect(peripheral, options: [CBConnectPeripheralOptionNotifyOnDisconnectionKey: true])
        state("after connect", peripheral)
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        sessions += 1
        beatsThisSession = 0
        state("didConnect", peripheral)
        note("connected session \(sessions) services \(peripheral.services.map { "\($0.count)" } ?? "nil")")
        if sessions == 1 {
            peripheral.discoverServices([Self.heartRateService, Self.batteryService])
        } else {
            peripheral.readRSSI()
        }
    }

    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) {
        note("failed \(String(describing: error))")
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        state("didDisconnect", peripheral)
        note("disconnected \(error.map { "\(($0 as NSError).domain) \(($0 as NSError).code)" } ?? "no error")")
        guard error == nil, sessions == 1 else { return }
        let id = peripheral.identifier
        DispatchQueue.main.asyncAfter(deadline: .now() + 1) { [weak self] in
            guard let self = self, let again = self.central.retrievePeripherals(withIdentifiers: [id]).first else { return }
            self.note("retrieved same object \(again === self.monitor)")
            self.state("retrieved", again)
            self.central.connect(again, options: nil)
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didReadRSSI RSSI: NSNumber, error: Error?) {
        rssi = RSSI.intValue
        note("rssi \(RSSI)")
        peripheral.discoverServices([Self.heartRateService])
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        note("services \(peripheral.services?.map { $0.uuid.uuidString } ?? [])")
        for service in peripheral.services ?? [] {
            if service.uuid == Self.heartRateService {
                peripheral.discoverCharacteristics([Self.measurement, Self.bodyLocation], for: service)
            } else if service.uuid == Self.batteryService {
                peripheral.discoverCharacteristics([Self.batteryLevel], for: service)
            }
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        for c in service.characteristics ?? [] {
            switch c.uuid {
            case Self.measurement: peripheral.setNotifyValue(true, for: c)
            case Self.bodyLocation, Self.batteryLevel: peripheral.readValue(for: c)
            default: break
            }
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: Error?) {
        note("notifying \(characteristic.isNotifying) \(error.map { "\(($0 as NSError).code)" } ?? "ok")")
        if !characteristic.isNotifying, error == nil {
            central.cancelPeripheralConnection(peripheral)
            state("after cancel", peripheral)
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        guard error == nil, let data = characteristic.value else {
            note("read \(characteristic.uuid.uuidString) error \((error as NSError?)?.code ?? -1)")
            return
        }
        switch characteristic.uuid {
        case Self.measurement:
            let flags = data[0]
            let bpm = flags & 0x01 == 0 ? Int(data[1]) : Int(data[1]) | Int(data[2]) << 8
            beats.append(bpm)
            beatsThisSession += 1
            if beatsThisSession == beatsPerSession, sessions == 1 {
                peripheral.setNotifyValue(false, for: characteristic)
            }
        case Self.bodyLocation:
            bodyLocation = data.first
        case Self.batteryLevel:
            battery = data.first
        default:
            break
        }
    }
}
