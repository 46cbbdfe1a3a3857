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
        var unsubscribed: [String] = []
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
        func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic) {
            unsubscribed.append(characteristic.uuid.uuidString)
        }
    }

    /// A remote central (role 0x01, ATT MTU 23) discovers the primary services (Read By Group
    /// Type, Vol 3 Part F 3.4.4.9) and FFF0's characteristics (Read By Type 0x2803): FFF1 at
    /// 0x000B/0x000C with properties 0x12 (read, notify) and its CCCD at 0x000D, FFF2 at
    /// 0x000E/0x000F with 0x20 (indicate) and its CCCD at 0x0010; then it turns FFF1's
    /// notifications and FFF2's indications on, and FFF1's notifications off again. `encrypts`:
    /// the link is encrypted first (HCI Encryption Change, Vol 4 Part E 7.7.8).
    ///
    /// Only trusted devices may turn them on ("only trusted devices can enable notifications /
    /// indications of the characteristic's value", Apple, `CBCharacteristicProperties`
    /// `.notifyEncryptionRequired`, `.indicateEncryptionRequired`): on a plain link an iPhone
    /// refuses both CCCD writes as it refuses a read of a `.readEncryptionRequired` value,
    /// Insufficient Authentication (0x05, Vol 3 Part F 3.4.1.1), which a central answers by
    /// pairing; turning notifications off needs no trust.
    static func run(encrypts: Bool) throws -> (CBReplay, SecureServer) {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x41, role: 1, peer: [0x4F, 0x9A, 0x11, 0x22, 0x33, 0xAA])
        func served(_ ms: Int64, _ req: [UInt8], _ rsp: [UInt8]?) { c.served(ms, handle: 0x41, req, rsp) }
        served(150, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28],
               [0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x00, 0x18, 0x06, 0x00, 0x09, 0x00, 0x01, 0x18, 0x0A, 0x00, 0x10, 0x00, 0xF0, 0xFF])
        served(200, [0x08, 0x0A, 0x00, 0x10, 0x00, 0x03, 0x28],
               [0x09, 0x07, 0x0B, 0x00, 0x12, 0x0C, 0x00, 0xF1, 0xFF, 0x0E, 0x00, 0x20, 0x0F, 0x00, 0xF2, 0xFF])
        if encrypts { c.evt(220, 0x08, [0x00, 0x41, 0x00, 0x01]) }
        served(250, [0x12, 0x0D, 0x00, 0x01, 0x00], encrypts ? [0x13] : [0x01, 0x12, 0x0D, 0x00, 0x05])
        served(300, [0x12, 0x10, 0x00, 0x02, 0x00], encrypts ? [0x13] : [0x01, 0x12, 0x10, 0x00, 0x05])
        served(350, [0x12, 0x0D, 0x00, 0x00, 0x00], [0x13])
        c.disconnectionComplete(1_000, handle: 0x41, reason: 0x13)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("encrypted-notify-\(UUID().uuidString).btsnoop").path
        try c.write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { SecureServer() }
        replay.run(for: 2)
        return (replay, app)
    }

    @Test func theDeclarationCarriesTheNotifyAndIndicateBits() throws {
        let (replay, app) = try Self.run(encrypts: true)
        #expect(replay.localServerDriver.divergences.isEmpty, "\(replay.localServerDriver.divergences)")
        #expect(replay.localServerDriver.servers.first?.compared == 5)
        #expect(app.subscribed == ["FFF1", "FFF2"])
        // FFF1 by the central's 0x0000; FFF2 when it disconnects.
        #expect(app.unsubscribed == ["FFF1", "FFF2"])
    }

    @Test func onAPlainLinkTheSystemRefusesTheSubscriptions() throws {
        let (replay, app) = try Self.run(encrypts: false)
        #expect(replay.localServerDriver.divergences.isEmpty, "\(replay.localServerDriver.divergences)")
        #expect(replay.localServerDriver.servers.first?.compared == 5)
        #expect(app.subscribed.isEmpty && app.unsubscribed.isEmpty)
    }
}
