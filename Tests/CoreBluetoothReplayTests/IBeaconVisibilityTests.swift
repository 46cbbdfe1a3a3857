import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// iOS withholds iBeacon advertising from CoreBluetooth (since iOS 7; StackOverflow 28255475,
/// 41737833; `CBScanAdvertisement` in the source): a pure iBeacon is never discovered, and a
/// device that advertises something else besides is discovered without the iBeacon. The replay
/// reported the iBeacon like any manufacturer data.
///
/// Advertisers (LE Advertising Report, Core v5.4 Vol 4 Part E 7.7.65.2; every 100 ms from 0 to
/// 900 ms; iBeacon = `1A FF 4C 00 02 15` + proximity UUID E2C56DB5-DFFB-48D2-B060-D0F5A71096E0,
/// major 00 01, minor 00 07, measured power C5):
///
///     sensor    C4:7A:3B:12:9E:51  ADV_IND         02 01 06 | 03 03 0D 18 | 06 09 "Pulse"
///     beacon    D0:00:00:00:00:01  ADV_NONCONN_IND 02 01 06 | iBeacon                    (pure)
///     lock      D0:00:00:00:00:02  ADV_SCAN_IND    02 01 06 | iBeacon
///                                  SCAN_RSP        07 09 "Lock 7" | 03 03 0F 18
///     badge     D0:00:00:00:00:03  ADV_IND         iBeacon | 02 09 "B"
///                                  SCAN_RSP        05 FF 59 00 01 02                 (Nordic)
///     lookalike D0:00:00:00:00:04  ADV_NONCONN_IND 02 01 06 | 1A FF 59 00 02 15 ... (Nordic's
///                                  company, not Apple's: not an iBeacon to iOS)
@Suite struct IBeaconVisibilityTests {
    static let sensor: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]
    static let beacon: [UInt8] = [0xD0, 0x00, 0x00, 0x00, 0x00, 0x01]
    static let lock: [UInt8] = [0xD0, 0x00, 0x00, 0x00, 0x00, 0x02]
    static let badge: [UInt8] = [0xD0, 0x00, 0x00, 0x00, 0x00, 0x03]
    static let lookalike: [UInt8] = [0xD0, 0x00, 0x00, 0x00, 0x00, 0x04]
    /// heart-rate-healthy's pure iBeacon DE:AD:10:42:77:01 (ADV_NONCONN_IND).
    static let sampleBeacon = "00000000-0000-4000-8000-DEAD10427701"

    static let iBeaconPayload: [UInt8] = [0x02, 0x15,
        0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0,
        0x00, 0x01, 0x00, 0x07, 0xC5]
    /// Manufacturer Specific Data: Apple (0x004C), then the iBeacon payload.
    static let iBeacon: [UInt8] = [0x1A, 0xFF, 0x4C, 0x00] + iBeaconPayload
    static let flags: [UInt8] = [0x02, 0x01, 0x06]

    static func identifier(_ address: [UInt8]) -> String {
        "00000000-0000-4000-8000-" + address.map { String(format: "%02X", $0) }.joined()
    }

    static func capture() -> SpecCapture {
        var c = SpecCapture()
        func named(_ s: String) -> [UInt8] { let n = Array(s.utf8); return [UInt8(n.count + 1), 0x09] + n }
        for ms in stride(from: Int64(0), through: 900, by: 100) {
            c.advertisingReport(ms, eventType: 0x00, address: sensor, flags + [0x03, 0x03, 0x0D, 0x18] + named("Pulse"))
            c.advertisingReport(ms + 1, eventType: 0x03, address: beacon, flags + iBeacon, rssi: -70)
            c.advertisingReport(ms + 2, eventType: 0x02, address: lock, flags + iBeacon)
            c.advertisingReport(ms + 2, eventType: 0x04, address: lock, named("Lock 7") + [0x03, 0x03, 0x0F, 0x18])
            c.advertisingReport(ms + 3, eventType: 0x00, address: badge, iBeacon + named("B"))
            c.advertisingReport(ms + 3, eventType: 0x04, address: badge, [0x05, 0xFF, 0x59, 0x00, 0x01, 0x02])
            c.advertisingReport(ms + 4, eventType: 0x03, address: lookalike, flags + [0x1A, 0xFF, 0x59, 0x00] + iBeaconPayload)
        }
        return c
    }

    static func replay() throws -> CBReplay {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ibeacon-\(UUID().uuidString).btsnoop").path
        try capture().write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try CBReplay(capture: path)
    }

    final class Scanner: NSObject, CBCentralManagerDelegate {
        let services: [CBUUID]?
        let duplicates: Bool
        var central: CBCentralManager!
        var seen: [(id: String, data: [String: Any])] = []
        init(replay: CBReplay, services: [CBUUID]? = nil, duplicates: Bool = false) {
            self.services = services
            self.duplicates = duplicates
            super.init()
            central = replay.activate { CBCentralManager(delegate: self, queue: nil) }
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            if central.state == .poweredOn {
                central.scanForPeripherals(withServices: services, options: [CBCentralManagerScanOptionAllowDuplicatesKey: duplicates])
            }
        }
        func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
            seen.append((peripheral.identifier.uuidString, advertisementData))
        }
        func data(_ address: [UInt8]) -> [[String: Any]] {
            seen.filter { $0.id == IBeaconVisibilityTests.identifier(address) }.map(\.data)
        }
        /// Whether any dictionary reported carried Apple's iBeacon header in its manufacturer data.
        var sawIBeaconBytes: Bool {
            seen.contains { ($0.data[CBAdvertisementDataManufacturerDataKey] as? Data)?.starts(with: [0x4C, 0x00, 0x02, 0x15]) == true }
        }
    }

    @Test(arguments: [false, true]) func theSamplesPureIBeaconIsNeverDiscovered(duplicates: Bool) throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let s = Scanner(replay: replay, duplicates: duplicates)
        replay.run(for: 5)
        #expect(Set(s.seen.map(\.id)).count == 2)   // the sensor and the band
        #expect(!s.seen.contains { $0.id == Self.sampleBeacon })
        #expect(!s.sawIBeaconBytes)
        // The app never had a CBPeripheral for it, so the system knows none by its identifier.
        #expect(s.central.retrievePeripherals(withIdentifiers: [UUID(uuidString: Self.sampleBeacon)!]).isEmpty)
    }

    @Test(arguments: [false, true]) func aPureIBeaconIsNeverDiscoveredAndTheOthersLoseTheirs(duplicates: Bool) throws {
        let replay = try Self.replay()
        let s = Scanner(replay: replay, duplicates: duplicates)
        replay.run(for: 3)
        #expect(Set(s.seen.map(\.id)) == Set([Self.sensor, Self.lock, Self.badge, Self.lookalike].map(Self.identifier)))
        #expect(s.data(Self.beacon).isEmpty)
        #expect(!s.sawIBeaconBytes)
        if duplicates {
            #expect(s.data(Self.lock).count >= 5)   // every event judged, none with the iBeacon
        } else {
            #expect(s.seen.count == 4)
        }
    }

    /// iBeacon in the advertisement, a name and a service in the scan response: discovered with
    /// the name and the service, no manufacturer data, not connectable (ADV_SCAN_IND).
    @Test func anIBeaconWithANameInItsScanResponseIsDiscoveredWithoutTheIBeacon() throws {
        let replay = try Self.replay()
        let s = Scanner(replay: replay)
        replay.run(for: 3)
        let lock = try #require(s.data(Self.lock).first)
        #expect(lock[CBAdvertisementDataLocalNameKey] as? String == "Lock 7")
        #expect(lock[CBAdvertisementDataServiceUUIDsKey] as? [CBUUID] == [CBUUID(string: "180F")])
        #expect(lock[CBAdvertisementDataManufacturerDataKey] == nil)
        #expect((lock[CBAdvertisementDataIsConnectable] as? NSNumber)?.boolValue == false)
        #expect(Set(lock.keys) == [CBAdvertisementDataLocalNameKey, CBAdvertisementDataServiceUUIDsKey, CBAdvertisementDataIsConnectable])
    }

    /// iOS's dictionary holds one manufacturer data value: the device's other one, not the iBeacon.
    @Test func otherManufacturerDataTakesTheIBeaconsPlace() throws {
        let replay = try Self.replay()
        let s = Scanner(replay: replay)
        replay.run(for: 3)
        let badge = try #require(s.data(Self.badge).first)
        #expect(badge[CBAdvertisementDataManufacturerDataKey] as? Data == Data([0x59, 0x00, 0x01, 0x02]))
        #expect(badge[CBAdvertisementDataLocalNameKey] as? String == "B")
        #expect((badge[CBAdvertisementDataIsConnectable] as? NSNumber)?.boolValue == true)
    }

    /// The iBeacon layout under another company is not an iBeacon to iOS: shown as it is.
    @Test func theIBeaconLayoutUnderAnotherCompanyIsOrdinaryManufacturerData() throws {
        let replay = try Self.replay()
        let s = Scanner(replay: replay)
        replay.run(for: 3)
        let lookalike = try #require(s.data(Self.lookalike).first)
        #expect(lookalike[CBAdvertisementDataManufacturerDataKey] as? Data == Data([0x59, 0x00] + Self.iBeaconPayload))
    }

    @Test func aServiceFilterFindsTheLockWithoutItsIBeacon() throws {
        let replay = try Self.replay()
        let s = Scanner(replay: replay, services: [CBUUID(string: "180F")])
        replay.run(for: 3)
        #expect(s.seen.map(\.id) == [Self.identifier(Self.lock)])
        #expect(!s.sawIBeaconBytes)
    }

    @Test func retrievePeripheralsKnowsNoPureIBeacon() throws {
        let replay = try Self.replay()
        let s = Scanner(replay: replay)
        replay.run(for: 3)
        let ids = [Self.beacon, Self.lock].map { UUID(uuidString: Self.identifier($0))! }
        #expect(s.central.retrievePeripherals(withIdentifiers: ids).map(\.identifier.uuidString) == [Self.identifier(Self.lock)])
    }

    /// A scan kept across `relaunch` (for 180F: iOS restores a scan with services) reports to
    /// the restored manager through the same path: the lock, without its iBeacon.
    @Test func aRestoredScanStillWithholdsTheIBeacon() throws {
        let replay = try Self.replay()
        final class Restorer: NSObject, CBCentralManagerDelegate {
            var seen: [(id: String, data: [String: Any])] = []
            var restored = false
            func centralManagerDidUpdateState(_ central: CBCentralManager) {}
            func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) { restored = true }
            func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
                seen.append((peripheral.identifier.uuidString, advertisementData))
            }
        }
        let first = Restorer()
        let m = replay.activate { CBCentralManager(delegate: first, queue: nil, options: [CBCentralManagerOptionRestoreIdentifierKey: "scan"]) }
        replay.run(for: 0.01)
        m.scanForPeripherals(withServices: [CBUUID(string: "180F")], options: [CBCentralManagerScanOptionAllowDuplicatesKey: true])
        replay.run(for: 0.3)
        replay.relaunch()
        let second = Restorer()
        let restored = replay.activate { CBCentralManager(delegate: second, queue: nil, options: [CBCentralManagerOptionRestoreIdentifierKey: "scan"]) }
        replay.run(for: 0.5)
        #expect(second.restored)
        #expect(restored.isScanning)
        #expect(!second.seen.isEmpty)
        #expect(Set((first.seen + second.seen).map(\.id)) == [Self.identifier(Self.lock)])
        #expect(second.seen.allSatisfy { $0.data[CBAdvertisementDataManufacturerDataKey] == nil && $0.data[CBAdvertisementDataLocalNameKey] as? String == "Lock 7" })
    }
}
