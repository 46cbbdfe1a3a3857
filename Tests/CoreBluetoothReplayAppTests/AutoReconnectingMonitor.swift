#if canImport(CoreBluetooth) && !COREBLUETOOTH_REPLAY
import CoreBluetooth
#else
import CoreBluetoothReplay
#endif
import Foundation

/// A heart-rate monitor written for iOS 17 and later: it connects once with
/// `CBConnectPeripheralOptionEnableAutoReconnect` and leaves reconnecting to the system, so its
/// disconnect handler only reconnects itself when the system says it is not doing so
/// (`isReconnecting` false). It subscribes to 2A37 on every connection.
final class AutoReconnectingMonitor: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    private let heartRate = CBUUID(string: "180D")
    private let measurement = CBUUID(string: "2A37")
    private var central: CBCentralManager!
    private(set) var peripheral: CBPeripheral?
    private let now: () -> TimeInterval
    /// "time event" lines, the time in seconds of virtual time.
    private(set) var log: [String] = []

    init(now: @escaping () -> TimeInterval, restoreIdentifier: String? = nil) {
        self.now = now
        super.init()
        central = CBCentralManager(delegate: self, queue: nil,
                                   options: restoreIdentifier.map { [CBCentralManagerOptionRestoreIdentifierKey: $0] })
    }

    /// Relaunched by the system: the peripheral it was connected to comes back.
    func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        guard let p = (dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral])?.first else { return }
        note("restored \(p.state.rawValue)")
        peripheral = p
        p.delegate = self
    }

    /// The app gives up on the device (the user tapped "Forget").
    func forget() {
        if let peripheral { central.cancelPeripheralConnection(peripheral) }
    }

    private func note(_ s: String) { log.append(String(format: "%.6f ", now()) + s) }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        if central.state == .poweredOn, peripheral == nil { central.scanForPeripherals(withServices: [heartRate], options: nil) }
    }

    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                        advertisementData: [String: Any], rssi RSSI: NSNumber) {
        guard self.peripheral == nil else { return }
        self.peripheral = peripheral
        central.stopScan()
        central.connect(peripheral, options: [CBConnectPeripheralOptionEnableAutoReconnect: true])
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        note("connected")
        peripheral.delegate = self
        peripheral.discoverServices([heartRate])
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral,
                        timestamp: CFAbsoluteTime, isReconnecting: Bool, error: Error?) {
        let code = (error as? CBError)?.code.rawValue ?? -1
        note("disconnected \(code) reconnecting \(isReconnecting) state \(peripheral.state.rawValue)")
        if !isReconnecting && error != nil { central.connect(peripheral, options: [CBConnectPeripheralOptionEnableAutoReconnect: true]) }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        guard let service = peripheral.services?.first(where: { $0.uuid == heartRate }) else { return }
        peripheral.discoverCharacteristics([measurement], for: service)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        guard let c = service.characteristics?.first(where: { $0.uuid == measurement }) else { return }
        peripheral.setNotifyValue(true, for: c)
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: Error?) {
        note("subscribed \(characteristic.isNotifying)")
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        guard let v = characteristic.value, v.count >= 2 else { return }
        note("bpm \(v[1])")
    }
}
