import CoreBluetoothReplay
import Foundation
import Testing

/// A non-connectable advertiser as an iOS app meets it (Docs/replay.md "CoreBluetoothReplay"):
/// heart-rate-healthy's iBeacon DE:AD:10:42:77:01 (ADV_NONCONN_IND, RSSI -80 and -74 dBm).
@Suite struct NonConnectableAdvertiserTests {
    static let beaconIdentifier = "00000000-0000-4000-8000-DEAD10427701"

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

    @Test func anUnfilteredScanReportsTheBeaconAsNotConnectable() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let s = Scanner(replay: replay, filter: nil)
        replay.run(for: 3)
        #expect(Set(s.seen.map(\.id)).count == 3)   // the sensor, the band and the beacon, once each
        let beacon = try #require(s.seen.first { $0.id == Self.beaconIdentifier })
        #expect((beacon.data[CBAdvertisementDataIsConnectable] as? NSNumber)?.boolValue == false)
        #expect(beacon.rssi == -74)
        #expect(beacon.data[CBAdvertisementDataLocalNameKey] == nil)
        #expect(beacon.data[CBAdvertisementDataServiceUUIDsKey] == nil)
        // Apple (0x004C), iBeacon 02 15, proximity UUID E2C56DB5-DFFB-48D2-B060-D0F5A71096E0, major 1, minor 7, -59 dBm.
        let m = try #require(beacon.data[CBAdvertisementDataManufacturerDataKey] as? Data)
        #expect(m.map { String(format: "%02X", $0) }.joined() == "4C000215E2C56DB5DFFB48D2B060D0F5A71096E000010007C5")
        // The others are connectable.
        #expect(s.seen.filter { $0.id != Self.beaconIdentifier }.allSatisfy { ($0.data[CBAdvertisementDataIsConnectable] as? NSNumber)?.boolValue == true })
    }

    @Test func aServiceFilterExcludesTheBeacon() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let s = Scanner(replay: replay, filter: [CBUUID(string: "180D")])
        replay.run(for: 5)
        #expect(s.seen.map(\.id) == ["00000000-0000-4000-8000-C47A3B129E51"])
    }

    /// As on iOS, `connect` to a non-connectable peripheral does nothing until cancelled: no
    /// didConnect, no didFailToConnect, state `.connecting` for as long as the app waits;
    /// cancelling gives didDisconnectPeripheral with no error.
    @Test func connectingToTheBeaconWaitsUntilCancelled() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let s = Scanner(replay: replay, filter: nil)
        replay.run(for: 3)
        let p = try #require(s.central.retrievePeripherals(withIdentifiers: [UUID(uuidString: Self.beaconIdentifier)!]).first)
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
