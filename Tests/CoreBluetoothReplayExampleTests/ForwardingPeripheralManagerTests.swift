import CoreBluetoothReplay
import Foundation
import Testing

/// A multicast/forwarding `CBPeripheralManagerDelegate` written as on iOS, with optional-call
/// syntax `delegate?.peripheralManager?(…)`: it must compile (Swift 5 mode, as apps are) and reach
/// the target's methods. Run against Captures/heart-rate-peripheral.btsnoop behind
/// HeartRatePeripheral, whose known answers are in HeartRatePeripheralTests.
final class ForwardingPeripheralManagerDelegate: NSObject, CBPeripheralManagerDelegate {
    weak var target: CBPeripheralManagerDelegate?
    private(set) var forwarded: [String] = []

    init(target: CBPeripheralManagerDelegate) { self.target = target }

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        forwarded.append("state")
        target?.peripheralManagerDidUpdateState(peripheral)
    }
    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: Error?) {
        forwarded.append("didAdd")
        target?.peripheralManager?(peripheral, didAdd: service, error: error)
    }
    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: Error?) {
        forwarded.append("advertising")
        target?.peripheralManagerDidStartAdvertising?(peripheral, error: error)
    }
    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        forwarded.append("read")
        target?.peripheralManager?(peripheral, didReceiveRead: request)
    }
    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        forwarded.append("write")
        target?.peripheralManager?(peripheral, didReceiveWrite: requests)
    }
    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic) {
        forwarded.append("subscribe")
        target?.peripheralManager?(peripheral, central: central, didSubscribeTo: characteristic)
    }
    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic) {
        forwarded.append("unsubscribe")
        target?.peripheralManager?(peripheral, central: central, didUnsubscribeFrom: characteristic)
    }
    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {
        forwarded.append("ready")
        target?.peripheralManagerIsReady?(toUpdateSubscribers: peripheral)
    }
}

@Suite struct ForwardingPeripheralManagerTests {
    @Test func optionalCallSyntaxForwardsEveryCallToTheTarget() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-peripheral.btsnoop"))
        let clock = replay.clock!
        var forwarder: ForwardingPeripheralManagerDelegate?
        let app = replay.activate { () -> HeartRatePeripheral in
            let app = HeartRatePeripheral(now: { clock.now })
            forwarder = ForwardingPeripheralManagerDelegate(target: app)
            app.manager.delegate = forwarder
            return app
        }
        replay.run(for: 40)
        let f = try #require(forwarder)
        // Through the forwarder the app hears what it hears directly (HeartRatePeripheralTests):
        // one read of 2A38 at 1.420 s, one write to 2A39 at 6.440 s, two subscriptions, two ends.
        let reads = app.events.filter { if case .read(let t, "2A38", 0) = $0 { abs(t - 1.420) < 0.0005 } else { false } }
        let writes = app.events.filter { if case .wrote(let t, "2A39", _) = $0 { abs(t - 6.440) < 0.0005 } else { false } }
        #expect(reads.count == 1)
        #expect(writes.count == 1)
        #expect(f.forwarded.filter { $0 == "read" }.count == 1)
        #expect(f.forwarded.filter { $0 == "write" }.count == 1)
        #expect(f.forwarded.filter { $0 == "subscribe" }.count == 2)
        #expect(f.forwarded.filter { $0 == "unsubscribe" }.count == 2)
        #expect(f.forwarded.contains("ready") == app.events.contains { if case .ready = $0 { true } else { false } })
    }
}

/// The conformance is on the base class; the subclass's `didAdd` is not found by Swift on Linux
/// (iOS asks the runtime and finds it), so the default runs and the replay names the method.
class BasePeripheralApp: NSObject, CBPeripheralManagerDelegate {
    var manager: CBPeripheralManager!
    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        guard peripheral.state == .poweredOn else { return }
        peripheral.add(CBMutableService(type: CBUUID(string: "180D"), primary: true))
    }
}

final class SubclassedPeripheralApp: BasePeripheralApp {
    private(set) var added = 0
    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: Error?) { added += 1 }
}

@Suite struct SubclassedPeripheralManagerDelegateTests {
    @Test func aDefaultReachedOnASubclassIsReported() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-peripheral.btsnoop"))
        let app = replay.activate { () -> SubclassedPeripheralApp in
            let app = SubclassedPeripheralApp()
            app.manager = CBPeripheralManager(delegate: app, queue: nil)
            return app
        }
        replay.run(for: 1)
        #expect(app.added == 0)
        let reported = replay.diagnostics.filter { $0.kind == .subclassedDelegate }.map(\.message)
        #expect(reported.count == 1)
        #expect(reported.first?.hasPrefix("peripheralManager(_:didAdd:error:) was called on a ") == true)
    }
}
