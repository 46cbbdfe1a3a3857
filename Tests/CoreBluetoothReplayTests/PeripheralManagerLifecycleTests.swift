import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// The peripheral manager's life as iOS runs it (Docs/peripheral.md): services removed while a
/// central holds their handles, the radio state, a second manager, state restoration across a
/// link loss, and `respond(to:withResult:)` called other than once per request.
@Suite struct PeripheralManagerLifecycleTests {
    /// A server of two services, FFA0 (FFA1: notify) and FFB0 (FFB1: read, notify, dynamic),
    /// laid out as CBLocalDatabase says: 0x000A FFA0, 0x000C FFA1 value, 0x000D its CCCD;
    /// 0x000E FFB0, 0x0010 FFB1 value, 0x0011 its CCCD.
    final class TwoServices: NSObject, CBPeripheralManagerDelegate {
        var manager: CBPeripheralManager!
        let a = CBMutableService(type: CBUUID(string: "FFA0"), primary: true)
        let b = CBMutableService(type: CBUUID(string: "FFB0"), primary: true)
        let a1 = CBMutableCharacteristic(type: CBUUID(string: "FFA1"), properties: [.notify], value: nil, permissions: [.readable])
        let b1 = CBMutableCharacteristic(type: CBUUID(string: "FFB1"), properties: [.read, .notify], value: nil, permissions: [.readable])
        /// Remove FFA0 once a central subscribes to FFA1.
        var removesAOnSubscription = false
        /// Add the services on every `.poweredOn`, as apps that follow Apple's "all services must
        /// be re-added" do.
        var addsOnEveryPowerOn = false
        var reads: [String] = []
        var added: [String] = []
        var calls: [String] = []

        init(restoreIdentifier: String? = nil) {
            super.init()
            a.characteristics = [a1]
            b.characteristics = [b1]
            let options: [String: Any]? = restoreIdentifier.map { [CBPeripheralManagerOptionRestoreIdentifierKey: $0] }
            manager = CBPeripheralManager(delegate: self, queue: nil, options: options)
        }

        func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
            calls.append("state \(peripheral.state)")
            guard peripheral.state == .poweredOn, added.isEmpty || addsOnEveryPowerOn else { return }
            peripheral.add(a)
            peripheral.add(b)
            peripheral.startAdvertising([CBAdvertisementDataLocalNameKey: "Two"])
        }

