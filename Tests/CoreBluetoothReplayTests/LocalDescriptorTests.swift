import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// The app's own descriptors (Apple, `CBMutableDescriptor`: Characteristic User Description
/// 2901 with a String, Characteristic Presentation Format 2904 with a Data): published after the
/// characteristic's value (and the system's CCCD), read by a central as their bytes; a value of
/// another type is what iOS raises on in the initializer, and the replay traps.
@Suite struct LocalDescriptorTests {
    /// Core v5.4 Vol 3 Part G 3.3.3.5: format 0x04 (uint8), exponent 0, unit 0x27AD (percentage),
    /// namespace 0x01 (Bluetooth SIG), description 0x0000.
    static let format = Data([0x04, 0x00, 0xAD, 0x27, 0x01, 0x00, 0x00])

    final class DescribedServer: NSObject, CBPeripheralManagerDelegate {
        var manager: CBPeripheralManager!
        override init() {
            super.init()
            manager = CBPeripheralManager(delegate: self, queue: nil)
        }
        func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
            guard peripheral.state == .poweredOn else { return }
            let level = CBMutableCharacteristic(type: CBUUID(string: "FFF1"), properties: [.read], value: Data([0x64]), permissions: [.readable])
            level.descriptors = [
                CBMutableDescriptor(type: CBUUID(string: CBUUIDCharacteristicUserDescriptionString), value: "Level"),
                CBMutableDescriptor(type: CBUUID(string: CBUUIDCharacteristicFormatString), value: LocalDescriptorTests.format),
            ]
            let s = CBMutableService(type: CBUUID(string: "FFF0"), primary: true)
            s.characteristics = [level]
            peripheral.add(s)
            peripheral.startAdvertising(nil)
        }
    }

    /// 0x000A FFF0, 0x000B the declaration, 0x000C the value, 0x000D 2901, 0x000E 2904; a remote
    /// central (role 0x01) reads both descriptors (Read Request, Vol 3 Part F 3.4.4.3).
    @Test func theAppsDescriptorsAreReadAsTheirBytes() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x41, role: 1, peer: [0x4F, 0x9A, 0x11, 0x22, 0x33, 0x77])
        c.att(150, handle: 0x41, [0x0A, 0x0D, 0x00], received: true)
        c.att(152, handle: 0x41, [0x0B] + Array("Level".utf8), received: false)
        c.att(200, handle: 0x41, [0x0A, 0x0E, 0x00], received: true)
        c.att(202, handle: 0x41, [0x0B] + Array(Self.format), received: false)
        c.disconnectionComplete(1_000, handle: 0x41, reason: 0x13)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("descriptors-\(UUID().uuidString).btsnoop").path
        try c.write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { DescribedServer() }
        withExtendedLifetime(app) { replay.run(for: 2) }
        #expect(replay.localServerDriver.divergences.isEmpty, "\(replay.localServerDriver.divergences)")
        #expect(replay.localServerDriver.servers.first?.compared == 2)
    }

    @Test func aUserDescriptionThatIsNotAStringTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = CBMutableDescriptor(type: CBUUID(string: CBUUIDCharacteristicUserDescriptionString), value: Data("Level".utf8))
        }
    }

    @Test func aPresentationFormatThatIsNotDataTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = CBMutableDescriptor(type: CBUUID(string: CBUUIDCharacteristicFormatString), value: "uint8 percentage")
        }
    }
}
