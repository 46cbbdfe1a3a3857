import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// UARTPeripheral against a recorded central built from the spec: it exchanges the MTU (its
/// 247, the recorded iPhone's 185: ATT MTU 185, Core v5.4 Vol 3 Part F 3.4.2), subscribes to TX
/// (CCCD 0x000F), sends "dump" as a Write Command to RX (0x000C), reads nothing for 2 s while
/// the answer comes, writes "bye" with a Write Request and disconnects (0x13).
@Suite struct UARTPeripheralTests {
    /// `mtu`: the MTU both ends offer (Client Rx MTU, Server Rx MTU).
    static func capture(mtu: UInt16 = 0) throws -> String {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x41, role: 1, peer: [0x7A, 0x33, 0x11, 0x22, 0x33, 0x44])
        func served(_ ms: Int64, _ req: [UInt8], _ rsp: [UInt8]?) { c.served(ms, handle: 0x41, req, rsp) }
        if mtu == 0 {
            served(150, [0x02, 0xF7, 0x00], [0x03, 0xB9, 0x00])
        } else {
            served(150, [0x02] + c.le16(mtu), [0x03] + c.le16(mtu))
        }
        served(200, [0x12, 0x0F, 0x00, 0x01, 0x00], [0x13])
        c.att(300, handle: 0x41, [0x52, 0x0C, 0x00] + Array("dump".utf8), received: true)
        served(2_300, [0x12, 0x0C, 0x00] + Array("bye".utf8), [0x13])
        c.disconnectionComplete(2_500, handle: 0x41, reason: 0x13)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("periph-uart-\(UUID().uuidString).btsnoop").path
        try c.write(to: path)
        return path
    }

    static func run(greets: Bool = false, mtu: UInt16 = 0) throws -> (CBReplay, UARTPeripheral) {
        let path = try capture(mtu: mtu)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { () -> UARTPeripheral in
            let app = UARTPeripheral(now: { replay.clock.now })
            app.greets = greets
            return app
        }
        replay.run(for: 3)
        return (replay, app)
    }

    @Test func theDumpGoesOutInChunksOfTheMaximumUpdateLength() throws {
        let (replay, app) = try Self.run()
        #expect(replay.localServerDriver.divergences.isEmpty, "\(replay.localServerDriver.divergences)")
        #expect(app.received == ["dump", "bye"])
        #expect(app.chunksSent.map(\.count) == [182, 182, 136])
        #expect(app.chunksSent.reduce(Data(), +) == UARTPeripheral.dump)
        // The answer to the Write Command was ignored without a note; "bye" was answered once.
        #expect(!replay.diagnostics.contains { $0.kind == .respondMisuse }, "\(replay.diagnostics)")
    }

    /// An ATT MTU of 517 (what both ends offer here) leaves 514 octets after a notification's
    /// header (Core v5.4 Vol 3 Part F 3.4.7.1), more than an attribute value can hold: 512 octets
    /// (Vol 3 Part F 3.2.9). The central may receive no more, and the 500-byte dump goes in one
    /// notification.
    @Test func theMaximumUpdateLengthIsNeverMoreThanAnAttributeValue() throws {
        let (replay, app) = try Self.run(mtu: 517)
        #expect(replay.localServerDriver.divergences.isEmpty, "\(replay.localServerDriver.divergences)")
        #expect(app.events.contains { $0.hasSuffix("subscribed max 512") }, "\(app.events)")
        #expect(app.chunksSent.map(\.count) == [500])
    }

    /// One connection at a time: advertising stops at the subscription. "bye" unpublishes the
    /// services, which ends the subscription with them (no didUnsubscribeFrom: the central did
    /// not unsubscribe, Docs/peripheral.md "Handles"), so the app hears nothing when the central
    /// leaves, and does not advertise again.
    @Test func advertisingFollowsTheConnection() throws {
        let (replay, app) = try Self.run()
        #expect(!app.peripheralManager.isAdvertising)
        #expect(app.events.first == "0.0000 advertising")
        #expect(app.events.contains { $0.hasSuffix("subscribed max 182") })
        #expect(app.events.last?.hasSuffix("rx bye") == true, "\(app.events)")
        #expect(replay.localServerDriver.servers.count == 1)
    }

    /// The trace holds each notification after the Write Response of the CCCD write that
    /// subscribed, and the answers in the order of the requests.
    @Test func notificationsGoOnTheLinkAfterTheSubscriptionIsAnswered() throws {
        let (replay, _) = try Self.run()
        var sent: [UInt8] = []
        for r in replay.world.trace.records where r.kind == .acl && r.direction == .sent {
            let p = r.payload
            if p.count > 8, p[6] == 0x04, p[7] == 0x00 { sent.append(p[8]) }   // ATT opcode on CID 0x0004
        }
        #expect(sent == [0x03, 0x13, 0x1B, 0x1B, 0x1B, 0x13], "\(sent.map { String(format: "%02X", $0) })")
    }

    /// An app that notifies from `didSubscribeTo` (its greeting): on an iPhone the system answers
    /// the CCCD write and then tells the app (Docs/peripheral.md "Subscriptions"), so the Write
    /// Response is queued before anything the app sends from the callback, and ATT's PDUs leave
    /// in the order queued (Core v5.4 Vol 3 Part F 3.3.2). The Write Response goes out at the
    /// recorded answer's instant (2 ms after the request), the greeting right behind it, at the
    /// same instant.
    @Test func aValueSentFromDidSubscribeToFollowsTheWriteResponse() throws {
        let (replay, app) = try Self.run(greets: true)
        #expect(replay.localServerDriver.divergences.isEmpty, "\(replay.localServerDriver.divergences)")
        #expect(app.chunksSent.first == Data("hello".utf8))
        var sent: [UInt8] = []
        for r in replay.world.trace.records where r.kind == .acl && r.direction == .sent {
            let p = r.payload
            if p.count > 8, p[6] == 0x04, p[7] == 0x00 { sent.append(p[8]) }
        }
        #expect(Array(sent.prefix(3)) == [0x03, 0x13, 0x1B], "\(sent.map { String(format: "%02X", $0) })")
        let writeResponse = try #require(replay.world.trace.records.first { r in
            r.kind == .acl && r.direction == .sent && r.payload.count > 8 && r.payload[8] == 0x13
        })
        let greeting = try #require(replay.world.trace.records.first { r in
            r.kind == .acl && r.direction == .sent && r.payload.count > 8 && r.payload[8] == 0x1B
        })
        #expect(greeting.timestamp == writeResponse.timestamp)
    }

    /// A TX that only trusted devices may subscribe to (`.notifyEncryptionRequired`: "only trusted
    /// devices can enable notifications of the characteristic's value", Apple,
    /// `CBCharacteristicProperties`): the central here never encrypts, so the system refuses its
    /// CCCD write, as it refuses a read of a `.readEncryptionRequired` value (0x05 Insufficient
    /// Authentication, Core v5.4 Vol 3 Part F 3.4.1.1), and never calls didSubscribeTo.
    @Test func aSubscriptionThatNeedsEncryptionIsRefusedOnAPlainLink() throws {
        final class SecureUART: NSObject, CBPeripheralManagerDelegate {
            var manager: CBPeripheralManager!
            var subscribed = 0
            override init() {
                super.init()
                manager = CBPeripheralManager(delegate: self, queue: nil)
            }
            func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
                guard peripheral.state == .poweredOn else { return }
                let s = CBMutableService(type: UARTPeripheral.serviceUUID, primary: true)
                s.characteristics = [
                    CBMutableCharacteristic(type: UARTPeripheral.rxUUID, properties: [.write, .writeWithoutResponse], value: nil, permissions: .writeable),
                    CBMutableCharacteristic(type: UARTPeripheral.txUUID, properties: .notifyEncryptionRequired, value: nil, permissions: .readEncryptionRequired),
                ]
                peripheral.add(s)
                peripheral.startAdvertising(nil)
            }
            func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic) {
                subscribed += 1
            }
        }
        let path = try Self.capture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { SecureUART() }
        replay.run(for: 3)
        #expect(app.subscribed == 0)
        // The recorded iPhone accepted (its TX was plain `.notify`): the refusal is the divergence.
        let d = replay.localServerDriver.divergences
        #expect(d.count == 1 && d.first?.answered == [0x01, 0x12, 0x0F, 0x00, 0x05], "\(d)")
    }
}
