import CoreBluetoothReplay
import Foundation

/// A step counter's history server as iOS developers write one after the GATT profiles' record
/// access pattern: a central turns on the records' notifications and the control point's
/// indications, writes an op code to the control point (a Write Request), and the app answers
/// the write at once (`respond(to:withResult:)`), then streams the stored records as
/// notifications, paced by `updateValue`'s false and `peripheralManagerIsReady(toUpdateSubscribers:)`,
/// and last indicates the op code's result on the control point ([0x80, op code, result]). A
/// control-point write from a central that has not turned the indications on is refused with the
/// common profile error 0xFD (Client Characteristic Configuration Descriptor Improperly
/// Configured, Core Specification Supplement Part B 1.2), which CoreBluetooth has no name for:
/// `CBATTError.Code(rawValue: 0xFD)!`.
///
/// Handles as CBLocalDatabase lays them out: 0x000A service, 0x000C records, 0x000D their CCCD,
/// 0x000F control point, 0x0010 its CCCD.
final class StepHistoryServer: NSObject, CBPeripheralManagerDelegate {
    static let serviceUUID = CBUUID(string: "A1F40000-6F2C-4C25-9A0B-1D3E5F708192")
    static let recordsUUID = CBUUID(string: "A1F40001-6F2C-4C25-9A0B-1D3E5F708192")
    static let controlPointUUID = CBUUID(string: "A1F40002-6F2C-4C25-9A0B-1D3E5F708192")
    static let reportAll: UInt8 = 0x01
    /// Twenty stored records: a 2-byte index and a 4-byte step count, little-endian.
    static let records: [Data] = (0..<20).map { (i: Int) -> Data in
        let steps = UInt32(1_000 + i * 37)
        var record = Data([UInt8(i), 0])
        withUnsafeBytes(of: steps.littleEndian) { record.append(contentsOf: $0) }
        return record
    }

    var peripheralManager: CBPeripheralManager!
    private var recordsCharacteristic: CBMutableCharacteristic!
    private var controlPoint: CBMutableCharacteristic!
    private var indicationsOn: Set<UUID> = []
    private var queue: [(Data, CBMutableCharacteristic)] = []
    private(set) var sent: [Data] = []
    private(set) var log: [String] = []
    private let now: () -> TimeInterval

    init(now: @escaping () -> TimeInterval) {
        self.now = now
        super.init()
        peripheralManager = CBPeripheralManager(delegate: self, queue: nil)
    }

    private func note(_ s: String) { log.append(String(format: "%.4f ", now()) + s) }

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        guard peripheral.state == .poweredOn else { return }
        recordsCharacteristic = CBMutableCharacteristic(type: Self.recordsUUID, properties: .notify, value: nil, permissions: [])
        controlPoint = CBMutableCharacteristic(type: Self.controlPointUUID, properties: [.write, .indicate], value: nil,
                                               permissions: .writeable)
        let service = CBMutableService(type: Self.serviceUUID, primary: true)
        service.characteristics = [recordsCharacteristic, controlPoint]
        peripheral.add(service)
        peripheral.startAdvertising([CBAdvertisementDataServiceUUIDsKey: [Self.serviceUUID]])
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic) {
        note("subscribed \(characteristic.uuid == Self.controlPointUUID ? "control point" : "records")")
        if characteristic.uuid == Self.controlPointUUID { indicationsOn.insert(central.identifier) }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic) {
        note("unsubscribed \(characteristic.uuid == Self.controlPointUUID ? "control point" : "records")")
        if characteristic.uuid == Self.controlPointUUID { indicationsOn.remove(central.identifier) }
        queue.removeAll()
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        let request = requests[0]
        guard request.characteristic.uuid == Self.controlPointUUID, let op = request.value?.first else {
            peripheral.respond(to: request, withResult: .writeNotPermitted)
            return
        }
        guard indicationsOn.contains(request.central.identifier) else {
            note("control point refused")
            peripheral.respond(to: request, withResult: CBATTError.Code(rawValue: 0xFD)!)
            return
        }
        note("control point \(op)")
        peripheral.respond(to: request, withResult: .success)
        if op == Self.reportAll {
            queue = Self.records.map { ($0, recordsCharacteristic) }
            queue.append((Data([0x80, op, 0x01]), controlPoint))
        } else {
            queue.append((Data([0x80, op, 0x02]), controlPoint))   // op code not supported
        }
        sendQueued()
    }

    private func sendQueued() {
        while let (value, characteristic) = queue.first {
            guard peripheralManager.updateValue(value, for: characteristic, onSubscribedCentrals: nil) else {
                note("full")
                return
            }
            sent.append(value)
            queue.removeFirst()
        }
    }

    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {
        note("ready")
        sendQueued()
    }
}
