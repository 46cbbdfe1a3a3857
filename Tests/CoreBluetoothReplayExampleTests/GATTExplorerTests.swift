import CoreBluetoothReplay
import Foundation
import Testing

/// Examples/GATTExplorer against Captures/heart-rate-healthy.btsnoop. Known answers from the
/// recording (`blereplay gatt`): services 1800 1801 180D 180F 180A; 2A37 [notify] with CCCD
/// 0x000F; 2A38 Body Sensor Location = 01; 2A19 Battery Level = 5C [read, notify]; 2A29 "Acme
/// Sensors", 2A24 "HRM-200", 2A26 "2.1.0"; Server Rx MTU 247; advertised RSSI -56..-62 dBm;
/// notifications 06 xx (flags 0x06, 8-bit bpm).
@Suite struct GATTExplorerTests {
    @Test func discoversReadsAndSubscribesAsTheRecordingAllows() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = replay.activate { GATTExplorer(targetName: "Pulse HRM") }
        replay.run(for: 20)
        let device = try #require(app.device)
        #expect(device.state == .connected)
        #expect(app.discoveryComplete)

        let services = try #require(device.services)
        // iOS keeps 1800 and 1801 to itself.
        #expect(services.map(\.uuid) == ["180D", "180F", "180A"].map { CBUUID(string: $0) })
        #expect(services.allSatisfy { $0.isPrimary })
        #expect(services.contains { $0.uuid == GATTExplorer.deviceInformation })
        #expect(GATTExplorer.deviceInformation.uuidString == "180A")

        let hrs = try #require(services.first { $0.uuid == CBUUID(string: "180D") })
        let measurement = try #require(hrs.characteristics?.first { $0.uuid == CBUUID(string: "2A37") })
        #expect(measurement.properties.contains(.notify))
        #expect(!measurement.properties.contains(.read))
        #expect(measurement.isNotifying)
        #expect(measurement.service === hrs)
        #expect(measurement.descriptors?.map(\.uuid) == [GATTExplorer.cccd])

        #expect(app.values[CBUUID(string: "2A38")] == Data([0x01]))
        #expect(app.values[CBUUID(string: "2A19")] == Data([0x5C]))
        #expect(app.values[GATTExplorer.manufacturerName].map { String(decoding: $0, as: UTF8.self) } == "Acme Sensors")
        #expect(app.values[CBUUID(string: "2A24")] == Data("HRM-200".utf8))
        #expect(app.values[CBUUID(string: "2A26")] == Data("2.1.0".utf8))

        // The CCCD reads back as the NSNumber CoreBluetooth gives (1 = notifications on).
        #expect((app.descriptorValues["2A37/2902"] as? NSNumber)?.intValue == 1)
        #expect(app.notifying.contains(CBUUID(string: "2A37")))
        let beats = app.notifications[CBUUID(string: "2A37")] ?? []
        #expect(beats.count >= 10)
        #expect(beats.allSatisfy { $0.count == 2 && $0.first == 0x06 })

        // MTU 247 after the exchange iOS does before didConnect: 244 bytes per write without
        // response; 512 with response (longer values go as a long write).
        #expect(app.maxWriteWithResponse == 512)
        #expect(app.maxWriteWithoutResponse == 244)
        #expect(device.canSendWriteWithoutResponse)
        let rssi = try #require(app.rssi)
        #expect((-62 ... -56).contains(rssi.intValue))
    }

    @Test func uuidFormsCompareAsCoreBluetoothDoes() {
        let short = CBUUID(string: "2a37")
        let long = CBUUID(string: "00002A37-0000-1000-8000-00805F9B34FB")
        #expect(short == long)
        #expect(short.uuidString == "2A37")
        let custom = CBUUID(string: "7a3e0002-52c1-4b8e-9e4a-2f6c3b1d0e55")
        #expect(custom.uuidString == "7A3E0002-52C1-4B8E-9E4A-2F6C3B1D0E55")
        #expect(custom != short)
        #expect(CBUUID(string: CBUUIDClientCharacteristicConfigurationString).uuidString == "2902")
    }
}
