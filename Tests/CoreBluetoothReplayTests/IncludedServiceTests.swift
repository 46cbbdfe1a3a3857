import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// A published service that includes another (`CBMutableService.includedServices`) carries an
/// include declaration right after its service declaration (Core v5.4 Vol 3 Part G 3.2), which
/// takes a handle and is what a central's Find Included Services (Read By Type 0x2802, 4.5.1)
/// finds.
@Suite struct IncludedServiceTests {
    /// 0x000A Battery (180F), 0x000B its 2A19 declaration, 0x000C the value (cached 0x64);
    /// 0x000D FFF0, 0x000E the include declaration of 180F, 0x000F the FFF1 declaration, 0x0010
    /// its value (dynamic, read).
    final class IncludingServer: NSObject, CBPeripheralManagerDelegate {
        var manager: CBPeripheralManager!
        var reads: [String] = []
        var battery: CBMutableService?
        override init() {
            super.init()
            manager = CBPeripheralManager(delegate: self, queue: nil)
        }
        func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
            guard peripheral.state == .poweredOn else { return }
            let battery = CBMutableService(type: CBUUID(string: "180F"), primary: true)
            self.battery = battery
            battery.characteristics = [CBMutableCharacteristic(type: CBUUID(string: "2A19"), properties: [.read], value: Data([0x64]),
                                                               permissions: [.readable])]
            peripheral.add(battery)
            let outer = CBMutableService(type: CBUUID(string: "FFF0"), primary: true)
            outer.includedServices = [battery]
            outer.characteristics = [CBMutableCharacteristic(type: CBUUID(string: "FFF1"), properties: [.read], value: nil,
                                                             permissions: [.readable])]
            peripheral.add(outer)
            peripheral.startAdvertising(nil)
        }
        func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
            reads.append(request.characteristic.uuid.uuidString)
            request.value = Data([0x01])
            peripheral.respond(to: request, withResult: .success)
        }
    }

    /// A remote central (role 0x01) looks for FFF0's included services (Read By Type 0x2802 over
    /// 0x000D-0x0010: one 8-octet entry, handle 0x000E, range 0x000A-0x000C, UUID 180F), then
    /// reads FFF1's value at 0x0010, as the recorded phone answered.
    @Test func anIncludeDeclarationFollowsTheServiceDeclaration() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x41, role: 1, peer: [0x4F, 0x9A, 0x11, 0x22, 0x33, 0x99])
        c.att(150, handle: 0x41, [0x08, 0x0D, 0x00, 0x10, 0x00, 0x02, 0x28], received: true)
        c.att(152, handle: 0x41, [0x09, 0x08, 0x0E, 0x00, 0x0A, 0x00, 0x0C, 0x00, 0x0F, 0x18], received: false)
        c.att(200, handle: 0x41, [0x0A, 0x10, 0x00], received: true)
        c.att(202, handle: 0x41, [0x0B, 0x01], received: false)
        c.disconnectionComplete(1_000, handle: 0x41, reason: 0x13)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("include-\(UUID().uuidString).btsnoop").path
        try c.write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { IncludingServer() }
        replay.run(for: 2)
        #expect(replay.localServerDriver.divergences.isEmpty, "\(replay.localServerDriver.divergences)")
        #expect(replay.localServerDriver.servers.first?.compared == 2)
        #expect(app.reads == ["FFF1"])
    }

    /// Removing the included service leaves the including one where it was: FFF1's value stays
    /// at 0x0010 (the include declaration's slot becomes a gap, as the removed service's handles
    /// do), so the same central's read still reaches it.
    @Test func removingTheIncludedServiceMovesNothing() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x41, role: 1, peer: [0x4F, 0x9A, 0x11, 0x22, 0x33, 0x9A])
        c.att(200, handle: 0x41, [0x0A, 0x10, 0x00], received: true)
        c.att(202, handle: 0x41, [0x0B, 0x01], received: false)
        c.disconnectionComplete(1_000, handle: 0x41, reason: 0x13)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("include-removed-\(UUID().uuidString).btsnoop").path
        try c.write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { IncludingServer() }
        replay.run(for: 0.05)
        let battery = try #require(app.battery)
        app.manager.remove(battery)
        replay.run(for: 2)
        #expect(replay.localServerDriver.divergences.isEmpty, "\(replay.localServerDriver.divergences)")
        #expect(app.reads == ["FFF1"])
    }
}
