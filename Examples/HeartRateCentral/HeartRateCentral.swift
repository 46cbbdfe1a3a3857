// A heart-rate central written as an iOS app writes it: scan for the Heart Rate service (180D),
// connect, discover, subscribe to Heart Rate Measurement (2A37), and reconnect with exponential
// backoff when the link drops. The same file compiles against Apple's CoreBluetooth and, on
// Linux, against CoreBluetoothReplay (Tests/CoreBluetoothReplayTests runs it against
// Captures/heart-rate-supervision-timeout.btsnoop).
#if canImport(CoreBluetooth)
import CoreBluetooth
#else
import CoreBluetoothReplay
#endif
import Foundation

/// The app's own clock: `DispatchQueue.main.asyncAfter` and `Date()` on a device, the replay's
/// virtual clock in a test.
protocol HeartRateClock {
    var now: TimeInterval { get }
    func schedule(after seconds: TimeInterval, _ work: @escaping () -> Void)
}

final class HeartRateCentral: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    static let heartRateService = CBUUID(string: "180D")
    static let heartRateMeasurement = CBUUID(string: "2A37")

    struct Backoff {
        var initial: TimeInterval = 1
        var maximum: TimeInterval = 30
        var multiplier: Double = 2
    }

    /// What the app went through, with its clock's times (what its UI and logs would show).
    enum Event {
        case connected(at: TimeInterval)
        case disconnected(at: TimeInterval, error: Error?)
        case failedToConnect(at: TimeInterval, error: Error?)
        case reconnectScheduled(at: TimeInterval, delay: TimeInterval)
        case reconnecting(at: TimeInterval)
        case heartRate(at: TimeInterval, bpm: Int)
    }

    private(set) var events: [Event] = []
    private var central: CBCentralManager!
    private var sensor: CBPeripheral?
    private let clock: HeartRateClock
    private let backoff: Backoff
    /// Failed attempts since data last flowed (the backoff exponent).
    private var failures = 0

    init(clock: HeartRateClock, backoff: Backoff = Backoff(), queue: DispatchQueue? = nil) {
        self.clock = clock
        self.backoff = backoff
        super.init()
        central = CBCentralManager(delegate: self, queue: queue,
                                   options: [CBCentralManagerOptionShowPowerAlertKey: true])
    }

    var heartRates: [Int] {
        events.compactMap { if case .heartRate(_, let bpm) = $0 { return bpm } else { return nil } }
    }

    // MARK: CBCentralManagerDelegate

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn else { return }
        if let sensor, sensor.state == .disconnected {
            central.connect(sensor, options: nil)
        } else if sensor == nil {
            central.scanForPeripherals(withServices: [Self.heartRateService],
                                       options: [CBCentralManagerScanOptionAllowDuplicatesKey: false])
        }
    }

    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                        advertisementData: [String: Any], rssi RSSI: NSNumber) {
        guard sensor == nil else { return }
        sensor = peripheral
        central.stopScan()
        central.connect(peripheral, options: nil)
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        events.append(.connected(at: clock.now))
        peripheral.delegate = self
        peripheral.discoverServices([Self.heartRateService])
    }

    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) {
        events.append(.failedToConnect(at: clock.now, error: error))
        scheduleReconnect(peripheral)
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        events.append(.disconnected(at: clock.now, error: error))
        if error != nil { scheduleReconnect(peripheral) }
    }

    private func scheduleReconnect(_ peripheral: CBPeripheral) {
        var delay = backoff.initial
        for _ in 0..<failures { delay *= backoff.multiplier }
        delay = min(delay, backoff.maximum)
        failures += 1
        events.append(.reconnectScheduled(at: clock.now, delay: delay))
        clock.schedule(after: delay) { [weak self] in
            guard let self, peripheral.state == .disconnected else { return }
            self.events.append(.reconnecting(at: self.clock.now))
            self.central.connect(peripheral, options: nil)
        }
    }

    // MARK: CBPeripheralDelegate

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        guard let service = peripheral.services?.first(where: { $0.uuid == Self.heartRateService }) else { return }
        peripheral.discoverCharacteristics([Self.heartRateMeasurement], for: service)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        guard let measurement = service.characteristics?.first(where: { $0.uuid == Self.heartRateMeasurement }) else { return }
        peripheral.setNotifyValue(true, for: measurement)
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        guard characteristic.uuid == Self.heartRateMeasurement, let data = characteristic.value, data.count >= 2 else { return }
        // Heart Rate Measurement: flags bit 0 selects a UINT8 or UINT16 value (GATT Specification Supplement 3.113).
        let bytes = [UInt8](data)
        let bpm = bytes[0] & 0x01 == 0 ? Int(bytes[1]) : (bytes.count >= 3 ? Int(bytes[1]) | Int(bytes[2]) << 8 : 0)
        failures = 0
        events.append(.heartRate(at: clock.now, bpm: bpm))
    }
}
