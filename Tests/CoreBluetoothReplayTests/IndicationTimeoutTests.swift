import BLEReplay
import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// Indications from the app's GATT server (Docs/peripheral.md "Indications"): one outstanding
/// at a time per central (Core v5.4 Vol 3 Part F 3.4.7.2, `updateValue` false until its
/// confirmation, then `peripheralManagerIsReady(toUpdateSubscribers:)`), and the server's 30 s
/// transaction timeout when no Handle Value Confirmation comes (3.3.3).
@Suite struct IndicationTimeoutTests {
    /// A thermometer that indicates FFC1 (service FFC0): 0x000A service, 0x000B declaration,
    /// 0x000C value, 0x000D the system's CCCD (CBLocalDatabase). On subscription and on every
    /// isReady it sends its values 1...`values` in order until `updateValue` returns false.
    final class Indicator: NSObject, CBPeripheralManagerDelegate {
        let clock: CBReplayClock
        var manager: CBPeripheralManager!
        let characteristic = CBMutableCharacteristic(type: CBUUID(string: "FFC1"), properties: [.indicate], value: nil, permissions: [.readable])
        var next: UInt8 = 1
        let values: UInt8 = 4
        var log: [String] = []

        init(clock: CBReplayClock) {
            self.clock = clock
            super.init()
            manager = CBPeripheralManager(delegate: self, queue: nil)
        }

        func at() -> String { String(format: "%.3f", clock.now) }

        func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
            peripheral.publishAndAdvertiseFFC0(with: characteristic)
        }

        func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic) {
            log.append("\(at()) subscribed")
            while send() {}
        }

        func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic) {
            log.append("\(at()) unsubscribed")
        }

        func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {
            log.append("\(at()) ready")
            while send() {}
        }

        /// Sends the next value; false when none is left or `updateValue` refused it.
        func send() -> Bool {
            guard next <= values else { return false }
            let sent = manager.updateValue(Data([next]), for: characteristic, onSubscribedCentrals: nil)
            log.append("\(at()) update \(next) \(sent)")
            if sent { next += 1 }
            return sent
        }
    }

    /// A remote central (LE Connection Complete role 0x01, Core v5.4 Vol 4 Part E 7.7.65.1;
    /// interval 30 ms, supervision timeout 4 s) that connects at 100 ms, turns FFC1's indications
    /// on at 200 ms (Write Request 12 | 0D 00 | 02 00, Vol 3 Part G 3.3.3.3: bit 1 indication;
    /// the recorded phone's Write Response 13), and disconnects at 120 s (0x13).
    static func indicationCapture() throws -> String {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x41, role: 1, peer: [0x21, 0x43, 0x65, 0x87, 0xA9, 0x5B])
        c.served(200, handle: 0x41, [0x12, 0x0D, 0x00, 0x02, 0x00], [0x13])
        c.disconnectionComplete(120_000, handle: 0x41, reason: 0x13)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("indications-\(UUID().uuidString).btsnoop").path
        try c.write(to: path)
        return path
    }

    /// Handle Value Indications (opcode 0x1D) the local host sent, with their values, and the
    /// HCI Disconnect commands (opcode 0x0406) with their reasons, in the replay's trace.
    static func sent(_ replay: CBReplay) -> (indications: [UInt8], disconnects: [(TimeInterval, UInt8)]) {
        var indications: [UInt8] = []
        var disconnects: [(TimeInterval, UInt8)] = []
        for r in replay.world.trace.records {
            let p = r.payload
            // ACL: handle+flags (2), length (2), L2CAP length (2), CID 0x0004 (2), then the ATT PDU.
            if r.kind == .acl, p.count >= 12, p[6] == 0x04, p[7] == 0x00, p[8] == 0x1D { indications.append(p[11]) }
            // Command: opcode 06 04, length 3, handle (2), reason.
            if r.kind == .command, p.count >= 6, p[0] == 0x06, p[1] == 0x04 {
                disconnects.append((TimeInterval(r.timestamp - replay.world.configuration.epoch) / 1_000_000, p[5]))
            }
        }
        return (indications, disconnects)
    }

    /// With every indication confirmed: each `updateValue` made while an indication awaits its
    /// confirmation returns false and sends nothing; isReady comes at each confirmation, and the
    /// app's values go out one per confirmation, in order.
    @Test func oneIndicationAtATimeAndIsReadyAtItsConfirmation() throws {
        let path = try Self.indicationCapture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { Indicator(clock: replay.clock) }
        replay.run(for: 60)
        let lines = app.log
        #expect(lines.count >= 4)
        #expect(lines.dropFirst().first?.hasSuffix("update 1 true") == true, "\(lines)")
        #expect(lines.dropFirst(2).first?.hasSuffix("update 2 false") == true, "\(lines)")
        #expect(lines.filter { $0.hasSuffix("ready") }.count == 3, "\(lines)")
        #expect(lines.filter { $0.hasSuffix("false") }.map { $0.split(separator: " ")[2] } == ["2", "3", "4"], "\(lines)")
        #expect(lines.filter { $0.contains("true") }.map { $0.split(separator: " ")[2] } == ["1", "2", "3", "4"], "\(lines)")
        #expect(!lines.contains { $0.hasSuffix("unsubscribed") })
        #expect(Self.sent(replay).indications == [1, 2, 3, 4])
    }

    /// The central never confirms (`drop-response:handle-value-indication`): the second value
    /// is refused and no isReady ever comes; 30 s after the indication went (3.3.3) the server's
    /// transaction fails and the local host ends the link (HCI Disconnect, 0x13), so the app
    /// hears `didUnsubscribeFrom` then, not at the central's recorded disconnect (120 s).
    @Test func anUnconfirmedIndicationTimesOutAfter30sAndTheLinkEnds() throws {
        let path = try Self.indicationCapture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = ReplayConfiguration()
        configuration.faults = [try FaultSpec(parsing: "drop-response:handle-value-indication")]
        let replay = try CBReplay(capture: path, configuration: configuration)
        let app = replay.activate { Indicator(clock: replay.clock) }
        replay.run(for: 60)
        let lines = app.log
        #expect(lines.filter { $0.contains("update") }.map { $0.split(separator: " ").dropFirst().joined(separator: " ") }
            == ["update 1 true", "update 2 false"], "\(lines)")
        #expect(!lines.contains { $0.hasSuffix("ready") }, "\(lines)")
        let sent = Self.sent(replay)
        #expect(sent.indications == [1])
        let disconnect = try #require(sent.disconnects.first)
        #expect(disconnect.1 == 0x13)
        let subscribedAt = try #require(lines.first.flatMap { TimeInterval(String($0.split(separator: " ")[0])) })
        // The indication goes at the first connection event after the subscription; the timeout
        // runs from there: 30 s, give or take one 30 ms connection interval.
        #expect(abs(disconnect.0 - subscribedAt - 30) < 0.031, "\(disconnect.0) after subscription at \(subscribedAt)")
        let unsubscribedAt = try #require(lines.last { $0.hasSuffix("unsubscribed") }.flatMap { TimeInterval(String($0.split(separator: " ")[0])) })
        #expect(unsubscribedAt >= disconnect.0 && unsubscribedAt < disconnect.0 + 1, "\(lines)")
    }
}
