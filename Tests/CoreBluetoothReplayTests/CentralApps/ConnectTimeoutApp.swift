import CoreBluetoothReplay
import Foundation

/// An app with its own connection timeout, written the iOS way: iOS connection attempts never
/// time out (Apple, `connect(_:options:)`: "Attempts to connect to a peripheral don’t time
/// out"), so the app starts a timer with `asyncAfter` when it calls `connect` and, when the timer
/// fires before `didConnect`, calls `cancelPeripheralConnection`. Every callback is logged with
/// its virtual time and the peripheral's state.
final class ConnectTimeoutApp: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    let clock: CBReplayClock
    let timeout: TimeInterval
    var central: CBCentralManager!
    var peripheral: CBPeripheral?
    var log: [String] = []
    var connectCalledAt: TimeInterval?
    var cancelledAt: TimeInterval?

    init(replay: CBReplay, timeout: TimeInterval) {
        clock = replay.clock
        self.timeout = timeout
        super.init()
        central = replay.activate { CBCentralManager(delegate: self, queue: nil) }
    }

    func note(_ s: String) { log.append(s) }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        if central.state == .poweredOn { central.scanForPeripherals(withServices: nil) }
    }
    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
        guard self.peripheral == nil else { return }
        self.peripheral = peripheral
        central.stopScan()
        central.connect(peripheral)
        connectCalledAt = clock.now
        _ = clock.schedule(after: timeout) { [self] in
            guard peripheral.state != .connected else { return }
            note("timeout, state \(peripheral.state.rawValue)")
            cancelledAt = clock.now
            central.cancelPeripheralConnection(peripheral)
        }
    }
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        note("connect, state \(peripheral.state.rawValue)")
        peripheral.delegate = self
        peripheral.discoverServices(nil)
    }
    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?) {
        note("fail \((error as NSError?)?.code ?? -1)")
    }
    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?) {
        note("disconnect \((error as NSError?)?.code ?? -1), state \(peripheral.state.rawValue)")
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        note("services \((peripheral.services ?? []).map(\.uuid.uuidString).joined(separator: ","))")
    }
}
