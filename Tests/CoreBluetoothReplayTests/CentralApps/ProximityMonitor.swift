import CoreBluetoothReplay
import Foundation

/// A proximity app written the iOS way: it remembers its peripheral's identifier, so on launch it
/// asks `retrievePeripherals(withIdentifiers:)` and connects without scanning; once connected it
/// polls `readRSSI()` every second and keeps polling until the link goes; its timer fires once
/// more after the disconnection (it checks only its own bookkeeping, as many apps do). The timer
/// is the replay clock's (Swift 6 mode: see ConnectTimeoutApp).
final class ProximityMonitor: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    let clock: CBReplayClock
    let remembered: UUID
    var central: CBCentralManager!
    var peripheral: CBPeripheral?
    var log: [String] = []
    var readings: [(TimeInterval, Int)] = []
    var polls: [(TimeInterval, CBPeripheralState)] = []
    var polling = false

    init(replay: CBReplay, remembered: UUID) {
        clock = replay.clock
        self.remembered = remembered
        super.init()
        central = replay.activate { CBCentralManager(delegate: self, queue: nil) }
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn, let p = central.retrievePeripherals(withIdentifiers: [remembered]).first else { return }
        peripheral = p
        p.delegate = self
        central.connect(p)
    }
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        log.append("connect")
        polling = true
        poll()
    }
    func poll() {
        guard let peripheral else { return }
        polls.append((clock.now, peripheral.state))
        peripheral.readRSSI()
        _ = clock.schedule(after: 1) { [weak self] in
            guard let self else { return }
            // A timer that fires once more after the link went: one more readRSSI.
            if self.polling { self.poll() } else if self.polls.last?.1 == .connected { self.poll() }
        }
    }
    func peripheral(_ peripheral: CBPeripheral, didReadRSSI RSSI: NSNumber, error: (any Error)?) {
        if let error { log.append("rssi error \((error as NSError).code)") } else { readings.append((clock.now, RSSI.intValue)) }
    }
    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?) {
        log.append("disconnect \((error as NSError?)?.code ?? -1)")
        polling = false
    }
}
