import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// `.broadcast` and `.extendedProperties` on a local characteristic, which Apple does not allow
/// (`CBMutableCharacteristic.properties`): a declaration with them would promise a Server
/// Characteristic Configuration (2903) and a Characteristic Extended Properties descriptor
/// (2900, Core v5.4 Vol 3 Part G 3.3.1.1, 3.3.3.1) the system never publishes.
@Suite struct LocalExtendedPropertiesTests {
    /// FFD0 with FFD1 (read, extendedProperties) and FFD2 (read, broadcast), both dynamic:
    /// 0x000A service, 0x000B/0x000C FFD1 declaration/value, 0x000D/0x000E FFD2.
    final class App: NSObject, CBPeripheralManagerDelegate {
        var manager: CBPeripheralManager!
        override init() {
            super.init()
            manager = CBPeripheralManager(delegate: self, queue: nil)
        }
        func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
            guard peripheral.state == .poweredOn else { return }
            let s = CBMutableService(type: CBUUID(string: "FFD0"), primary: true)
            s.characteristics = [
                CBMutableCharacteristic(type: CBUUID(string: "FFD1"), properties: [.read, .extendedProperties], value: nil, permissions: [.readable]),
                CBMutableCharacteristic(type: CBUUID(string: "FFD2"), properties: [.read, .broadcast], value: nil, permissions: [.readable]),
            ]
            peripheral.add(s)
            peripheral.startAdvertising([CBAdvertisementDataLocalNameKey: "Ext"])
        }
    }

    /// A remote central (role 0x01) discovers the characteristics of 0x000A-0xFFFF at 200 ms
    /// (Read By Type Request 08 | 0A 00 | FF FF | 03 28) and their descriptors at 300 ms (Find
    /// Information Request 04 | 0B 00 | FF FF); the recording holds no answers.
    static func capture() throws -> String {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x41, role: 1, peer: [0x01, 0x23, 0x45, 0x67, 0x89, 0x5C])
        c.served(200, handle: 0x41, [0x08, 0x0A, 0x00, 0xFF, 0xFF, 0x03, 0x28], nil)
        c.served(300, handle: 0x41, [0x04, 0x0B, 0x00, 0xFF, 0xFF], nil)
        c.disconnectionComplete(2_000, handle: 0x41, reason: 0x13)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("local-ext-props-\(UUID().uuidString).btsnoop").path
        try c.write(to: path)
        return path
    }

    @Test func theDeclarationsLeaveOutWhatNoDescriptorBacks() throws {
        let path = try Self.capture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { App() }
        replay.run(for: 3)
        #expect(app.manager.isAdvertising)
        // ATT PDUs the local host sent (ACL handle+flags, length, L2CAP length, CID 0x0004).
        let sent = replay.world.trace.records.filter { $0.kind == .acl && $0.direction == .sent && $0.payload.count > 8 && $0.payload[6] == 0x04 }
            .map { Array($0.payload.dropFirst(8)) }
        // Read By Type Response: 09 | length 7 | 0B 00, properties 02 (read), value 0C 00, UUID D1 FF
        // | 0D 00, 02, 0E 00, D2 FF. Without the fix the octets were 0x82 and 0x03.
        #expect(sent.contains([0x09, 0x07, 0x0B, 0x00, 0x02, 0x0C, 0x00, 0xD1, 0xFF, 0x0D, 0x00, 0x02, 0x0E, 0x00, 0xD2, 0xFF]), "\(sent)")
        // Find Information Response: 05 | format 01 (16-bit) | 0B 00 2803, 0C 00 FFD1, 0D 00 2803,
        // 0E 00 FFD2: no 2900 or 2903.
        #expect(sent.contains([0x05, 0x01, 0x0B, 0x00, 0x03, 0x28, 0x0C, 0x00, 0xD1, 0xFF, 0x0D, 0x00, 0x03, 0x28, 0x0E, 0x00, 0xD2, 0xFF]), "\(sent)")
        let notes = replay.diagnostics.filter { $0.kind == .notAllowedLocally }.map(\.message)
        #expect(notes.count == 2)
        #expect(notes.first?.hasPrefix("characteristic FFD1 of service FFD0 was published with .extendedProperties") == true, "\(notes)")
        #expect(notes.last?.hasPrefix("characteristic FFD2 of service FFD0 was published with .broadcast") == true, "\(notes)")
    }
}
