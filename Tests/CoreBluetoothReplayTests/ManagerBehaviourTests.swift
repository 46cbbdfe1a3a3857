import BLECore
import BLEReplay
import CoreBluetoothReplay
import Foundation
import Testing

/// A minimal delegate that records callbacks with their virtual times.
final class Recorder: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    var log: [String] = []
    var central: CBCentralManager!
    var peripheral: CBPeripheral?
    var errors: [Error] = []
    var restored: [String: Any]?
    var values: [Data] = []
    let clock: CBReplayClock
    let autoConnect: Bool
    /// Only the peripheral advertising this name (the captures hold other devices nearby).
    let target: String

    init(replay: CBReplay, target: String, restoreIdentifier: String? = nil, autoConnect: Bool = true) {
        clock = replay.clock
        self.autoConnect = autoConnect
        self.target = target
        super.init()
        let options: [String: Any]? = restoreIdentifier.map { [CBCentralManagerOptionRestoreIdentifierKey: $0] }
        central = replay.activate { CBCentralManager(delegate: self, queue: nil, options: options) }
    }

    func note(_ s: String) { log.append("\(clock.now) \(s)") }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        note("state \(central.state)")
        if central.state == .poweredOn, autoConnect {
            if let p = peripheral { central.connect(p) } else { central.scanForPeripherals(withServices: nil) }
        }
    }
    func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        note("restore")
        restored = dict
        peripheral = (dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral])?.first
        peripheral?.delegate = self
    }
    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
        guard self.peripheral == nil, advertisementData[CBAdvertisementDataLocalNameKey] as? String == target else { return }
        note("discover \(advertisementData[CBAdvertisementDataLocalNameKey] as? String ?? "?") \(RSSI)")
        self.peripheral = peripheral
        central.stopScan()
        central.connect(peripheral)
    }
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        note("connect")
        peripheral.delegate = self
        peripheral.discoverServices(nil)
    }
    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) {
        note("fail \((error as? CBError)?.code.rawValue ?? -1)")
        if let error { errors.append(error) }
        central.connect(peripheral)
    }
    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        note("disconnect \((error as? CBError)?.code.rawValue ?? -1)")
        if let error { errors.append(error) }
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        note("services \(peripheral.services?.map(\.uuid.uuidString).joined(separator: ",") ?? "")")
        for s in peripheral.services ?? [] { peripheral.discoverCharacteristics(nil, for: s) }
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        for c in service.characteristics ?? [] where c.properties.contains(.notify) { peripheral.setNotifyValue(true, for: c) }
    }
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        if let v = characteristic.value { values.append(v) }
    }
}

@Suite struct ManagerBehaviourTests {
    @Test func failedToEstablishReachesTheAppAsConnectionFailed() throws {
        let replay = try CBReplay(capture: Samples.capture("failed-to-establish.btsnoop"))
        let r = Recorder(replay: replay, target: "Acme Scale")
        replay.run(for: 30)
        let codes = r.errors.compactMap { ($0 as? CBError)?.code }
        #expect(codes == [.connectionFailed, .connectionFailed])
        #expect(r.errors.compactMap { ($0 as? CBError)?.hciReason } == [0x3E, 0x3E])
        // The third attempt behaves like the recorded successful connection.
        #expect(r.log.contains { $0.hasSuffix(" connect") })
        // Each failure comes the recorded time after its link came up (LE Connection Complete -> 0x3E).
        let recorded = replay.session.connections.filter { $0.isEstablished && $0.disconnect?.reason.rawValue == 0x3E }.map { $0.disconnect!.time }
        let simulated = replay.world.host.allLinks.filter { $0.endReason?.rawValue == 0x3E }.map { $0.relative($0.endedAt!) }
        #expect(simulated == recorded)
    }

    @Test func poweringOffDropsLinksSilentlyAndPoweringOnReconnects() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let r = Recorder(replay: replay, target: "Pulse HRM")
        replay.run(for: 5)
        let p = try #require(r.peripheral)
        #expect(p.state == .connected)
        replay.setState(.poweredOff)
        replay.run(for: 1)
        #expect(r.central.state == .poweredOff)
        #expect(p.state == .disconnected)
        #expect(!r.log.contains { $0.contains("disconnect") })
        replay.setState(.unauthorized)
        replay.run(for: 1)
        #expect(r.central.state == .unauthorized)
        replay.setState(.poweredOn)
        replay.run(for: 5)
        #expect(p.state == .connected)
        #expect(r.log.filter { $0.hasSuffix(" connect") }.count == 2)
        #expect(r.log.contains { $0.hasSuffix("state poweredOff") } && r.log.contains { $0.hasSuffix("state unauthorized") })
    }

    @Test func stateRestorationHandsBackTheConnectedPeripheral() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let first = Recorder(replay: replay, target: "Pulse HRM", restoreIdentifier: "hr")
        replay.run(for: 10)
        let before = try #require(first.peripheral)
        #expect(before.state == .connected)
        let valuesBefore = first.values.count
        replay.relaunch()
        replay.run(for: 2)
        #expect(first.values.count == valuesBefore)   // the terminated app hears nothing
        let second = Recorder(replay: replay, target: "Pulse HRM", restoreIdentifier: "hr", autoConnect: false)
        replay.run(for: 1)
        #expect(second.log.first?.hasSuffix("restore") == true)
        #expect(second.log.dropFirst().first?.hasSuffix("state poweredOn") == true)
        let restored = try #require(second.peripheral)
        #expect(restored.identifier == before.identifier)
        #expect(restored !== before)
        #expect(restored.state == .connected)
        restored.discoverServices(nil)
        replay.run(for: 10)
        #expect(second.values.count > 3)   // resubscribed: notifications flow again
    }

    @Test func scanReportsAdvertisementDataAndHonoursTheServiceFilter() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-supervision-timeout.btsnoop"))
        final class Scanner: NSObject, CBCentralManagerDelegate {
            var seen: [(String, [String: Any])] = []
            var filter: [CBUUID]?
            var duplicates = false
            func centralManagerDidUpdateState(_ central: CBCentralManager) {
                if central.state == .poweredOn {
                    central.scanForPeripherals(withServices: filter, options: [CBCentralManagerScanOptionAllowDuplicatesKey: duplicates])
                }
            }
            func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
                seen.append((peripheral.identifier.uuidString, advertisementData))
            }
        }
        let s = Scanner()
        s.filter = [CBUUID(string: "180D")]
        let m = replay.activate { CBCentralManager(delegate: s, queue: nil) }
        replay.run(for: 3)
        #expect(m.isScanning)
        #expect(s.seen.count == 1)   // duplicates filtered
        let data = try #require(s.seen.first?.1)
        #expect((data[CBAdvertisementDataServiceUUIDsKey] as? [CBUUID])?.contains(CBUUID(string: "180D")) == true)
        #expect(data[CBAdvertisementDataLocalNameKey] as? String == "Pulse HRM")
        #expect((data[CBAdvertisementDataIsConnectable] as? NSNumber)?.boolValue == true)
    }

    @Test func wallClockModeFollowsTheWallClock() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let r = Recorder(replay: replay, target: "Pulse HRM")
        replay.runWallClock(for: 5, speed: 50)   // 5 virtual seconds in about 0.1 s
        #expect(replay.clock.now == 5)
        #expect(r.peripheral?.state == .connected)
    }
}
