import Foundation
#if canImport(CoreBluetooth) && !COREBLUETOOTH_REPLAY
import CoreBluetooth
#else
import CoreBluetoothReplay
#endif

/// An iOS-style app's BLE layer, written as such apps are: one `BLEManager`-like singleton with a
/// state machine, callbacks on the main queue (`queue: nil`), a sequential GATT operation queue
/// (one request outstanding at a time), a connect timeout and reconnects with a doubling delay on
/// `DispatchQueue.main.asyncAfter`, no Combine. Every step goes into `log` with the clock reading
/// the app was given, so a test can compare whole runs.
final class SensorHub: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    /// How real apps reach it; the tests make their own instances (one per replay).
    static let shared = SensorHub(targetName: "Pulse HRM", now: { 0 })

    enum State: Equatable { case idle, scanning, connecting, discovering, ready, waitingToReconnect }
    enum Operation { case read(CBUUID), subscribe(CBUUID), write(CBUUID, Data) }

    private(set) var state: State = .idle { didSet { log("state \(state)") } }
    private(set) var log: [String] = []
    private(set) var values: [CBUUID: [Data]] = [:]
    var central: CBCentralManager!
    private var peripheral: CBPeripheral?
    private var characteristics: [CBUUID: CBCharacteristic] = [:]
    private var pending: [Operation] = []
    private var inFlight: Operation?
    private var reconnectDelay: TimeInterval = 1
    private var attempt = 0
    private let targetName: String
    private let now: () -> TimeInterval

    /// What the app does once ready: read the body sensor location and battery, subscribe to heart rate.
    var plan: [Operation] = [.read(CBUUID(string: "2A38")), .read(CBUUID(string: "2A19")), .subscribe(CBUUID(string: "2A37"))]

    init(targetName: String, now: @escaping () -> TimeInterval) {
        self.targetName = targetName
        self.now = now
        super.init()
    }

    /// Creates the manager (the replay binds it when this runs inside `activate`, or adopts it).
    func start() {
        central = CBCentralManager(delegate: self, queue: nil)
    }

    func log(_ line: String) { log.append(String(format: "%.6f ", now()) + line) }

    // MARK: State machine

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        log("radio \(central.state.rawValue)")
        if central.state == .poweredOn, state == .idle { scan() }
    }

    private func scan() {
        state = .scanning
        central.scanForPeripherals(withServices: [CBUUID(string: "180D")], options: nil)
    }

    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
        guard state == .scanning, advertisementData[CBAdvertisementDataLocalNameKey] as? String == targetName else { return }
        central.stopScan()
        self.peripheral = peripheral
        connect()
    }

    private func connect() {
        guard let peripheral else { return }
        state = .connecting
        attempt += 1
        let mine = attempt
        central.connect(peripheral, options: nil)
        // A connect never times out on iOS: apps add their own timeout.
        DispatchQueue.main.asyncAfter(deadline: .now() + 10) { [weak self] in
            guard let self, self.attempt == mine, self.state == .connecting else { return }
            self.log("connect timeout")
            self.central.cancelPeripheralConnection(peripheral)
        }
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        log("connected")
        reconnectDelay = 1
        state = .discovering
        peripheral.delegate = self
        peripheral.discoverServices([CBUUID(string: "180D"), CBUUID(string: "180F")])
    }

    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) {
        log("failed \((error as? CBError)?.code.rawValue ?? -1)")
        scheduleReconnect()
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        log("disconnected \((error as? CBError)?.code.rawValue ?? 0) services \(peripheral.services == nil ? "nil" : "kept")")
        characteristics = [:]
        pending = []
        inFlight = nil
        scheduleReconnect()
    }

    private func scheduleReconnect() {
        state = .waitingToReconnect
        let delay = reconnectDelay
        reconnectDelay = min(reconnectDelay * 2, 8)
        log("reconnect in \(delay)")
        DispatchQueue.main.asyncAfter(deadline: .now() + delay) { [weak self] in self?.connect() }
    }

    // MARK: Discovery

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        for s in peripheral.services ?? [] { peripheral.discoverCharacteristics(nil, for: s) }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        for c in service.characteristics ?? [] { characteristics[c.uuid] = c }
        let services = peripheral.services ?? []
        guard services.allSatisfy({ $0.characteristics != nil }) else { return }
        log("discovered \(services.map(\.uuid.uuidString).joined(separator: ","))")
        state = .ready
        pending = plan
        next()
    }

    // MARK: The sequential GATT queue

    private func next() {
        guard inFlight == nil, !pending.isEmpty, let peripheral else { return }
        let op = pending.removeFirst()
        inFlight = op
        switch op {
        case .read(let u):
            guard let c = characteristics[u] else { return finish("no \(u.uuidString)") }
            peripheral.readValue(for: c)
        case .subscribe(let u):
            guard let c = characteristics[u] else { return finish("no \(u.uuidString)") }
            peripheral.setNotifyValue(true, for: c)
        case .write(let u, let data):
            guard let c = characteristics[u] else { return finish("no \(u.uuidString)") }
            peripheral.writeValue(data, for: c, type: .withResponse)
        }
    }

    private func finish(_ line: String) {
        log(line)
        inFlight = nil
        next()
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        let hex = characteristic.value.map { $0.map { String(format: "%02x", $0) }.joined() } ?? "-"
        values[characteristic.uuid, default: []].append(characteristic.value ?? Data())
        if case .read(let u)? = inFlight, u == characteristic.uuid {
            finish("read \(u.uuidString) \(error.map { "error \(($0 as NSError).code)" } ?? hex)")
        } else {
            log("notified \(characteristic.uuid.uuidString) \(hex)")
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: Error?) {
        finish("subscribed \(characteristic.uuid.uuidString) \(characteristic.isNotifying)")
    }

    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: Error?) {
        finish("wrote \(characteristic.uuid.uuidString) \(error.map { "error \(($0 as NSError).code)" } ?? "ok")")
    }
}
