import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// A link loss is a radio event (Docs/replay.md "Anchoring rules" 3): on
/// SpecCapture.silentPeerLinkLoss() the recorded loss follows a Read Request, but the peripheral
/// sent 16 notifications before it. An app that reads the battery at once after subscribing (not
/// 3.65 s later, as the recorded central did) still gets all 16, then CBError 6.
@Suite struct SilentPeerLinkLossTests {
    @Test func theAppGetsEveryNotificationRecordedBeforeTheLoss() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("silent-peer-\(UUID().uuidString).btsnoop").path
        try SpecCapture.silentPeerLinkLoss().write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = DiscoveringApp(replay: replay, target: nil)
        app.ready = { app, p in
            guard let hr = app.characteristic("2A37"), let battery = app.characteristic("2A19") else { return }
            p.setNotifyValue(true, for: hr)
            p.readValue(for: battery)
        }
        replay.run(for: 30)
        let beats = app.values["2A37"] ?? []
        #expect(beats.count == SpecCapture.silentPeerNotifications)
        #expect(beats.last == Data([0x06, 60 + UInt8(SpecCapture.silentPeerNotifications - 1)]))
        #expect(app.values["2A19"] == [Data([0x5C])])
        #expect(app.log.contains { $0.hasSuffix("disconnect 6") })
    }

    /// The recording shows the peer gone after the loss: the rescan heard only the beacon. A
    /// connect to it then stays pending, as on iOS (no callback, state `.connecting`); when the
    /// recording shows it advertising again, the app reconnects.
    @Test(arguments: [false, true]) func aPeerTheRecordingShowsGoneIsNotConnectable(advertisesAgain: Bool) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gone-peer-\(UUID().uuidString).btsnoop").path
        try SpecCapture.silentPeerLinkLoss(peerAdvertisesAgain: advertisesAgain).write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = DiscoveringApp(replay: replay, target: nil)
        app.ready = { app, p in
            if let battery = app.characteristic("2A19") { p.readValue(for: battery) }
        }
        app.onDisconnect = { app, p in app.central.connect(p) }
        replay.run(for: 60)
        #expect(app.log.first { $0.contains("disconnect") }?.hasSuffix("disconnect 6") == true)
        if advertisesAgain {
            #expect(app.connections >= 2)
        } else {
            #expect(app.connections == 1)
            #expect(app.log.filter { $0.contains("disconnect") }.count == 1)
            #expect(app.peripheral?.state == .connecting)
            #expect(!app.log.contains { $0.contains("fail") })
        }
    }
}
