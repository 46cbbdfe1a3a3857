import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// The system's Service Changed indication when the app adds or removes a service while a
/// central that configured Service Changed for indications is connected (Core v5.4 Vol 3 Part G
/// 7.1; Docs/peripheral.md "Service Changed").
@Suite struct LocalServiceChangedTests {
    /// Publishes FFA0 (FFA1: read, dynamic) at power-on: 0x000A service, 0x000B declaration,
    /// 0x000C value. At the central's first read of FFA1 it adds FFB0 (FFB1: read, dynamic),
    /// which goes after the last handle in use: 0x000D-0x000F; at the second it removes FFA0
    /// (0x000A-0x000C).
    final class ChangingServer: NSObject, CBPeripheralManagerDelegate {
        var manager: CBPeripheralManager!
        let a = CBMutableService(type: CBUUID(string: "FFA0"), primary: true)
        let b = CBMutableService(type: CBUUID(string: "FFB0"), primary: true)
        var reads = 0

        override init() {
            super.init()
            a.characteristics = [CBMutableCharacteristic(type: CBUUID(string: "FFA1"), properties: [.read], value: nil, permissions: [.readable])]
            b.characteristics = [CBMutableCharacteristic(type: CBUUID(string: "FFB1"), properties: [.read], value: nil, permissions: [.readable])]
            manager = CBPeripheralManager(delegate: self, queue: nil)
        }

        func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
            guard peripheral.state == .poweredOn else { return }
            peripheral.add(a)
            peripheral.startAdvertising([CBAdvertisementDataLocalNameKey: "Changing"])
        }

        func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
            reads += 1
            request.value = Data([UInt8(reads)])
            peripheral.respond(to: request, withResult: .success)
            if reads == 1 { peripheral.add(b) }
            if reads == 2 { peripheral.remove(a) }
        }
    }

    /// A remote central (LE Connection Complete role 0x01, Vol 4 Part E 7.7.65.1) connects at
    /// 100 ms; `indications` true: it writes Service Changed's CCCD (0x0009) to 02 00 at 200 ms
    /// (Write Request 12 | 09 00 | 02 00; Part G 3.3.3.3 bit 1 indication); it reads FFA1's value
    /// (Read Request 0A | 0C 00) at 1 s and 2 s, and disconnects at 5 s (0x13).
    static func capture(indications: Bool) throws -> String {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x41, role: 1, peer: [0x10, 0x32, 0x54, 0x76, 0x98, 0x5A])
        if indications { c.served(200, handle: 0x41, [0x12, 0x09, 0x00, 0x02, 0x00], [0x13]) }
        c.served(1_000, handle: 0x41, [0x0A, 0x0C, 0x00], [0x0B, 0x01])
        c.served(2_000, handle: 0x41, [0x0A, 0x0C, 0x00], [0x0B, 0x02])
        c.disconnectionComplete(5_000, handle: 0x41, reason: 0x13)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("local-service-changed-\(UUID().uuidString).btsnoop").path
        try c.write(to: path)
        return path
    }

    /// The Handle Value Indications (0x1D) the local host sent, as ATT PDUs.
    static func indications(_ replay: CBReplay) -> [[UInt8]] {
        // ACL: handle+flags (2), length (2), L2CAP length (2), CID 0x0004 (2), then the ATT PDU.
        replay.world.trace.records.filter { $0.kind == .acl && $0.payload.count > 8 && $0.payload[6] == 0x04 && $0.payload[8] == 0x1D }
            .map { Array($0.payload.dropFirst(8)) }
    }

    /// Adding FFB0 indicates 1D | 08 00 (Service Changed's value) | 0D 00 0F 00 (its range);
    /// removing FFA0 indicates 1D | 08 00 | 0A 00 0C 00. The recorded central confirms each (it
    /// recorded none, so the replay's confirms for it) and goes on as recorded: it never
    /// rediscovers (the recording holds no discovery), so its second read still names 0x000C.
    @Test func addingAndRemovingServicesIndicatesTheAffectedRange() throws {
        let path = try Self.capture(indications: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { ChangingServer() }
        replay.run(for: 6)
        #expect(app.reads == 2)
        #expect(Self.indications(replay) == [[0x1D, 0x08, 0x00, 0x0D, 0x00, 0x0F, 0x00],
                                             [0x1D, 0x08, 0x00, 0x0A, 0x00, 0x0C, 0x00]])
        #expect(replay.localServerDriver.divergences.isEmpty, "\(replay.localServerDriver.divergences)")
    }

    /// A central that never configured Service Changed gets no indication.
    @Test func noIndicationWithoutTheCentralsConfiguration() throws {
        let path = try Self.capture(indications: false)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { ChangingServer() }
        replay.run(for: 6)
        #expect(app.reads == 2)
        #expect(Self.indications(replay).isEmpty)
    }
}
