import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// `.notifyEncryptionRequired` and `.indicateEncryptionRequired` (Apple: the characteristic
/// notifies, or indicates, to trusted devices only) are CoreBluetooth's own bits, above the
/// eight of a characteristic declaration's Characteristic Properties (Core v5.4 Vol 3 Part G
/// 3.3.1.1): on the air they are the Notify (0x10) and Indicate (0x20) bits, so a central sees a
/// characteristic it can subscribe to, and the system adds its CCCD.
@Suite struct EncryptedNotifyPropertiesTests {
    final class SecureServer: NSObject, CBPeripheralManagerDelegate {
        var manager: CBPeripheralManager!
        var subscribed: [String] = []
        override init() {
            super.init()
            manager = CBPeripheralManager(delegate: self, queue: nil)
        }
        func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
            guard peripheral.state == .poweredOn else { return }
            let s = CBMutableService(type: CBUUID(string: "FFF0"), primary: true)
            s.characteristics = [
                CBMutableCharacteristic(type: CBUUID(string: "FFF1"), properties: [.read, .notifyEncryptionRequired], value: nil,
                                        permissions: [.readEncryptionRequired]),
                CBMutableCharacteristic(type: CBUUID(string: "FFF2"), properties: [.indicateEncryptionRequired], value: nil,
                                        permissions: [.readEncryptionRequired]),
            ]
            peripheral.add(s)
            peripheral.startAdvertising(nil)
        }
        func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic) {
            subscribed.append(characteristic.uuid.uuidString)
        }
    }

    /// A remote central (role 0x01, ATT MTU 23) discovers the primary services (Read By Group
    /// Type, Vol 3 Part F 3.4.4.9) and FFF0's characteristics (Read By Type 0x2803): FFF1 at
    /// 0x000B/0x000C with properties 0x12 (read, notify) and its CCCD at 0x000D, FFF2 at
    /// 0x000E/0x000F with 0x20 (indicate); then it turns FFF1's notifications on.
    @Test func theDeclarationCarriesTheNotifyAndIndicateBits() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x41, role: 1, peer: [0x4F, 0x9A, 0x11, 0x22, 0x33, 0xAA])
        func served(_ ms: Int64, _ req: [UInt8], _ rsp: [UInt8]?) { c.served(ms, handle: 0x41, req, rsp) }
        served(150, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28],
               [0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x00, 0x18, 0x06, 0x00, 0x09, 0x00, 0x01, 0x18, 0x0A, 0x00, 0x10, 0x00, 0xF0, 0xFF])
        served(200, [0x08, 0x0A, 0x00, 0x10, 0x00, 0x03, 0x28],
               [0x09, 0x07, 0x0B, 0x00, 0x12, 0x0C, 0x00, 0xF1, 0xFF, 0x0E, 0x00, 0x20, 0x0F, 0x00, 0xF2, 0xFF])
        served(250, [0x12, 0x0D, 0x00, 0x01, 0x00], [0x13])
        c.disconnectionComplete(1_000, handle: 0x41, reason: 0x13)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("encrypted-notify-\(UUID().uuidString).btsnoop").path
        try c.write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { SecureServer() }
        replay.run(for: 2)
        #expect(replay.localServerDriver.divergences.isEmpty, "\(replay.localServerDriver.divergences)")
        #expect(replay.localServerDriver.servers.first?.compared == 3)
        #expect(app.subscribed == ["FFF1"])
    }
}
