import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// `CBCentralManagerScanOptionSolicitedServiceUUIDsKey` (Apple: "An array of service UUIDs that
/// you want to scan for. Specifying this scan option causes the central manager to also scan for
/// peripherals soliciting any of the services contained in the array."): a scan for services [A]
/// with solicited [S] reports the peripherals advertising A and those soliciting S (AD type 0x14,
/// List of 16-bit Service Solicitation UUIDs, Core Supplement Part A 1.10). The replay ignored the
/// option and reported only the ones advertising A.
/// Three advertisers (ADV_IND every 100 ms from 0 to 900 ms): a heart-rate sensor (180D), a watch
/// that solicits Current Time (1805) and a battery-only tag (180F).
@Suite struct SolicitedScanTests {
    static let sensor: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]
    static let watch: [UInt8] = [0xD1, 0x00, 0x00, 0x00, 0x00, 0x02]
    static let tag: [UInt8] = [0xD1, 0x00, 0x00, 0x00, 0x00, 0x03]

    static func capture() -> SpecCapture {
        var c = SpecCapture()
        func named(_ s: String) -> [UInt8] { let n = Array(s.utf8); return [UInt8(n.count + 1), 0x09] + n }
        for ms in stride(from: Int64(0), through: 900, by: 100) {
            c.advertisingReport(ms, eventType: 0x00, address: sensor, [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18] + named("Pulse"))
            c.advertisingReport(ms + 1, eventType: 0x00, address: watch, [0x02, 0x01, 0x06, 0x03, 0x14, 0x05, 0x18] + named("Watch"))
            c.advertisingReport(ms + 2, eventType: 0x00, address: tag, [0x02, 0x01, 0x06, 0x03, 0x03, 0x0F, 0x18] + named("Tag"))
        }
        return c
    }

    final class Scanner: NSObject, CBCentralManagerDelegate {
        let services: [CBUUID]?
        let options: [String: Any]?
        var central: CBCentralManager!
        var found: [String: [String: Any]] = [:]
        init(replay: CBReplay, services: [CBUUID]?, options: [String: Any]?) {
            self.services = services
            self.options = options
            super.init()
            central = replay.activate { CBCentralManager(delegate: self, queue: nil) }
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            if central.state == .poweredOn { central.scanForPeripherals(withServices: services, options: options) }
        }
        func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
            found[advertisementData[CBAdvertisementDataLocalNameKey] as? String ?? "?"] = advertisementData
        }
    }

    static func scan(_ services: [CBUUID]?, _ options: [String: Any]?) throws -> Scanner {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("solicited-\(UUID().uuidString).btsnoop").path
        try capture().write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let s = Scanner(replay: replay, services: services, options: options)
        replay.run(for: 3)
        return s
    }

    @Test func aSolicitedServiceAddsThePeripheralsSolicitingIt() throws {
        let s = try Self.scan([CBUUID(string: "180D")], [CBCentralManagerScanOptionSolicitedServiceUUIDsKey: [CBUUID(string: "1805")]])
        #expect(s.found.keys.sorted() == ["Pulse", "Watch"])
        #expect((s.found["Watch"]?[CBAdvertisementDataSolicitedServiceUUIDsKey] as? [CBUUID]) == [CBUUID(string: "1805")])
    }

    @Test func withoutTheOptionOnlyTheAdvertisedServiceMatches() throws {
        let s = try Self.scan([CBUUID(string: "180D")], nil)
        #expect(s.found.keys.sorted() == ["Pulse"])
    }

    @Test func anUnfilteredScanReportsEveryone() throws {
        let s = try Self.scan(nil, [CBCentralManagerScanOptionSolicitedServiceUUIDsKey: [CBUUID(string: "1805")]])
        #expect(s.found.keys.sorted() == ["Pulse", "Tag", "Watch"])
    }
}
