import CoreBluetoothReplay
import Foundation
import Testing

/// The device console against ../shared/captures/scale-h4-phdr.pcap, a Linux host's session with
/// a Mi Smart Band 4 (EB:DD:13:97:9C:0D). Known answers from `blereplay gatt` on it: Device
/// Information 2A25 "d8e5662ef6fa", 2A27 "V0.25.19.5", 2A28 "V1.0.9.66", 2A23 eb dd 13 ff fe 97 9c
/// 0d, 2A50 01 57 01 24 00 01 01; 1800 and 1801 in the database (iOS hides both).
@Suite struct DeviceConsoleTests {
    static func run() throws -> (DeviceConsole, CBReplay) {
        let replay = try CBReplay(capture: CapturePaths.real("scale-h4-phdr.pcap"))
        let app = replay.activate { DeviceConsole(namePrefix: "Mi Smart Band", now: { replay.clock.now }) }
        replay.run(for: 30)
        return (app, replay)
    }

    @Test func discoversReadsSubscribesWritesAndDisconnects() throws {
        let (app, replay) = try Self.run()
        let device = try #require(app.device)
        // connect() makes it .connecting at once; .connected in didConnect, with no services yet.
        #expect(app.stateRightAfterConnect == .connecting)
        #expect(app.log.contains { $0.hasSuffix("connected connected services nil") })
        // Every service but the two iOS keeps to itself, in the peripheral's order.
        #expect(app.log.contains { $0.hasSuffix("services 180A,00001530-0000-3512-2118-0009AF100700,1811,1802,180D,FEE0,FEE1,3802") })

        #expect(app.reads[CBUUID(string: "2A25")] == Data("d8e5662ef6fa".utf8))
        #expect(app.reads[CBUUID(string: "2A27")] == Data("V0.25.19.5".utf8))
        #expect(app.reads[CBUUID(string: "2A28")] == Data("V1.0.9.66".utf8))
        #expect(app.reads[CBUUID(string: "2A23")] == Data([0xEB, 0xDD, 0x13, 0xFF, 0xFE, 0x97, 0x9C, 0x0D]))
        #expect(app.reads[CBUUID(string: "2A50")] == Data([0x01, 0x57, 0x01, 0x24, 0x00, 0x01, 0x01]))
        // A value no recording shows is refused (CBATTError 2), never made up.
        #expect(app.readErrors.values.allSatisfy { ($0 as NSError).domain == CBATTErrorDomain && ($0 as NSError).code == 2 })

        // Every characteristic that notifies was subscribed, without error, and each CCCD then
        // reads back as CoreBluetooth types it: NSNumber 1 (setNotifyValue ran before the read).
        #expect(app.subscribed.count == 22)
        #expect(app.subscribed.values.allSatisfy { $0 == nil })
        let cccds = app.descriptorReads.filter { $0.key.hasSuffix("/2902") }
        #expect(cccds.count == 22)
        #expect(cccds.values.allSatisfy { ($0 as? NSNumber)?.intValue == 1 })
        // User descriptions (2901) the recording never read: refused, as other unrecorded values.
        #expect(app.descriptorReads.filter { $0.key.hasSuffix("/2901") }.values.allSatisfy { ($0 as? CBATTError)?.code == .readNotPermitted })

        #expect(app.rssi?.intValue == -59)
        // Writes with response: one didWriteValueFor each, no error.
        #expect(app.writes.count == 14)
        #expect(app.writes.values.allSatisfy { $0 == nil })
        // Without response: chunks of maximumWriteValueLength(for: .withoutResponse) (ATT MTU - 3),
        // one peripheralIsReady after each (the app writes only while canSend is true).
        #expect(app.largestChunk == app.maxWithoutResponse)
        let perCharacteristic = (600 + app.maxWithoutResponse - 1) / app.maxWithoutResponse
        #expect(app.chunksSent == app.streamedTo.count * perCharacteristic)
        #expect(app.readyCallbacks == app.chunksSent)

        // cancelPeripheralConnection: .disconnecting at once, then didDisconnectPeripheral with no error.
        #expect(app.stateWhenCancelled == .disconnecting)
        #expect(app.disconnectError.map { $0 == nil } == true)
        #expect(app.log.last?.hasSuffix("disconnected disconnected cleanly") == true)
        #expect(device.services == nil)
        #expect(replay.diagnostics.isEmpty)
    }

    /// Replay is deterministic: the same capture gives the same transcript.
    @Test func twoRunsGiveTheSameLog() throws {
        let (a, _) = try Self.run()
        let (b, _) = try Self.run()
        #expect(a.log == b.log)
        #expect(a.chunksSent == b.chunksSent)
    }
}