        func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?) {
            added.append(service.uuid.uuidString + (error == nil ? "" : " error"))
        }

        func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic) {
            calls.append("subscribed \(characteristic.uuid.uuidString)")
            if removesAOnSubscription, characteristic.uuid == a1.uuid { peripheral.remove(a) }
        }

        func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic) {
            calls.append("unsubscribed \(characteristic.uuid.uuidString)")
        }

        func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
            reads.append(request.characteristic.uuid.uuidString)
            request.value = Data([0x42])
            peripheral.respond(to: request, withResult: .success)
        }
    }

    /// A remote central (LE Connection Complete role 0x01, Core v5.4 Vol 4 Part E 7.7.65.1)
    /// subscribes to FFB1 (CCCD 0x0011) and FFA1 (CCCD 0x000D), then reads FFB1's value at
    /// 0x0010; the recorded phone answered each as Vol 3 Part F 3.4 lays out.
    static func twoServicesCapture() throws -> String {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x41, role: 1, peer: [0x4F, 0x9A, 0x11, 0x22, 0x33, 0x55])
        func served(_ ms: Int64, _ req: [UInt8], _ rsp: [UInt8]?) { c.served(ms, handle: 0x41, req, rsp) }
        served(150, [0x12, 0x11, 0x00, 0x01, 0x00], [0x13])   // FFB1 notifications on
        served(200, [0x12, 0x0D, 0x00, 0x01, 0x00], [0x13])   // FFA1 notifications on
        served(300, [0x0A, 0x10, 0x00], [0x0B, 0x42])         // read FFB1
        c.disconnectionComplete(2_000, handle: 0x41, reason: 0x13)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("two-services-\(UUID().uuidString).btsnoop").path
        try c.write(to: path)
        return path
    }

    /// `remove(_:)` of FFA0 while the central holds the database's handles: FFB0 keeps 0x000E-
    /// 0x0011 (a server's handles move only with a Service Changed indication, Core v5.4 Vol 3
    /// Part G 2.5.2), so the central's read of 0x0010 still reaches FFB1; FFA1's subscription ends
    /// with its service and FFB1's stays.
    @Test func removingAServiceLeavesTheOthersAtTheirHandles() throws {
        let path = try Self.twoServicesCapture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { () -> TwoServices in
            let s = TwoServices()
            s.removesAOnSubscription = true
            return s
        }
        replay.run(for: 1)
        #expect(replay.localServerDriver.divergences.isEmpty, "\(replay.localServerDriver.divergences)")
        #expect(app.reads == ["FFB1"])
        #expect(app.calls.filter { $0.hasPrefix("subscribed") } == ["subscribed FFB1", "subscribed FFA1"])
        #expect(app.a1.subscribedCentrals?.isEmpty == true)
        #expect(app.b1.subscribedCentrals?.count == 1)
        // An update of the removed characteristic goes nowhere; FFB1's still goes to its subscriber.
        #expect(app.manager.updateValue(Data([1]), for: app.a1, onSubscribedCentrals: nil))
        #expect(app.manager.updateValue(Data([2]), for: app.b1, onSubscribedCentrals: nil))
    }

    /// A state below `.poweredOff` clears the local database (Apple,
    /// `peripheralManagerDidUpdateState(_:)`): an app that adds its services again on the next
    /// `.poweredOn` publishes them again rather than trapping as "added more than once".
    @Test func aStateBelowPoweredOffClearsTheDatabase() async {
        // In a child process: where the database is not cleared, the second add traps.
        await #expect(processExitsWith: .success) {
            let replay = try! CBReplay(capture: try! PeripheralManagerLifecycleTests.twoServicesCapture())
            let app = replay.activate { () -> TwoServices in
                let s = TwoServices()
                s.addsOnEveryPowerOn = true
                return s
            }
            replay.run(for: 0.05)
            replay.setState(.unauthorized)
            replay.run(for: 0.05)
            precondition(!app.manager.isAdvertising)
            replay.setState(.poweredOn)
            replay.run(for: 0.05)
            precondition(app.added == ["FFA0", "FFB0", "FFA0", "FFB0"], "\(app.added)")
            precondition(app.manager.isAdvertising)
        }
    }

    /// `.poweredOff` stops the advertising and keeps the services (only a state below it clears
    /// them): adding the same service again after it is "Services cannot be added more than
    /// once", which iOS raises and the replay traps on.
    @Test func poweredOffKeepsTheServices() async {
        await #expect(processExitsWith: .failure) {
            let replay = try! CBReplay(capture: try! PeripheralManagerLifecycleTests.twoServicesCapture())
            let app = replay.activate { TwoServices() }
            replay.run(for: 0.05)
            replay.setState(.poweredOff)
            replay.run(for: 0.05)
            precondition(!app.manager.isAdvertising)
            replay.setState(.poweredOn)
            replay.run(for: 0.05)
            app.manager.add(app.b)
        }
    }

    /// The same app removes FFB0 first: it publishes again.
    @Test func aServiceRemovedAfterPoweredOffIsAddedAgain() throws {
        let replay = try CBReplay(capture: try Self.twoServicesCapture())
        let app = replay.activate { TwoServices() }
        replay.run(for: 0.05)
        replay.setState(.poweredOff)
        replay.setState(.poweredOn)
        replay.run(for: 0.05)
        app.manager.remove(app.b)
        app.manager.add(app.b)
        replay.run(for: 0.05)
        #expect(app.added == ["FFA0", "FFB0", "FFB0"])
    }

    /// `updateValue` while the radio is off: iOS refuses the command ("API MISUSE … powered on
    /// state") and sends nothing; the answer is false, so an app's send loop keeps the value
    /// for later, and the call is noted in `diagnostics`.
    @Test func updateValueWhileNotPoweredOnIsRefused() throws {
        let replay = try CBReplay(capture: try Self.twoServicesCapture())
        let app = replay.activate { TwoServices() }
        replay.run(for: 0.05)
        #expect(app.manager.updateValue(Data([1]), for: app.b1, onSubscribedCentrals: nil))   // no subscriber yet: nothing to send
        replay.setState(.poweredOff)
        replay.run(for: 0.05)
        #expect(!app.manager.updateValue(Data([1]), for: app.b1, onSubscribedCentrals: nil))
        #expect(replay.diagnostics.contains { $0.kind == .apiMisuse && $0.message.contains("updateValue") })
    }

    /// A second `CBPeripheralManager` while one is active: the replay runs one at a time, and
    /// says so in `diagnostics` (as for a second CBCentralManager) instead of leaving the first
    /// silent.
    @Test func aSecondPeripheralManagerIsReported() throws {
        let replay = try CBReplay(capture: try Self.twoServicesCapture())
        let first = replay.activate { TwoServices() }
        replay.run(for: 0.05)
        let second = replay.activate { TwoServices() }
        replay.run(for: 1)
        let d = replay.diagnostics.filter { $0.kind == .secondPeripheralManager }
        #expect(d.count == 1)
        #expect(d.first?.message.contains("TwoServices") == true && d.first?.message.contains("2 published service(s)") == true)
        // The central that connected to the first manager's advertising stays the first's link,
        // which no longer calls its delegate.
        #expect(first.reads.isEmpty && second.reads.isEmpty)
        #expect(second.manager.isAdvertising && !first.manager.isAdvertising == false)
    }

    /// A manager created outside `activate` (a lazy singleton first touched in a test's setup)
    /// waits, `.unknown` as on iOS before its first state update, for the next replay activated
    /// on its thread, as a CBCentralManager does; then it hears `.poweredOn` and serves the
    /// recorded central.
    @Test func aManagerCreatedOutsideActivateBindsToTheNextReplay() throws {
        let app = TwoServices()
        #expect(app.manager.state == .unknown)
        let replay = try CBReplay(capture: try Self.twoServicesCapture())
        replay.activate {}
        replay.run(for: 1)
        #expect(app.manager.replay === replay)
        #expect(app.calls.first == "state poweredOn")
        #expect(app.reads == ["FFB1"])
    }

    /// The system keeps a terminated app's links (state restoration); a link that ends while the
    /// app is not running ends its subscriptions too: the restored manager's characteristic has no
    /// subscriber left and nothing is sent on the dead link.
    @Test func aLinkLostWhileTerminatedEndsItsSubscriptions() throws {
        let replay = try CBReplay(capture: try Self.twoServicesCapture())
        let first = replay.activate { TwoServices(restoreIdentifier: "two") }
        replay.run(for: 1)
        #expect(first.b1.subscribedCentrals?.count == 1)
        replay.relaunch()
        replay.run(for: 2)   // the recorded 0x13 at 1.9 s
        let second = replay.activate { TwoServices(restoreIdentifier: "two") }
        replay.run(for: 0.1)
        #expect(second.calls.first == "state poweredOn")
        #expect(first.b1.subscribedCentrals?.isEmpty == true)
        #expect(first.a1.subscribedCentrals?.isEmpty == true)
        #expect(replay.world.host.links.isEmpty)
    }

    // MARK: respond(to:withResult:)

    /// Responds twice to every read of FFF2 and to every write, first with the last request of
    /// the array, then with the first (the database is PeripheralManagerRulesTests'; FFF3 refuses
    /// with 0x80, FFF4 is never answered).
    final class Misresponder: NSObject, CBPeripheralManagerDelegate {
        var manager: CBPeripheralManager!
        init(_ unused: Void = ()) {
            super.init()
            manager = CBPeripheralManager(delegate: self, queue: nil)
        }
        func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
            guard peripheral.state == .poweredOn else { return }
            let s = CBMutableService(type: CBUUID(string: "FFF0"), primary: true)
            s.characteristics = [
                CBMutableCharacteristic(type: CBUUID(string: "FFF1"), properties: [.read], value: Data("v1.0".utf8), permissions: [.readable]),
                CBMutableCharacteristic(type: CBUUID(string: "FFF2"), properties: [.read, .write, .writeWithoutResponse],
                                        value: nil, permissions: [.readable, .writeable]),
                CBMutableCharacteristic(type: CBUUID(string: "FFF3"), properties: [.write], value: nil, permissions: [.writeable]),
                CBMutableCharacteristic(type: CBUUID(string: "FFF4"), properties: [.read], value: nil, permissions: [.readable]),
            ]
            peripheral.add(s)
            peripheral.startAdvertising(nil)
        }
        func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
            guard request.characteristic.uuid == CBUUID(string: "FFF2") else { return }   // FFF4: unanswered, as recorded
            request.value = Data(PeripheralManagerRulesTests.long[request.offset...])
            peripheral.respond(to: request, withResult: .success)
            peripheral.respond(to: request, withResult: .success)
        }
        func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
            let result: CBATTError.Code = requests[0].characteristic.uuid == CBUUID(string: "FFF3") ? CBATTError.Code(rawValue: 0x80)! : .success
            peripheral.respond(to: requests[requests.count - 1], withResult: result)   // the last: ignored when there are several
            peripheral.respond(to: requests[0], withResult: result)                     // then the first, as Apple says
        }
    }

    /// Against PeripheralManagerRulesTests' recorded central: the second answer to a read and
    /// the answer with the prepared write's second part are each a `.respondMisuse` diagnostic
    /// and change nothing: the answers that count go out as recorded.
    @Test func respondingOtherThanOncePerRequestIsNoted() throws {
        let path = try PeripheralManagerRulesTests.capture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { Misresponder() }
        withExtendedLifetime(app) { replay.run(for: 40) }
        let misuse = replay.diagnostics.filter { $0.kind == .respondMisuse }.map(\.message)
        #expect(misuse.contains { $0.contains("a second time") })
        #expect(misuse.contains { $0.contains("other than the first") && $0.contains("offset 18") })
        #expect(misuse.contains { $0.contains("a second time for the same FFF3") })
        // FFF2 read twice, FFF3 written twice, the batch; the answers to the Write Command are
        // ignored without a note.
        #expect(misuse.count == 3, "\(misuse)")
        #expect(!misuse.contains { $0.contains("other than the first") && $0.contains("offset 0") })
        // The FFF4 read neither the recording nor the app answered; the rest match.
        #expect(replay.localServerDriver.divergences.isEmpty, "\(replay.localServerDriver.divergences)")
    }
}
