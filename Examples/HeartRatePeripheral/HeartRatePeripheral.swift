// A heart-rate sensor written as an iOS app writes it, with the phone as the peripheral: it
// publishes the Heart Rate service (180D), advertises it, measures once a second, notifies Heart
// Rate Measurement (2A37) to subscribed collectors with updateValue flow control (a false return
// keeps the rest queued until peripheralManagerIsReady), serves Body Sensor Location (2A38) on
// read and takes Heart Rate Control Point (2A39) writes (0x01: reset Energy Expended). A new
// subscriber first gets the last 30 s of measurements. The same file compiles against Apple's
// CoreBluetooth and, on Linux, against CoreBluetoothReplay
// (Tests/CoreBluetoothReplayExampleTests runs it against Captures/heart-rate-peripheral.btsnoop).
#if canImport(CoreBluetooth)
import CoreBluetooth
#else
import CoreBluetoothReplay
#endif
import Foundation

final class HeartRatePeripheral: NSObject, CBPeripheralManagerDelegate {
    static let heartRateService = CBUUID(string: "180D")
    static let measurementUUID = CBUUID(string: "2A37")
    static let bodySensorLocationUUID = CBUUID(string: "2A38")
    static let controlPointUUID = CBUUID(string: "2A39")
    /// Body Sensor Location 0x01: Chest (Heart Rate Service 1.0, 3.2).
    static let chest: UInt8 = 0x01
    static let historyLength = 30

    /// What the app went through, with its clock's times (what its log would show).
    enum Event: Equatable {
        case stateChanged(at: TimeInterval, poweredOn: Bool)
        case serviceAdded(at: TimeInterval, failed: Bool)
        case advertising(at: TimeInterval, failed: Bool)
        case read(at: TimeInterval, characteristic: String, offset: Int)
        case wrote(at: TimeInterval, characteristic: String, value: Data)
        case subscribed(at: TimeInterval, central: UUID)
        case unsubscribed(at: TimeInterval, central: UUID)
        case sent(at: TimeInterval, bpm: UInt8)
        case queueFull(at: TimeInterval)
        case ready(at: TimeInterval)
    }

    private(set) var events: [Event] = []
    private(set) var manager: CBPeripheralManager!
    private let measurement = CBMutableCharacteristic(type: HeartRatePeripheral.measurementUUID, properties: [.notify],
                                                      value: nil, permissions: [])
    private let location = CBMutableCharacteristic(type: HeartRatePeripheral.bodySensorLocationUUID, properties: [.read],
                                                   value: nil, permissions: [.readable])
    private let controlPoint = CBMutableCharacteristic(type: HeartRatePeripheral.controlPointUUID, properties: [.write],
                                                       value: nil, permissions: [.writeable])
    private let now: () -> TimeInterval
    private var measuring = false
    private var bpm: UInt8 = 70
    private var measurements = 0
    /// The last 30 s of measurements (what a new subscriber gets first).
    private var history: [UInt8] = []
    /// Measurements waiting for room in the transmit queue.
    private var outbox: [UInt8] = []
    private(set) var energyResets = 0

    init(now: @escaping () -> TimeInterval, queue: DispatchQueue? = nil) {
        self.now = now
        super.init()
        manager = CBPeripheralManager(delegate: self, queue: queue,
                                      options: [CBPeripheralManagerOptionShowPowerAlertKey: true])
    }

    var sentBPM: [UInt8] { events.compactMap { if case .sent(_, let b) = $0 { return b } else { return nil } } }

    // MARK: CBPeripheralManagerDelegate

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        events.append(.stateChanged(at: now(), poweredOn: peripheral.state == .poweredOn))
        guard peripheral.state == .poweredOn else { return }
        let service = CBMutableService(type: Self.heartRateService, primary: true)
        service.characteristics = [measurement, location, controlPoint]
        peripheral.add(service)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: Error?) {
        events.append(.serviceAdded(at: now(), failed: error != nil))
        guard error == nil else { return }
        peripheral.startAdvertising([CBAdvertisementDataLocalNameKey: "Pulse HR",
                                     CBAdvertisementDataServiceUUIDsKey: [Self.heartRateService]])
    }

    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: Error?) {
        events.append(.advertising(at: now(), failed: error != nil))
        if error == nil, !measuring {
            measuring = true
            scheduleMeasurement()
        }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        events.append(.read(at: now(), characteristic: request.characteristic.uuid.uuidString, offset: request.offset))
        guard request.characteristic.uuid == Self.bodySensorLocationUUID else {
            peripheral.respond(to: request, withResult: .requestNotSupported)
            return
        }
        let value = Data([Self.chest])
        guard request.offset <= value.count else {
            peripheral.respond(to: request, withResult: .invalidOffset)
            return
        }
        request.value = value.subdata(in: request.offset..<value.count)
        peripheral.respond(to: request, withResult: .success)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        for r in requests {
            events.append(.wrote(at: now(), characteristic: r.characteristic.uuid.uuidString, value: r.value ?? Data()))
        }
        // One answer for the whole batch, to the first request (Apple's guide).
        guard let first = requests.first else { return }
        let valid = requests.allSatisfy { $0.characteristic.uuid == Self.controlPointUUID && $0.value == Data([0x01]) }
        if valid { energyResets += 1 }
        // 0x80: Control Point Not Supported (Heart Rate Service 1.0, 3.3.1).
        peripheral.respond(to: first, withResult: valid ? .success : CBATTError.Code(rawValue: 0x80)!)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic) {
        events.append(.subscribed(at: now(), central: central.identifier))
        outbox = history
        flush()
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic) {
        events.append(.unsubscribed(at: now(), central: central.identifier))
        if measurement.subscribedCentrals?.isEmpty ?? true { outbox = [] }
    }

    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {
        events.append(.ready(at: now()))
        flush()
    }

    // MARK: Measuring

    private func scheduleMeasurement() {
        DispatchQueue.main.asyncAfter(deadline: .now() + 1) { [weak self] in
            guard let self else { return }
            measure()
            scheduleMeasurement()
        }
    }

    private func measure() {
        let step: [Int] = [1, -1, 0, 2, -2, 0, 1]
        measurements += 1
        bpm = UInt8(clamping: max(60, min(140, Int(bpm) + step[measurements % step.count])))
        history.append(bpm)
        if history.count > Self.historyLength { history.removeFirst() }
        guard !(measurement.subscribedCentrals?.isEmpty ?? true) else { return }
        outbox.append(bpm)
        flush()
    }

    /// Sends queued measurements until the transmit queue is full.
    private func flush() {
        while let next = outbox.first {
            // Heart Rate Measurement: flags 0x06 (sensor contact supported and detected, UINT8 bpm).
            guard manager.updateValue(Data([0x06, next]), for: measurement, onSubscribedCentrals: nil) else {
                events.append(.queueFull(at: now()))
                return
            }
            events.append(.sent(at: now(), bpm: next))
            outbox.removeFirst()
        }
    }
}
