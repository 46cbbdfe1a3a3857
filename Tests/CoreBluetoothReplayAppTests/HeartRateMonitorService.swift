import Foundation
#if canImport(CoreBluetooth) && !COREBLUETOOTH_REPLAY
import CoreBluetooth
#else
import CoreBluetoothReplay
#endif

/// A heart-rate sensor as iOS developers write one (the phone as the peripheral), not as the
/// project's own tests do: a service object with its own serial queue for Core Bluetooth, a
/// `switch` over the state with `@unknown default`, a `removeAllServices()` before publishing,
/// advertising started from `didAdd`, a measurement loop on `asyncAfter`, an outbox drained
/// until `updateValue` returns false and drained again from `peripheralManagerIsReady`, reads
/// answered with `subdata(in: request.offset..<…)` and `.invalidOffset`, and the Heart Rate
/// Control Point answered once, to the first request (0x80: Control Point Not Supported, Heart
/// Rate Service 1.0, 3.3.1).
final class HeartRateMonitorService: NSObject, CBPeripheralManagerDelegate {
    static let heartRateServiceUUID = CBUUID(string: "180D")
    static let measurementUUID = CBUUID(string: "2A37")
    static let sensorLocationUUID = CBUUID(string: "2A38")
    static let controlPointUUID = CBUUID(string: "2A39")

    private var peripheralManager: CBPeripheralManager!
    private let bleQueue = DispatchQueue(label: "com.example.hrm.ble")
    private var measurementCharacteristic: CBMutableCharacteristic?
    private var outbox: [Data] = []
    private var isMeasuring = false
    private var beats = 0
    private(set) var energyExpended: UInt16 = 0
    private(set) var log: [String] = []
    private(set) var sent: [Data] = []
    private let clock: () -> TimeInterval
    /// Measurements per tick: 1 as a real sensor; more to fill the transmit queue.
    var burst = 1

    init(clock: @escaping () -> TimeInterval) {
        self.clock = clock
        super.init()
        peripheralManager = CBPeripheralManager(delegate: self, queue: bleQueue,
                                                options: [CBPeripheralManagerOptionShowPowerAlertKey: true])
    }

    private func note(_ line: String) { log.append(String(format: "%.4f ", clock()) + line) }

    var manager: CBPeripheralManager { peripheralManager }

    // MARK: - CBPeripheralManagerDelegate

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        switch peripheral.state {
        case .poweredOn:
            note("poweredOn")
            publishServices()
        case .poweredOff:
            note("poweredOff")
            isMeasuring = false
        case .resetting, .unauthorized, .unsupported, .unknown:
            note("state \(peripheral.state.rawValue)")
        @unknown default:
            break
        }
    }

    private func publishServices() {
        let measurement = CBMutableCharacteristic(type: Self.measurementUUID, properties: [.notify], value: nil, permissions: [.readable])
        let location = CBMutableCharacteristic(type: Self.sensorLocationUUID, properties: [.read], value: nil, permissions: [.readable])
        let controlPoint = CBMutableCharacteristic(type: Self.controlPointUUID, properties: [.write], value: nil, permissions: [.writeable])
        let service = CBMutableService(type: Self.heartRateServiceUUID, primary: true)
        service.characteristics = [measurement, location, controlPoint]
        measurementCharacteristic = measurement
        peripheralManager.removeAllServices()
        peripheralManager.add(service)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: Error?) {
        if let error = error {
            note("didAdd \(service.uuid) failed: \(error.localizedDescription)")
            return
        }
        note("didAdd \(service.uuid)")
        peripheral.startAdvertising([CBAdvertisementDataLocalNameKey: "Pulse HR",
                                     CBAdvertisementDataServiceUUIDsKey: [Self.heartRateServiceUUID]])
    }

    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: Error?) {
        if let error = error {
            note("advertising failed: \(error.localizedDescription)")
            return
        }
        note("advertising")
        if !isMeasuring {
            isMeasuring = true
            scheduleNextMeasurement()
        }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic) {
        note("subscribed \(characteristic.uuid) max \(central.maximumUpdateValueLength)")
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic) {
        note("unsubscribed \(characteristic.uuid)")
        if measurementCharacteristic?.subscribedCentrals?.isEmpty ?? true { outbox.removeAll() }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        note("read \(request.characteristic.uuid) offset \(request.offset)")
        guard request.characteristic.uuid == Self.sensorLocationUUID else {
            peripheral.respond(to: request, withResult: .readNotPermitted)
            return
        }
        let value = Data([0x01])   // Chest
        guard request.offset <= value.count else {
            peripheral.respond(to: request, withResult: .invalidOffset)
            return
        }
        request.value = value.subdata(in: request.offset..<value.count)
        peripheral.respond(to: request, withResult: .success)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        for request in requests {
            note("write \(request.characteristic.uuid) \(request.value?.map { String(format: "%02x", $0) }.joined() ?? "nil")")
            guard request.characteristic.uuid == Self.controlPointUUID, request.value == Data([0x01]) else {
                peripheral.respond(to: requests[0], withResult: CBATTError.Code(rawValue: 0x80)!)
                return
            }
        }
        energyExpended = 0
        peripheral.respond(to: requests[0], withResult: .success)
    }

    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {
        note("ready")
        flushOutbox()
    }

    // MARK: - Measuring

    private func scheduleNextMeasurement() {
        bleQueue.asyncAfter(deadline: .now() + 1.0) { [weak self] in
            guard let self = self, self.isMeasuring else { return }
            self.measure()
            self.scheduleNextMeasurement()
        }
    }

    private func measure() {
        for _ in 0..<burst {
            beats += 1
            energyExpended &+= 1
            let bpm = UInt8(60 + beats % 40)
            // Flags 0x08: 8-bit value, Energy Expended present (Heart Rate Service 1.0, 3.1.1.1).
            var value = Data([0x08, bpm])
            withUnsafeBytes(of: energyExpended.littleEndian) { value.append(contentsOf: $0) }
            guard let c = measurementCharacteristic, !(c.subscribedCentrals?.isEmpty ?? true) else { return }
            outbox.append(value)
        }
        flushOutbox()
    }

    private func flushOutbox() {
        guard let c = measurementCharacteristic else { return }
        while let next = outbox.first {
            guard peripheralManager.updateValue(next, for: c, onSubscribedCentrals: nil) else {
                note("queue full, \(outbox.count) waiting")
                return
            }
            sent.append(next)
            outbox.removeFirst()
        }
    }
}
