import Foundation
#if canImport(CoreBluetooth) && !COREBLUETOOTH_REPLAY
import CoreBluetooth
#else
import CoreBluetoothReplay
#endif

/// A thermometer as an iOS developer writes one, with the habits of the genre: two services
/// (Health Thermometer 1809 and Battery 180F), each added in turn and advertising (re)started
/// from every `didAdd` (the second start fails "already advertising", which the app logs and
/// ignores), a delegate conformance in an extension, Temperature Measurement (2A1C) sent by
/// indication every 2 s from a `DispatchQueue.main.asyncAfter` loop with a user description
/// (`CBUUIDCharacteristicUserDescriptionString`), a Measurement Interval (2A21) the central
/// reads and writes (1...60 s; anything else is refused with 0xFF Out of Range, Core Spec
/// Supplement Part B 1.2), Battery Level (2A19) a cached value, and a calibration value that
/// only a paired central may read (`.readEncryptionRequired`).
final class ThermometerPeripheral: NSObject {
    static let thermometerService = CBUUID(string: "1809")
    static let measurementUUID = CBUUID(string: "2A1C")
    static let intervalUUID = CBUUID(string: "2A21")
    static let batteryService = CBUUID(string: "180F")
    static let batteryLevelUUID = CBUUID(string: "2A19")
    static let calibrationUUID = CBUUID(string: "A1C0FFEE-0000-4000-8000-00805F9B34FB")

    var peripheralManager: CBPeripheralManager!
    var measurement: CBMutableCharacteristic!
    var interval: UInt16 = 2
    private var pending: [Data] = []
    private var timerRunning = false
    private var tenthsOfDegree = 365
    private(set) var log: [String] = []
    private(set) var indicationsSent = 0
    let now: () -> TimeInterval

    init(now: @escaping () -> TimeInterval) {
        self.now = now
        super.init()
        peripheralManager = CBPeripheralManager(delegate: self, queue: nil, options: nil)
    }

    func write(_ line: String) { log.append(String(format: "%.3f ", now()) + line) }

    private func buildServices() -> [CBMutableService] {
        measurement = CBMutableCharacteristic(type: Self.measurementUUID, properties: .indicate, value: nil, permissions: .readable)
        measurement.descriptors = [CBMutableDescriptor(type: CBUUID(string: CBUUIDCharacteristicUserDescriptionString), value: "Body temperature")]
        let intervalCharacteristic = CBMutableCharacteristic(type: Self.intervalUUID, properties: [.read, .write], value: nil,
                                                             permissions: [.readable, .writeable])
        let calibration = CBMutableCharacteristic(type: Self.calibrationUUID, properties: .read, value: nil, permissions: .readEncryptionRequired)
        let thermometer = CBMutableService(type: Self.thermometerService, primary: true)
        thermometer.characteristics = [measurement, intervalCharacteristic, calibration]
        let level = CBMutableCharacteristic(type: Self.batteryLevelUUID, properties: .read, value: Data([87]), permissions: .readable)
        let battery = CBMutableService(type: Self.batteryService, primary: true)
        battery.characteristics = [level]
        return [thermometer, battery]
    }

    private func scheduleMeasurement() {
        DispatchQueue.main.asyncAfter(deadline: .now() + .seconds(Int(interval))) { [weak self] in
            guard let self = self else { return }
            self.takeMeasurement()
            self.scheduleMeasurement()
        }
    }

    private func takeMeasurement() {
        tenthsOfDegree += 1
        guard let subscribers = measurement.subscribedCentrals, !subscribers.isEmpty else { return }
        // Flags 0x00 (Celsius), then an IEEE-11073 FLOAT: exponent -1, mantissa in tenths.
        let mantissa = UInt32(tenthsOfDegree) & 0x00FF_FFFF
        let float = mantissa | (UInt32(0xFF) << 24)
        var value = Data([0x00])
        withUnsafeBytes(of: float.littleEndian) { value.append(contentsOf: $0) }
        pending.append(value)
        flush()
    }

    private func flush() {
        while !pending.isEmpty {
            let sent = peripheralManager.updateValue(pending[0], for: measurement, onSubscribedCentrals: nil)
            if !sent { return }
            pending.removeFirst()
            indicationsSent += 1
        }
    }
}

extension ThermometerPeripheral: CBPeripheralManagerDelegate {
    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        write("state \(peripheral.state == .poweredOn ? "on" : "off")")
        if peripheral.state == .poweredOn {
            for service in buildServices() { peripheral.add(service) }
        }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: Error?) {
        write("added \(service.uuid.uuidString)" + (error.map { " error \($0)" } ?? ""))
        peripheral.startAdvertising([CBAdvertisementDataLocalNameKey: "Thermo",
                                     CBAdvertisementDataServiceUUIDsKey: [Self.thermometerService, Self.batteryService]])
    }

    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: Error?) {
        if let error = error as NSError? {
            write("advertising error \(error.domain) \(error.code)")
            return
        }
        write("advertising")
        if !timerRunning {
            timerRunning = true
            scheduleMeasurement()
        }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic) {
        write("subscribed \(characteristic.uuid.uuidString)")
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic) {
        write("unsubscribed \(characteristic.uuid.uuidString)")
        pending.removeAll()
    }

    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {
        flush()
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        write("read \(request.characteristic.uuid.uuidString)")
        if request.characteristic.uuid == Self.intervalUUID {
            let value = withUnsafeBytes(of: interval.littleEndian) { Data($0) }
            guard request.offset <= value.count else {
                peripheral.respond(to: request, withResult: .invalidOffset)
                return
            }
            request.value = value.subdata(in: request.offset..<value.count)
            peripheral.respond(to: request, withResult: .success)
        } else if request.characteristic.uuid == Self.calibrationUUID {
            request.value = Data([0x01, 0x02])
            peripheral.respond(to: request, withResult: .success)
        } else {
            peripheral.respond(to: request, withResult: .attributeNotFound)
        }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        guard let request = requests.first, request.characteristic.uuid == Self.intervalUUID,
              let value = request.value, value.count == 2 else {
            peripheral.respond(to: requests[0], withResult: .invalidAttributeValueLength)
            return
        }
        let newInterval = UInt16(value[0]) | UInt16(value[1]) << 8
        write("interval \(newInterval)")
        guard (1...60).contains(newInterval) else {
            peripheral.respond(to: request, withResult: CBATTError.Code(rawValue: 0xFF)!)
            return
        }
        interval = newInterval
        peripheral.respond(to: request, withResult: .success)
    }
}
