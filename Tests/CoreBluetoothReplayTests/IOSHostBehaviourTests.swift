import BLEDecode
import BLEReplay
import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// Host behaviour iOS has (Docs/replay.md "CoreBluetoothReplay", "How iOS behaves"): hidden GAP
/// and GATT services, attributes invalidated by a disconnection, long writes and
/// `maximumWriteValueLength`, long reads at the replay's MTU, and callbacks never delivered
/// inside the app's own call.
@Suite struct IOSHostBehaviourTests {
    static func longValueReplay(_ configure: (inout ReplayConfiguration) -> Void = { _ in }) throws -> CBReplay {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("long-value-\(UUID().uuidString).btsnoop").path
        try SpecCapture.longValueRead().write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var c = ReplayConfiguration()
        configure(&c)
        return try CBReplay(capture: path, configuration: c)
    }

    /// Apple's Accessory Design Guidelines ("GATT Server"): 1800 and 1801 are used by iOS and
    /// filtered out of the discovered services, also when the app asks for them by UUID.
    @Test func gapAndGattServicesAreHidden() throws {
        let replay = try Self.longValueReplay()
        let app = DiscoveringApp(replay: replay, target: nil)
        var filtered: [String]?
        app.ready = { app, p in
            guard filtered == nil else { return }
            filtered = []
            p.discoverServices([CBUUID(string: "1800"), CBUUID(string: "1801")])
        }
        replay.run(for: 5)
        let lines = app.log.filter { $0.contains("services") }
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.hasSuffix("services FFE0") })
        #expect(app.peripheral?.services?.map(\.uuid.uuidString) == ["FFE0"])
    }

    /// On iOS a disconnection invalidates services, characteristics and descriptors.
    @Test func disconnectionInvalidatesTheServices() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-supervision-timeout.btsnoop"))
        let app = DiscoveringApp(replay: replay, target: "Pulse HRM")
        app.ready = { app, p in if let c = app.characteristic("2A37") { p.setNotifyValue(true, for: c) } }
        replay.run(for: 60)
        #expect(app.log.contains { $0.contains("disconnect 6") })
        let seen = try #require(app.servicesAtDisconnect)   // the callback came
        #expect(seen == nil)                                 // and `services` was nil in it
    }

    @Test func maximumWriteValueLengthIsAsOnIOS() throws {
        let replay = try Self.longValueReplay()
        let app = DiscoveringApp(replay: replay, target: nil)
        var lengths: (Int, Int)?
        app.ready = { _, p in lengths = (p.maximumWriteValueLength(for: .withResponse), p.maximumWriteValueLength(for: .withoutResponse)) }
        replay.run(for: 5)
        // MTU min(517, 185) = 185: without response 185 - 3; with response the 512-byte attribute limit.
        #expect(lengths?.0 == 512)
        #expect(lengths?.1 == 182)
    }

    /// A 400-byte write with response is a long write (Core v5.4 Vol 3 Part G 4.9.4): Prepare
    /// Write Requests of at most MTU - 5 = 180 bytes (0-179, 180-359, 360-399), then Execute
    /// Write 0x01; the app hears one `didWriteValueFor` without error, after its call returned.
    @Test func longWriteIsAPreparedWrite() throws {
        let replay = try Self.longValueReplay()
        let app = DiscoveringApp(replay: replay, target: nil)
        let value = Data((0..<400).map { UInt8(255 - $0 % 256) })
        app.ready = { app, p in
            guard let c = app.characteristic("FFE1") else { return }
            app.call { p.writeValue(value, for: c, type: .withResponse) }
        }
        replay.run(for: 5)
        #expect(app.log.filter { $0.contains("wrote FFE1") }.map { String($0.split(separator: " ", maxSplits: 1)[1]) } == ["wrote FFE1"])
        #expect(!app.deliveredInsideCall)
        let sent = replay.world.host.allLinks[0].log.filter(\.fromCentral).map(\.bytes)
        let prepares = sent.filter { $0.first == 0x16 }
        #expect(prepares.map { $0.count - 5 } == [180, 180, 40])
        #expect(prepares.map { Int($0[3]) | Int($0[4]) << 8 } == [0, 180, 360])
        #expect(prepares.flatMap { $0.dropFirst(5) } == Array(value))
        #expect(sent.contains([0x18, 0x01]))
        #expect(!sent.contains { $0.first == 0x12 && $0.count > 100 })
    }

    /// Longer than 512 bytes: CBATTError invalidAttributeValueLength (13), asynchronously.
    @Test func tooLongWriteFailsAfterTheCall() throws {
        let replay = try Self.longValueReplay()
        let app = DiscoveringApp(replay: replay, target: nil)
        app.ready = { app, p in
            guard let c = app.characteristic("FFE1") else { return }
            app.call { p.writeValue(Data(count: 513), for: c, type: .withResponse) }
        }
        replay.run(for: 5)
        #expect(!app.deliveredInsideCall)
        let e = try #require(app.errors["FFE1"]?.first)
        #expect((e as NSError).domain == CBATTErrorDomain)
        #expect((e as NSError).code == 13)
    }

    /// The recording read 300 bytes at MTU 185 (184 + 116); at the replay's MTU of 100 the
    /// peripheral serves the same 300 bytes in 99-byte parts, and at the recorded MTU as recorded.
    @Test(arguments: [UInt16(100), 517])
    func longReadIsCompleteAtTheReplaysMTU(clientRxMTU: UInt16) throws {
        let replay = try Self.longValueReplay { $0.clientRxMTU = clientRxMTU }
        let app = DiscoveringApp(replay: replay, target: nil)
        app.ready = { app, p in if let c = app.characteristic("FFE1") { p.readValue(for: c) } }
        replay.run(for: 5)
        #expect(app.values["FFE1"] == [Data(SpecCapture.longValue)])
        let mtu = Int(min(clientRxMTU, 185))
        let answers = replay.world.host.allLinks[0].log.filter { !$0.fromCentral && ($0.bytes.first == 0x0B || $0.bytes.first == 0x0D) }
        #expect(answers.allSatisfy { $0.bytes.count <= mtu })
    }
}
