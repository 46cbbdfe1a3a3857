import BLEReplay
import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// What the app hears when a request times out (Core v5.4 Vol 3 Part F 3.3.3: no further request
/// on the bearer; the host then ends the link, CBError.connectionTimeout). att-timeout never
/// answers the Write Request 07 00 10 to 7A3E0002. Requests queued behind it, or made while the
/// link is being torn down, can never be sent: like any request pending when a link goes
/// (Apple's CoreBluetooth engineers, WWDC lab notes: a write cut by a disconnection gives "just
/// the disconnect callback"), they get no callback of their own, and never CBError.notConnected
/// while the peripheral still reads `.connected`.
@Suite struct ATTTimeoutTests {
    @Test func requestsQueuedBehindATimedOutOneEndWithTheDisconnection() throws {
        let replay = try CBReplay(capture: Samples.capture("att-timeout.btsnoop"))
        let app = DiscoveringApp(replay: replay, target: "Acme Logger")
        var statesAtError: [CBPeripheralState] = []
        app.ready = { app, p in
            guard let w = app.characteristic("7A3E0002-52C1-4B8E-9E4A-2F6C3B1D0E55"), let r = app.characteristic("2A29") else { return }
            p.writeValue(Data([0x07, 0x00, 0x10]), for: w, type: .withResponse)
            p.readValue(for: r)
        }
        app.onWrite = { app, _, error in
            guard error != nil, let p = app.peripheral, let r = app.characteristic("2A24") else { return }
            p.readValue(for: r)   // made while the link is being torn down
        }
        app.onValue = { app, _, error in if error != nil { statesAtError.append(app.peripheral?.state ?? .disconnected) } }
        replay.run(for: 40)
        #expect(app.log.contains { $0.hasSuffix("disconnect 6") })
        #expect(app.errors["2A29"] == nil)
        #expect(app.errors["2A24"] == nil)
        #expect(statesAtError.isEmpty)
        #expect(!app.log.contains { $0.contains("CBErrorDomain 3") })
    }
}
