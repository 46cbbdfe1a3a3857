import BLECore
import BLEDecode
import Testing
@testable import BLEReplay

/// A peripheral model's advertising, decoded for the simulated host (its service filter, the
/// name it knows): the advertising data and the scan response are two AD sequences, each
/// ending where its data ends or at an early terminator, a structure of length 0 (Core v5.4
/// Vol 3 Part C 11: "If the Length field is set to zero, then the Data field has zero octets.
/// This shall only occur to allow an early termination of the Advertising or Scan Response
/// data"). Decoded as one byte string, a padded advertisement's zeros ended the scan response too.
@Suite struct AdvertisingModelDecodingTests {
    /// Flags 0x06, then zero padding to the legacy 31 bytes, as many stacks send it.
    static let paddedAdvertising: [UInt8] = [0x02, 0x01, 0x06] + [UInt8](repeating: 0, count: 28)
    /// Complete 16-bit Service UUIDs 180D, Complete Local Name "Pulse".
    static let scanResponse: [UInt8] = [0x03, 0x03, 0x0D, 0x18, 0x06, 0x09] + Array("Pulse".utf8)

    @Test func aPaddedAdvertisementKeepsItsScanResponse() {
        let model = AdvertisingModel(advertisingData: Self.paddedAdvertising, scanResponse: Self.scanResponse,
                                     interval: 100_000, rssi: -60, connectable: true, synthesized: false, reportCount: 1)
        #expect(model.localName == "Pulse")
        #expect(model.serviceUUIDs == [BluetoothUUID(uint16: 0x180D)])
        #expect(model.decoded.firstData(of: .flags) == [0x06])
    }
}
