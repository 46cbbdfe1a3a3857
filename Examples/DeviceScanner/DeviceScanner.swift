// A scanner/connector written the way iOS apps write their "find my accessory" screen: scan
// with duplicates to keep RSSI fresh, pick the accessory by advertised name and manufacturer
// data, connect with the disconnection alert, remember its identifier, and next time reconnect
// through retrievePeripherals(withIdentifiers:) / retrieveConnectedPeripherals(withServices:)
// instead of scanning. Handles every CBManagerState, and CBManager.authorization when
// Bluetooth is not allowed. A scan gives up after `scanTimeout` (DispatchQueue.main.asyncAfter).
// Compiles against Apple's CoreBluetooth and, on Linux, CoreBluetoothReplay
// (Tests/CoreBluetoothReplayTests/DeviceScannerTests.swift).
#if canImport(CoreBluetooth)
import CoreBluetooth
#else
import CoreBluetoothReplay
#endif
import Foundation

final class DeviceScanner: NSObject, CBCentralManagerDelegate {
    /// One advertisement as the scan list shows it.
    struct Sighting {
        let name: String?
        let services: [CBUUID]
        let manufacturerData: Data?
        let txPower: Int?
        let isConnectable: Bool
        let rssi: Int

        /// The Bluetooth SIG company identifier: the first two bytes, little-endian.
        var companyID: UInt16? {
            guard let d = manufacturerData, d.count >= 2 else { return nil }
            return UInt16(d[d.startIndex]) | UInt16(d[d.startIndex + 1]) << 8
        }
    }

    enum Status: Equatable {
        case waitingForBluetooth, scanning, connecting, connected, idle
        case bluetoothOff, notAllowed(CBManagerAuthorization), unsupported
    }

    let targetName: String
    let companyID: UInt16
    let scanTimeout: TimeInterval
    /// What the app keeps in UserDefaults between launches.
    var savedIdentifier: UUID?

    private(set) var status: Status = .waitingForBluetooth
    private(set) var sightings: [UUID: [Sighting]] = [:]
    private(set) var accessory: CBPeripheral?
    private(set) var scanTimedOut = false
    /// How the accessory was found this time: "scan", "retrieve" or "retrieveConnected".
    private(set) var foundBy: String?
    private(set) var disconnectError: Error?
    private var central: CBCentralManager!
    private var scanGeneration = 0

    static let heartRateService = CBUUID(string: "180D")

    init(targetName: String, companyID: UInt16, savedIdentifier: UUID? = nil, scanTimeout: TimeInterval = 10,
         queue: DispatchQueue? = DispatchQueue(label: "com.example.scanner.ble")) {
        self.targetName = targetName
        self.companyID = companyID
        self.savedIdentifier = savedIdentifier
        self.scanTimeout = scanTimeout
        super.init()
        central = CBCentralManager(delegate: self, queue: queue,
                                   options: [CBCentralManagerOptionShowPowerAlertKey: NSNumber(value: true)])
    }

    var isScanning: Bool { central.isScanning }

    func disconnect() {
        if let accessory { central.cancelPeripheralConnection(accessory) }
    }

    // MARK: CBCentralManagerDelegate

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        switch central.state {
        case .poweredOn:
            findAccessory()
        case .poweredOff:
            status = .bluetoothOff
            accessory = nil
        case .unauthorized:
            switch CBManager.authorization {
            case .denied, .restricted: status = .notAllowed(CBManager.authorization)
            default: status = .notAllowed(.notDetermined)
            }
        case .unsupported:
            status = .unsupported
        case .resetting, .unknown:
            status = .waitingForBluetooth
        @unknown default:
            status = .waitingForBluetooth
        }
    }

    private func findAccessory() {
        if let id = savedIdentifier, let known = central.retrievePeripherals(withIdentifiers: [id]).first {
            foundBy = "retrieve"
            connect(known)
        } else if let connected = central.retrieveConnectedPeripherals(withServices: [Self.heartRateService])
                    .first(where: { $0.name == targetName }) {
            foundBy = "retrieveConnected"
            connect(connected)
        } else {
            startScan()
        }
    }

    private func startScan() {
        status = .scanning
        scanTimedOut = false
        central.scanForPeripherals(withServices: nil, options: [CBCentralManagerScanOptionAllowDuplicatesKey: true])
        scanGeneration += 1
        let generation = scanGeneration
        DispatchQueue.main.asyncAfter(deadline: .now() + scanTimeout) { [weak self] in
            guard let self, generation == self.scanGeneration, self.central.isScanning else { return }
            self.central.stopScan()
            self.scanTimedOut = true
            self.status = .idle
        }
    }

    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                        advertisementData: [String: Any], rssi RSSI: NSNumber) {
        let sighting = Sighting(
            name: advertisementData[CBAdvertisementDataLocalNameKey] as? String ?? peripheral.name,
            services: advertisementData[CBAdvertisementDataServiceUUIDsKey] as? [CBUUID] ?? [],
            manufacturerData: advertisementData[CBAdvertisementDataManufacturerDataKey] as? Data,
            txPower: (advertisementData[CBAdvertisementDataTxPowerLevelKey] as? NSNumber)?.intValue,
            isConnectable: (advertisementData[CBAdvertisementDataIsConnectable] as? NSNumber)?.boolValue ?? false,
            rssi: RSSI.intValue)
        sightings[peripheral.identifier, default: []].append(sighting)

        // 127 means the RSSI was not available.
        guard RSSI.intValue != 127, RSSI.intValue > -90, accessory == nil else { return }
        // The name and the manufacturer data can come in different reports (advertising vs scan
        // response): the accessory is the one whose reports together show both.
        let all = sightings[peripheral.identifier] ?? []
        guard all.contains(where: { $0.name == targetName }),
              all.contains(where: { $0.companyID == companyID }),
              all.contains(where: \.isConnectable) else { return }
        central.stopScan()
        foundBy = "scan"
        connect(peripheral)
    }

    private func connect(_ peripheral: CBPeripheral) {
        accessory = peripheral
        status = .connecting
        central.connect(peripheral, options: [CBConnectPeripheralOptionNotifyOnDisconnectionKey: true])
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        status = .connected
        savedIdentifier = peripheral.identifier
    }

    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) {
        accessory = nil
        status = .idle
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        disconnectError = error
        status = .idle
    }
}
