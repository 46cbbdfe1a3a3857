import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// The advertisement dictionary decodes the advertising data and the scan response each on its
/// own, then joins them (Core v5.4 Vol 3 Part C 11: each PDU's data is its own sequence of AD
/// structures, ended by zero padding, the non-significant part). Decoding the two as one byte
/// string stopped at the advertising data's padding and lost the whole scan response.
///
///     sensor C4:7A:3B:12:9E:51  ADV_IND   02 01 06 | 03 03 0D 18 | 00 00 00 00 (padding)
///                               SCAN_RSP  06 09 "Pulse" | 02 0A 04 (TX power 4 dBm)
@Suite struct ScanAdvertisementDecodingTests {
    static let sensor: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]

    @Test func paddingInTheAdvertisingDataDoesNotHideTheScanResponse() throws {
        var c = SpecCapture()
        for ms in stride(from: Int64(0), through: 900, by: 100) {
            c.advertisingReport(ms, eventType: 0x00, address: Self.sensor, [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18, 0x00, 0x00, 0x00, 0x00])
            c.advertisingReport(ms, eventType: 0x04, address: Self.sensor, [0x06, 0x09] + Array("Pulse".utf8) + [0x02, 0x0A, 0x04])
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("padded-\(UUID().uuidString).btsnoop").path
        try c.write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        final class Scanner: NSObject, CBCentralManagerDelegate {
            var seen: [[String: Any]] = []
            func centralManagerDidUpdateState(_ central: CBCentralManager) {
                if central.state == .poweredOn { central.scanForPeripherals(withServices: nil) }
            }
            func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
                seen.append(advertisementData)
            }
        }
        let s = Scanner()
        let central = replay.activate { CBCentralManager(delegate: s, queue: nil) }
        replay.run(for: 3)
        #expect(central.isScanning)
        let data = try #require(s.seen.first)
        #expect(data[CBAdvertisementDataServiceUUIDsKey] as? [CBUUID] == [CBUUID(string: "180D")])
        #expect(data[CBAdvertisementDataLocalNameKey] as? String == "Pulse")
        #expect((data[CBAdvertisementDataTxPowerLevelKey] as? NSNumber)?.intValue == 4)
    }
}
