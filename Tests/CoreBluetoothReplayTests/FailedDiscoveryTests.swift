import BLEReplay
import CoreBluetoothReplay
import Foundation
import Testing

/// Apple, `CBPeripheral.services`: "If you haven't yet called the discoverServices(_:) method to
/// discover the services of the peripheral, or if there was an error in doing so, the value of
/// this property is nil." A service discovery that fails (here the peripheral answers the Read
/// By Group Type Request with ATT 0x0E Unlikely Error) leaves `services` nil in
/// `peripheral(_:didDiscoverServices:)`, also when an earlier discovery had filled it.
/// heart-rate-healthy at MTU 247: the first discovery is two Read By Group Type Requests (one
/// answer holds the five services, then Attribute Not Found), so the second discovery's first
/// request is the third.
@Suite struct FailedDiscoveryTests {
    final class App: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
        var central: CBCentralManager!
        var peripheral: CBPeripheral?
        /// (error code or nil, services in the callback)
        var results: [(Int?, [String]?)] = []

        init(replay: CBReplay) {
            super.init()
            central = replay.activate { CBCentralManager(delegate: self, queue: nil) }
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            if central.state == .poweredOn { central.scanForPeripherals(withServices: nil) }
        }
        func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
            guard self.peripheral == nil, peripheral.name == "Pulse HRM" else { return }
            self.peripheral = peripheral
            central.stopScan()
            central.connect(peripheral)
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            peripheral.delegate = self
            peripheral.discoverServices(nil)
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
            results.append((error.map { ($0 as NSError).code }, peripheral.services?.map(\.uuid.uuidString)))
            if results.count == 1 { peripheral.discoverServices(nil) }
        }
    }

    @Test func aFailedServiceDiscoveryLeavesServicesNil() throws {
        var c = ReplayConfiguration()
        c.faults = [try FaultSpec(parsing: "att-error:0x0E@read-by-group-type-request#3")]
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"), configuration: c)
        let app = App(replay: replay)
        replay.run(for: 5)
        try #require(app.results.count == 2)
        #expect(app.results[0].0 == nil)
        #expect(app.results[0].1 == ["180D", "180F", "180A"])
        #expect(app.results[1].0 == 14)   // CBATTError.unlikelyError
        #expect(app.results[1].1 == nil)
    }
}
