import Foundation
#if canImport(CoreBluetooth) && !COREBLUETOOTH_REPLAY
import CoreBluetooth
#else
import CoreBluetoothReplay
#endif

/// An app that keeps Bluetooth off the main thread, as many do: the manager runs on its own serial
/// queue (every callback asserts it), results are decoded on a global queue while the BLE queue
/// waits on a semaphore (the pattern that deadlocked the replay: the work went to the virtual
/// clock behind the wait), the UI hears of them on the main queue, and a failed read is retried
/// with a `qos:` timer (`asyncAfter(deadline:qos:execute:)`) on the BLE queue.
final class QueueCentral: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    static let queueKey = DispatchSpecificKey<String>()
    let bleQueue = DispatchQueue(label: "com.example.ble", qos: .userInitiated)
    private(set) var central: CBCentralManager!
    private var peripheral: CBPeripheral?
    private(set) var log: [String] = []
    /// What the "UI" shows (written on the main queue only).
    private(set) var shown: [String] = []
    private(set) var offQueueCallbacks = 0
    private var retries = 0
    private let now: () -> TimeInterval

    init(now: @escaping () -> TimeInterval) {
        self.now = now
        super.init()
        bleQueue.setSpecific(key: Self.queueKey, value: "ble")
        central = CBCentralManager(delegate: self, queue: bleQueue)
    }

    private func onBLEQueue() {
        dispatchPrecondition(condition: .onQueue(bleQueue))
        if DispatchQueue.getSpecific(key: Self.queueKey) != "ble" { offQueueCallbacks += 1 }
    }

    private func note(_ s: String) { log.append(String(format: "%.6f ", now()) + s) }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        onBLEQueue()
        note("state \(central.state.rawValue)")
        if central.state == .poweredOn { central.scanForPeripherals(withServices: [CBUUID(string: "180D")], options: nil) }
    }

    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
        onBLEQueue()
        guard self.peripheral == nil else { return }
        self.peripheral = peripheral
        central.stopScan()
        central.connect(peripheral, options: nil)
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        onBLEQueue()
        note("connected")
        peripheral.delegate = self
        peripheral.discoverServices([CBUUID(string: "180F"), CBUUID(string: "180A")])
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        onBLEQueue()
        for s in peripheral.services ?? [] { peripheral.discoverCharacteristics(nil, for: s) }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        onBLEQueue()
        for c in service.characteristics ?? [] where c.properties.contains(.read) { peripheral.readValue(for: c) }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        onBLEQueue()
        guard error == nil, let value = characteristic.value else {
            note("read \(characteristic.uuid.uuidString) failed")
            guard retries < 2 else { return }
            retries += 1
            bleQueue.asyncAfter(deadline: .now() + 0.5, qos: .utility) { [weak self] in
                self?.note("retry \(characteristic.uuid.uuidString)")
                peripheral.readValue(for: characteristic)
            }
            return
        }
        // Decode off the BLE queue and wait for it (a blocking call some apps make).
        let done = DispatchSemaphore(value: 0)
        var text = ""
        DispatchQueue.global(qos: .userInitiated).async {
            text = characteristic.uuid.uuidString == "2A19" ? "battery \(value[0])%" : String(decoding: value, as: UTF8.self)
            done.signal()
        }
        done.wait()
        note("read \(characteristic.uuid.uuidString) \(text)")
        DispatchQueue.main.async { [weak self] in self?.shown.append(text) }
    }
}
