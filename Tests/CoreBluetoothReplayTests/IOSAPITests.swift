import CoreBluetoothReplay
import Foundation
import Testing

/// API shapes real iOS code uses that the replay lacked (Docs/replay.md "API as on iOS").
@Suite struct IOSAPITests {
    @Test func featureIsNestedAndConnectionEventOptionsAreTyped() throws {
        #expect(!CBCentralManager.supports(CBCentralManager.Feature.extendedScanAndConnect))
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = DiscoveringApp(replay: replay, target: "Pulse HRM")
        app.central.registerForConnectionEvents(options: [.serviceUUIDs: [CBUUID(string: "180D")], .peripheralUUIDs: [UUID]()])
        #expect(CBConnectionEventMatchingOption.serviceUUIDs.rawValue == "kCBConnectionEventMatchingOptionServiceUUIDs")
        #expect(CBUUIDCharacteristicValidRangeString == "2906")
        #expect(CBUUIDL2CAPPSMCharacteristicString == "ABDD3056-28FA-441D-A470-55A75A52553A")
    }

    @Test func cbErrorCarriesUserInfoAndApplesTexts() {
        let e = CBError(.connectionTimeout, userInfo: ["where": "test"])
        #expect(e.userInfo["where"] as? String == "test")
        #expect(e.code == .connectionTimeout)
        #expect((e as NSError).code == 6)
        #expect((e as NSError).domain == CBErrorDomain)
        #expect(e.localizedDescription == "The connection has timed out unexpectedly.")
        #expect(CBError(.unknown).localizedDescription == "Unknown error.")
        #expect(CBError(.peripheralDisconnected).localizedDescription == "The specified device has disconnected from us.")
        #expect(CBATTError(.insufficientEncryption).localizedDescription == "Encryption is insufficient.")
        #expect(CBATTError(.insufficientAuthentication).localizedDescription == "Authentication is insufficient.")
    }

    @Test func uuidDescriptionNamesKnownUUIDs() {
        #expect(CBUUID(string: "180D").description == "Heart Rate")
        #expect(CBUUID(string: "2A37").description == "Heart Rate Measurement")
        #expect(CBUUID(string: "180F").description == "Battery")
        #expect(CBUUID(string: "180D").uuidString == "180D")
        #expect(CBUUID(string: "7A3E0001-52C1-4B8E-9E4A-2F6C3B1D0E55").description == "7A3E0001-52C1-4B8E-9E4A-2F6C3B1D0E55")
    }

    /// auth-errors.btsnoop frame 134: Write Request to 0x001B answered with application error
    /// 0x80. Sent before any pairing, the app gets CBATTError with `code.rawValue == 128`.
    @Test func applicationErrorKeepsItsNumber() throws {
        let replay = try CBReplay(capture: Samples.capture("auth-errors.btsnoop"))
        let app = DiscoveringApp(replay: replay, target: "Acme Meter")
        app.ready = { app, p in
            guard app.errors.isEmpty, let c = app.characteristic("7A3E0023-52C1-4B8E-9E4A-2F6C3B1D0E55") else { return }
            p.writeValue(Data([0x05, 0x01]), for: c, type: .withResponse)
        }
        replay.run(for: 10)
        let e = try #require(app.errors["7A3E0023-52C1-4B8E-9E4A-2F6C3B1D0E55"]?.first as? CBATTError)
        #expect(e.code.rawValue == 128)
        #expect(e.errorCode == 128)
        #expect(e.code == CBATTError.Code(rawValue: 0x80))
        #expect(e.code != .unlikelyError)
        let handled: String
        switch e.code {
        case .insufficientAuthentication: handled = "pair"
        case .writeNotPermitted: handled = "read-only"
        @unknown default: handled = "other \(e.code.rawValue)"
        }
        #expect(handled == "other 128")
    }

    @Test func l2capChannelsAnswerAfterTheCallWithNotSupported() throws {
        final class Opener: NSObject, CBPeripheralDelegate {
            var inside = false
            var result: (CBL2CAPChannel?, (any Error)?, Bool)?
            func peripheral(_ peripheral: CBPeripheral, didOpen channel: CBL2CAPChannel?, error: (any Error)?) {
                result = (channel, error, inside)
            }
        }
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = DiscoveringApp(replay: replay, target: "Pulse HRM")
        let opener = Opener()
        app.ready = { _, p in
            p.delegate = opener
            opener.inside = true
            p.openL2CAPChannel(CBL2CAPPSM(0x0080))
            opener.inside = false
        }
        replay.run(for: 10)
        let r = try #require(opener.result)
        #expect(r.0 == nil)
        #expect((r.1 as? CBError)?.code == .operationNotSupported)
        #expect(r.2 == false)
    }

    /// The iOS 17 callback's timestamp is a CFAbsoluteTime: the recording's first record is at
    /// 1772362800.000000 Unix (tshark frame.time_epoch), 794055600 s after 2001-01-01.
    @Test func disconnectTimestampIsAnAbsoluteTime() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-supervision-timeout.btsnoop"))
        let app = DiscoveringApp(replay: replay, target: "Pulse HRM")
        app.ready = { app, p in if let c = app.characteristic("2A37") { p.setNotifyValue(true, for: c) } }
        replay.run(for: 60)
        let s = try #require(app.disconnectTimestamps.first)
        #expect(abs(s.0 - (794_055_600 + s.1)) < 1e-6)
    }
}
