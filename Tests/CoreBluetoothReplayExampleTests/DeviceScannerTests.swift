import CoreBluetoothReplay
import Foundation
import Testing

/// Examples/DeviceScanner against Captures/heart-rate-healthy.btsnoop. The known answers are the
/// recording's: "Pulse HRM" (C4:7A:3B:12:9E:51) advertises services 180D 180F 180A and Nordic
/// (0x0059) manufacturer data 01 02 C8 00 in ADV_IND, its name and TX power 4 dBm in SCAN_RSP,
/// with RSSI -56..-62 dBm; "Fit Band 4" (5D:21:C8:0A:93:3E) advertises service FE9F and its name.
@Suite struct DeviceScannerTests {
    let recordedRSSI = -62 ... -56

    @Test func scansPicksTheAccessoryByNameAndManufacturerDataAndConnects() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = replay.activate { DeviceScanner(targetName: "Pulse HRM", companyID: 0x0059) }
        replay.run(for: 10)
        #expect(app.status == .connected)
        #expect(app.foundBy == "scan")
        #expect(!app.isScanning)
        let hrm = try #require(app.accessory)
        #expect(hrm.name == "Pulse HRM")
        #expect(hrm.state == .connected)
        #expect(app.savedIdentifier == hrm.identifier)
        #expect(hrm.identifier.uuidString.hasSuffix("C47A3B129E51"))

        let seen = try #require(app.sightings[hrm.identifier])
        // CoreBluetooth merges the advertisement and the scan response into one dictionary.
        #expect(seen.contains { $0.name == "Pulse HRM" && $0.companyID == 0x0059 && $0.txPower == 4 })
        #expect(seen.allSatisfy { recordedRSSI.contains($0.rssi) })
        #expect(seen.contains { $0.services == [CBUUID(string: "180D"), CBUUID(string: "180F"), CBUUID(string: "180A")] })
        #expect(seen.contains { $0.manufacturerData == Data([0x59, 0x00, 0x01, 0x02, 0xC8, 0x00]) && $0.companyID == 0x0059 })
        #expect(seen.contains { $0.txPower == 4 })
        #expect(seen.allSatisfy { $0.isConnectable })

        app.disconnect()
        replay.run(for: 2)
        #expect(app.status == .idle)
        #expect(app.disconnectError == nil)   // its own cancel: no error
        #expect(hrm.state == .disconnected)
    }

    @Test func reconnectsByIdentifierWithoutScanning() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let first = replay.activate { DeviceScanner(targetName: "Pulse HRM", companyID: 0x0059) }
        replay.run(for: 10)
        first.disconnect()
        replay.run(for: 2)
        let saved = try #require(first.savedIdentifier)

        // Next launch: the identifier from UserDefaults.
        let second = replay.activate { DeviceScanner(targetName: "Pulse HRM", companyID: 0x0059, savedIdentifier: saved) }
        replay.run(for: 5)
        #expect(second.foundBy == "retrieve")
        #expect(second.sightings.isEmpty)
        #expect(second.status == .connected)
        #expect(second.accessory?.identifier == saved)
    }

    @Test func findsAnAccessoryAnotherLaunchLeftConnected() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let first = replay.activate { DeviceScanner(targetName: "Pulse HRM", companyID: 0x0059) }
        replay.run(for: 10)
        #expect(first.status == .connected)
        replay.relaunch()   // the system keeps the link
        let second = replay.activate { DeviceScanner(targetName: "Pulse HRM", companyID: 0x0059) }
        replay.run(for: 1)
        #expect(second.foundBy == "retrieveConnected")
        #expect(second.status == .connected)   // didConnect for the existing link
        #expect(second.accessory?.state == .connected)
    }

    @Test func followsTheRadioStateAndAuthorization() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = replay.activate { DeviceScanner(targetName: "Pulse HRM", companyID: 0x0059) }
        replay.run(for: 10)
        let hrm = try #require(app.accessory)
        replay.setState(.poweredOff)
        replay.run(for: 1)
        #expect(app.status == .bluetoothOff)
        #expect(hrm.state == .disconnected)
        replay.setState(.unauthorized)
        replay.run(for: 1)
        #expect(app.status == .notAllowed(.denied))
        replay.authorization = .restricted
        replay.setState(.poweredOff)
        replay.setState(.unauthorized)
        replay.run(for: 1)
        #expect(app.status == .notAllowed(.restricted))
        replay.authorization = .allowedAlways
        replay.setState(.poweredOn)
        replay.run(for: 10)
        #expect(app.status == .connected)
        let authorization = replay.activate { CBManager.authorization }
        #expect(authorization == .allowedAlways)
    }

    @Test func aScanForAnAbsentAccessoryGivesUpAfterItsTimeoutOnTheVirtualClock() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = replay.activate { DeviceScanner(targetName: "Nobody", companyID: 0x0059, scanTimeout: 7.5) }
        replay.run(until: 7.499)
        #expect(app.isScanning)
        #expect(!app.scanTimedOut)
        replay.run(until: 7.501)
        #expect(!app.isScanning)
        #expect(app.scanTimedOut)
        #expect(app.status == .idle)
        // Duplicates allowed: the accessory is reported again and again, the device beside it
        // with its own service and name.
        let all = app.sightings.values.flatMap { $0 }
        #expect(all.filter { $0.name == "Pulse HRM" }.count >= 10)
        #expect(all.contains { $0.name == "Fit Band 4" && $0.services == [CBUUID(string: "FE9F")] && $0.manufacturerData == nil })
        #expect(all.allSatisfy { recordedRSSI.contains($0.rssi) || $0.name != "Pulse HRM" })
    }
}
