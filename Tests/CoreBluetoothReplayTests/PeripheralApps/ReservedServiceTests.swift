import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// A mistake iOS developers make: publishing their own Generic Access service (1800) to give the
/// device a name, beside their real one (Weight Scale 181D). The system keeps 1800 for itself (a
/// server holds one instance, Core v5.4 Vol 3 Part C 12): `didAdd` reports CBError 8
/// uuidNotAllowed for it and only the scale is published.
@Suite struct ReservedServiceTests {
    final class NamedScale: NSObject, CBPeripheralManagerDelegate {
        var manager: CBPeripheralManager!
        var added: [String] = []
        override init() {
            super.init()
            manager = CBPeripheralManager(delegate: self, queue: nil)
        }
        func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
            guard peripheral.state == .poweredOn else { return }
            let gap = CBMutableService(type: CBUUID(string: "1800"), primary: true)
            gap.characteristics = [CBMutableCharacteristic(type: CBUUID(string: "2A00"), properties: .read,
                                                           value: Data("Kitchen Scale".utf8), permissions: .readable)]
            let scale = CBMutableService(type: CBUUID(string: "181D"), primary: true)
            scale.characteristics = [CBMutableCharacteristic(type: CBUUID(string: "2A9D"), properties: .indicate, value: nil, permissions: .readable)]
            peripheral.add(gap)
            peripheral.add(scale)
            peripheral.startAdvertising([CBAdvertisementDataLocalNameKey: "Kitchen Scale"])
        }
        func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: Error?) {
            let e = error as NSError?
            added.append(service.uuid.uuidString + (e.map { " \($0.domain) \($0.code)" } ?? ""))
        }
    }

    /// The central discovers the primary services (Read By Group Type 0x2800, Vol 3 Part G
    /// 4.4.1) as the recorded iPhone answered: its own 1800 and 1801, then 181D at 0x000A-0x000D;
    /// nothing from 0x000E; and reads the Device Name, the system's.
    @Test func theSystemsOwnServiceIsNotPublishedAgain() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x41, role: 1, peer: [0x5A, 0x1E, 0x11, 0x22, 0x33, 0x44])
        func served(_ ms: Int64, _ req: [UInt8], _ rsp: [UInt8]?) { c.served(ms, handle: 0x41, req, rsp) }
        served(150, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28],
               [0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x00, 0x18, 0x06, 0x00, 0x09, 0x00, 0x01, 0x18, 0x0A, 0x00, 0x0D, 0x00, 0x1D, 0x18])
        served(200, [0x10, 0x0E, 0x00, 0xFF, 0xFF, 0x00, 0x28], [0x01, 0x10, 0x0E, 0x00, 0x0A])
        served(250, [0x0A, 0x03, 0x00], [0x0B] + Array("iPhone".utf8))
        c.disconnectionComplete(1_000, handle: 0x41, reason: 0x13)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("periph-reserved-\(UUID().uuidString).btsnoop").path
        try c.write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { NamedScale() }
        replay.run(for: 2)
        #expect(app.added == ["1800 CBErrorDomain 8", "181D"])
        #expect(replay.localServerDriver.divergences.isEmpty, "\(replay.localServerDriver.divergences)")
        // The app's database is laid out as the iPhone's was: the discovery answers are compared
        // (a second 1800 would have moved 181D and left them uncompared, LocalHandleMap).
        #expect(replay.localServerDriver.servers.first?.compared == 3)
        #expect(replay.localServerDriver.servers.first?.discoveryRelaidOut == 0)
        #expect(app.manager.isAdvertising)
    }
}
