import TestSupport
import CoreBluetoothReplay
import Foundation
import Testing

/// Filtered discovery accumulates, as on iOS: `discoverServices([A])` then `discoverServices([B])`
/// leaves both A and B in `peripheral.services` (Apple, `CBPeripheral.services`: "A list of a
/// peripheral's discovered services"), and likewise for `discoverCharacteristics(_:for:)`. Services
/// stay in the order they were discovered (new ones appended); characteristics in handle order.
/// Against Captures/heart-rate-healthy.btsnoop, whose database (Scripts/make_sample_captures.py)
/// has 1800, 1801, 180D, 180F and 180A, and 2A29, 2A24, 2A27, 2A26 in 180A.
@Suite struct FilteredDiscoveryTests {
    final class App: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
        var central: CBCentralManager!
        var peripheral: CBPeripheral?
        var servicesAfter: [[String]] = []
        var characteristicsAfter: [[String]] = []
        var heartRateService: CBService?
        var deviceInformation: CBService?

        init(replay: CBReplay) {
            super.init()
            central = replay.activate { CBCentralManager(delegate: self, queue: nil) }
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            guard central.state == .poweredOn else { return }
            central.scanForPeripherals(withServices: [CBUUID(string: "180D")])
        }
        func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
            guard self.peripheral == nil else { return }
            self.peripheral = peripheral
            central.stopScan()
            central.connect(peripheral)
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            peripheral.delegate = self
            peripheral.discoverServices([CBUUID(string: "180A")])
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
            let uuids = peripheral.services?.map(\.uuid.uuidString) ?? []
            servicesAfter.append(uuids)
            switch servicesAfter.count {
            case 1:
                deviceInformation = peripheral.services?.first
                peripheral.discoverServices([CBUUID(string: "180D")])
            case 2:
                heartRateService = peripheral.services?.first { $0.uuid == CBUUID(string: "180D") }
                if let s = deviceInformation { peripheral.discoverCharacteristics([CBUUID(string: "2A29")], for: s) }
            default: break
            }
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
            characteristicsAfter.append(service.characteristics?.map(\.uuid.uuidString) ?? [])
            switch characteristicsAfter.count {
            case 1: peripheral.discoverCharacteristics([CBUUID(string: "2A26")], for: service)
            case 2: peripheral.discoverCharacteristics(nil, for: service)
            case 3: peripheral.discoverServices(nil)
            default: break
            }
        }
    }

    @Test func filteredDiscoveriesAddToWhatWasFoundBefore() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = App(replay: replay)
        replay.run(for: 30)
        // Services in discovery order, as iOS keeps them: 180A (found first) stays first, 180D
        // (0x000C-0x0011, lower handles) is appended after it.
        #expect(app.servicesAfter.prefix(2) == [["180A"], ["180A", "180D"]])
        #expect(app.characteristicsAfter == [["2A29"], ["2A29", "2A26"], ["2A29", "2A24", "2A27", "2A26"]])
        // An unfiltered discovery afterwards finds everything and keeps the objects the app holds.
        #expect(app.servicesAfter.last == ["180A", "180D", "180F"])   // 1800 and 1801 hidden, as on iOS
        let services = app.peripheral?.services ?? []
        #expect(services.contains { $0 === app.deviceInformation })
        #expect(services.contains { $0 === app.heartRateService })
        #expect(app.deviceInformation?.characteristics?.count == 4)
    }
}
