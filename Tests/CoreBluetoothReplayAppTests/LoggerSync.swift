import Foundation
#if canImport(CoreBluetooth) && !COREBLUETOOTH_REPLAY
import CoreBluetooth
#else
import CoreBluetoothReplay
#endif

/// A data-logger sync as such apps do it: subscribe to the status stream (notify) and the
/// control point (indicate), send "start sync" commands to the control point with response, and
/// guard each command with the app's own timeout (`DispatchQueue.main.asyncAfter`, five seconds,
/// cancelled by a generation counter when the answer comes); a command that times out makes the
/// app give up on the link with `cancelPeripheralConnection`, and it reports what happened.
final class LoggerSync: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    static let service = CBUUID(string: "7A3E0001-52C1-4B8E-9E4A-2F6C3B1D0E55")
    static let controlPoint = CBUUID(string: "7A3E0002-52C1-4B8E-9E4A-2F6C3B1D0E55")
    static let status = CBUUID(string: "7A3E0003-52C1-4B8E-9E4A-2F6C3B1D0E55")

    private(set) var central: CBCentralManager!
    private(set) var logger: CBPeripheral?
    private(set) var log: [String] = []
    private(set) var statusValues: [Data] = []
    private(set) var commandsAnswered = 0
    private(set) var timedOut = false
    private(set) var stateAfterCancel: CBPeripheralState?
    private(set) var readAfterCancelAnswered = false
    private var control: CBCharacteristic?
    private var subscriptions = 0
    private var generation = 0
    let commandTimeout: TimeInterval
    private let now: () -> TimeInterval

    init(commandTimeout: TimeInterval = 5, now: @escaping () -> TimeInterval) {
        self.commandTimeout = commandTimeout
        self.now = now
        super.init()
        central = CBCentralManager(delegate: self, queue: nil)
    }

    private func note(_ text: String) { log.append(String(format: "%.6f ", now()) + text) }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        if central.state == .poweredOn {
            central.scanForPeripherals(withServices: [Self.service], options: nil)
        }
    }

    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                        advertisementData: [String: Any], rssi RSSI: NSNumber) {
        guard logger == nil else { return }
        central.stopScan()
        logger = peripheral
        peripheral.delegate = self
        central.connect(peripheral, options: nil)
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        note("connected")
        peripheral.discoverServices([Self.service])
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        note("disconnected \(error.map { "\(($0 as NSError).domain) \(($0 as NSError).code)" } ?? "by us") state \(peripheral.state.rawValue)")
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        guard let service = peripheral.services?.first(where: { $0.uuid == Self.service }) else { return }
        peripheral.discoverCharacteristics([Self.controlPoint, Self.status], for: service)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        for c in service.characteristics ?? [] {
            if c.uuid == Self.controlPoint { control = c }
            peripheral.setNotifyValue(true, for: c)
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: Error?) {
        let kind = characteristic.properties.contains(.indicate) ? "indications" : "notifications"
        note("\(kind) \(characteristic.uuid.uuidString.prefix(8)) \(characteristic.isNotifying)")
        subscriptions += 1
        if subscriptions == 2 { sendStart(peripheral) }
    }

    private func sendStart(_ peripheral: CBPeripheral) {
        guard let control = control else { return }
        generation += 1
        let mine = generation
        // "start" (01), then "sync from record 16" (07 00 10).
        peripheral.writeValue(generation == 1 ? Data([0x01]) : Data([0x07, 0x00, 0x10]), for: control, type: .withResponse)
        note("command sent")
        DispatchQueue.main.asyncAfter(deadline: .now() + commandTimeout) { [weak self] in
            guard let self = self, self.generation == mine else { return }
            self.timedOut = true
            self.note("command timed out")
            self.central.cancelPeripheralConnection(peripheral)
            self.stateAfterCancel = peripheral.state
            // Too late: the link is going; iOS drops requests on a peripheral that is not connected.
            if let control = self.control { peripheral.readValue(for: control) }
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: Error?) {
        generation += 1   // the answer came: the timeout is void
        commandsAnswered += 1
        note("command answered \(error.map { "\(($0 as NSError).code)" } ?? "ok")")
        if commandsAnswered == 1 { sendStart(peripheral) }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        if characteristic.uuid == Self.status, let v = characteristic.value { statusValues.append(v) }
        if characteristic.uuid == Self.controlPoint { readAfterCancelAnswered = true }
    }
}
