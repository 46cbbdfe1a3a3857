import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// A non-connectable advertiser as an iOS app meets it (Docs/replay.md "CoreBluetoothReplay").
/// Not an iBeacon (iOS shows no pure iBeacon to CoreBluetooth at all: IBeaconVisibilityTests):
/// a tag that sends ADV_NONCONN_IND with its name and Nordic (0x0059) manufacturer data, beside
/// a connectable heart-rate sensor. LE Advertising Reports (Core v5.4 Vol 4 Part E 7.7.65.2)
/// every 100 ms from 0 to 900 ms:
///
///     sensor C4:7A:3B:12:9E:51  ADV_IND (0x00)          02 01 06 | 03 03 0D 18 | 06 09 "Pulse"   -60 dBm
///     tag    D1:00:00:00:00:07  ADV_NONCONN_IND (0x03)  02 01 04 | 04 09 "Tag" | 05 FF 59 00 01 02  -74 dBm
@Suite struct NonConnectableAdvertiserTests {
    static let sensor: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]
    static let tag: [UInt8] = [0xD1, 0x00, 0x00, 0x00, 0x00, 0x07]
    static let sensorIdentifier = "00000000-0000-4000-8000-C47A3B129E51"
    static let tagIdentifier = "00000000-0000-4000-8000-D10000000007"

    static func capture() -> SpecCapture {
        var c = SpecCapture()
        func named(_ s: String) -> [UInt8] { let n = Array(s.utf8); return [UInt8(n.count + 1), 0x09] + n }
        for ms in stride(from: Int64(0), through: 900, by: 100) {
            c.advertisingReport(ms, eventType: 0x00, address: sensor, [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18] + named("Pulse"))
            c.advertisingReport(ms + 3, eventType: 0x03, address: tag,
                                [0x02, 0x01, 0x04] + named("Tag") + [0x05, 0xFF, 0x59, 0x00, 0x01, 0x02], rssi: -74)
        }
        return c
    }

    static func replay() throws -> CBReplay {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nonconn-\(UUID().uuidString).btsnoop").path
        try capture().write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try CBReplay(capture: path)
    }

    final class Scanner: NSObject, CBCentralManagerDelegate {
        let clock: CBReplayClock
        var filter: [CBUUID]?
        var seen: [(id: String, data: [String: Any], rssi: Int)] = []
        var log: [String] = []
        var central: CBCentralManager!

        init(replay: CBReplay, filter: [CBUUID]?) {
            clock = replay.clock
            self.filter = filter
            super.init()
            central = replay.activate { CBCentralManager(delegate: self, queue: nil) }
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            if central.state == .poweredOn { central.scanForPeripherals(withServices: filter) }
        }
        func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
            seen.append((peripheral.identifier.uuidString, advertisementData, RSSI.intValue))
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) { log.append("\(clock.now) connect") }
        func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) { log.append("\(clock.now) fail") }
        func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
            log.append("\(clock.now) disconnect \(error.map { "\($0)" } ?? "nil")")
        }
    }

    @Test func anUnfilteredScanReportsTheTagAsNotConnectable() throws {
        let replay = try Self.replay()
        let s = Scanner(replay: replay, filter: nil)
        replay.run(for: 3)
        #expect(s.seen.map(\.id).sorted() == [Self.sensorIdentifier, Self.tagIdentifier])   // once each
        let tag = try #require(s.seen.first { $0.id == Self.tagIdentifier })
        #expect((tag.data[CBAdvertisementDataIsConnectable] as? NSNumber)?.boolValue == false)
        #expect(tag.rssi == -74)
        #expect(tag.data[CBAdvertisementDataLocalNameKey] as? String == "Tag")
        #expect(tag.data[CBAdvertisementDataServiceUUIDsKey] == nil)
        #expect(tag.data[CBAdvertisementDataManufacturerDataKey] as? Data == Data([0x59, 0x00, 0x01, 0x02]))
        // The sensor is connectable.
        let sensor = try #require(s.seen.first { $0.id == Self.sensorIdentifier })
        #expect((sensor.data[CBAdvertisementDataIsConnectable] as? NSNumber)?.boolValue == true)
    }

    @Test func aServiceFilterExcludesTheTag() throws {
        let replay = try Self.replay()
        let s = Scanner(replay: replay, filter: [CBUUID(string: "180D")])
        replay.run(for: 5)
        #expect(s.seen.map(\.id) == [Self.sensorIdentifier])
    }

    /// As on iOS, `connect` to a non-connectable peripheral does nothing until cancelled: no
    /// didConnect, no didFailToConnect, state `.connecting` for as long as the app waits;
    /// cancelling gives didDisconnectPeripheral with no error.
    @Test func connectingToTheTagWaitsUntilCancelled() throws {
        let replay = try Self.replay()
        let s = Scanner(replay: replay, filter: nil)
        replay.run(for: 3)
        let p = try #require(s.central.retrievePeripherals(withIdentifiers: [UUID(uuidString: Self.tagIdentifier)!]).first)
        s.central.stopScan()
        s.central.connect(p)
        replay.run(for: 600)
        #expect(p.state == .connecting)
        #expect(s.log.isEmpty)
        #expect(replay.world.host.allLinks.isEmpty)
        s.central.cancelPeripheralConnection(p)
        replay.run(for: 1)
        #expect(p.state == .disconnected)
        #expect(s.log == ["603.0 disconnect nil"])
    }
}
