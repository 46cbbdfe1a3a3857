import CoreBluetoothReplay
import Foundation
import Testing

/// CoreBluetooth runs a peripheral's commands one at a time in the order the app made them
/// (Atomic Object, "Exploring iOS Core Bluetooth: Read Requests", a sniffer under back-to-back
/// `readValue` calls: "Core Bluetooth queues up the requests and makes them one at a time").
/// `setNotifyValue(_:for:)` on a characteristic whose descriptors the app never discovered is one
/// such command: finding the CCCD (Find Information) and writing it both come before a read the
/// app asked for after it, so the delegate hears the notification state first. The replay sent
/// the read between the two (the write queued only once the Find Information came back), so
/// `didUpdateValueFor` came first and notifications started one request later.
/// heart-rate-healthy: 2A37 (notify, CCCD 0x000F), 2A38 (read, value 0x0011).
@Suite struct CommandOrderTests {
    final class App: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
        var central: CBCentralManager!
        var peripheral: CBPeripheral?
        var heard: [String] = []

        init(replay: CBReplay) {
            super.init()
            central = replay.activate { CBCentralManager(delegate: self, queue: nil) }
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            if central.state == .poweredOn { central.scanForPeripherals(withServices: [CBUUID(string: "180D")]) }
        }
        func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
            guard self.peripheral == nil else { return }
            self.peripheral = peripheral
            central.stopScan()
            central.connect(peripheral)
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            peripheral.delegate = self
            peripheral.discoverServices([CBUUID(string: "180D")])
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
            if let s = peripheral.services?.first { peripheral.discoverCharacteristics(nil, for: s) }
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
            let c = service.characteristics ?? []
            guard let measurement = c.first(where: { $0.uuid == CBUUID(string: "2A37") }),
                  let location = c.first(where: { $0.uuid == CBUUID(string: "2A38") }) else { return }
            peripheral.setNotifyValue(true, for: measurement)
            peripheral.readValue(for: location)
        }
        func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: Error?) {
            heard.append("notifying \(characteristic.uuid.uuidString) \(characteristic.isNotifying)")
        }
        func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
            if characteristic.uuid == CBUUID(string: "2A38") { heard.append("read 2A38 \(characteristic.value.map { Array($0) } ?? [])") }
        }
    }

    @Test func setNotifyValueRunsWholeBeforeTheNextCommand() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = App(replay: replay)
        replay.run(for: 5)
        #expect(app.heard == ["notifying 2A37 true", "read 2A38 [1]"])
        // On the air: Find Information over 2A37's descriptors, the CCCD write, then the read.
        let sent = replay.world.host.allLinks[0].log.filter(\.fromCentral).map(\.bytes)
        let tail = sent.filter { [0x04, 0x12, 0x0A].contains($0.first) }.suffix(3)
        #expect(tail.map { $0[0] } == [0x04, 0x12, 0x0A])
        #expect(tail.last == [0x0A, 0x11, 0x00])
    }
}
