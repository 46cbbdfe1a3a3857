import TestSupport
import CoreBluetoothReplay
import Foundation
import Testing

/// `peripheral(_:didModifyServices:)` on a Service Changed indication (Core v5.4 Vol 3 Part G
/// 7.1), on SpecCapture.serviceChanged(): the peripheral indicates 0x000D-0x0010 2.0 s after the
/// link comes up; 180D (0x000A-0x000D) and FFF0 (0x0010-0x0014) overlap it, 1800 and 1801 do not.
@Suite struct ServiceChangedTests {
    final class App: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
        let clock: CBReplayClock
        var central: CBCentralManager!
        var peripheral: CBPeripheral?
        var connectedAt: TimeInterval?
        var log: [String] = []
        var invalidated: [[String]] = []
        var servicesAfterModify: [String]?
        var rediscovered: [String]?
        var updates: [String] = []

        init(replay: CBReplay) {
            clock = replay.clock
            super.init()
            central = replay.activate { CBCentralManager(delegate: self, queue: nil) }
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            guard central.state == .poweredOn else { return }
            central.scanForPeripherals(withServices: nil)
        }
        func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
            guard self.peripheral == nil else { return }
            self.peripheral = peripheral
            central.stopScan()
            central.connect(peripheral)
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            connectedAt = clock.now
            peripheral.delegate = self
            peripheral.discoverServices(nil)
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
            let uuids = peripheral.services?.map(\.uuid.uuidString) ?? []
            if invalidated.isEmpty {
                log.append("services \(uuids.joined(separator: ","))")
                for s in peripheral.services ?? [] { peripheral.discoverCharacteristics(nil, for: s) }
            } else {
                rediscovered = uuids
            }
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
            log.append("characteristics of \(service.uuid.uuidString)")
        }
        func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
            updates.append(characteristic.uuid.uuidString)
        }
        func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) {
            log.append("\(((clock.now - (connectedAt ?? 0)) * 1000).rounded()) ms after didConnect: modified")
            invalidated.append(invalidatedServices.map(\.uuid.uuidString))
            servicesAfterModify = peripheral.services?.map(\.uuid.uuidString)
            peripheral.discoverServices(nil)
        }
    }

    @Test func theAppHearsDidModifyServicesWithTheOverlappingServicesAndRediscovers() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("service-changed-\(UUID().uuidString).btsnoop").path
        try SpecCapture.serviceChanged().write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = App(replay: replay)
        replay.run(for: 10)
        #expect(app.log.first == "services 180D,FFF0")   // 1800 and 1801 hidden, as on iOS
        #expect(app.invalidated == [["180D", "FFF0"]])
        // Invalidated services are gone from `services` when the delegate hears of it.
        #expect(app.servicesAfterModify == [])
        // The app rediscovers; the (recorded) database has them again.
        #expect(app.rediscovered == ["180D", "FFF0"])
        // The system consumes the indication: no didUpdateValueFor for 2A05.
        #expect(!app.updates.contains("2A05"))
        // It came at the recorded offset from the link's start (2.0 s), whatever the app did.
        let link = try #require(replay.world.host.allLinks.first)
        let indication = try #require(replay.world.trace.records.first { $0.kind == .acl && $0.payload.count > 8 && $0.payload[8] == 0x1D })
        #expect(indication.timestamp - replay.world.configuration.epoch - link.establishedAt == 2_000_000)
    }
}
