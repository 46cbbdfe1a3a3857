import CoreBluetoothReplay
import Foundation
import Testing

/// The subclassing client on heart-rate-healthy: the subclass's overrides of methods the base
/// class declares are called, as on iOS. The two delegate methods only the subclass implements
/// are not (Swift on Linux resolves protocol methods at the conforming class; iOS's Objective-C
/// runtime finds the subclass's), and the replay names them in its diagnostics.
@Suite struct SubclassedCentralTests {
    @Test func overridesRunAndMethodsOnlyTheSubclassHasAreReported() throws {
        let replay = try CBReplay(capture: CapturePaths.sample("heart-rate-healthy.btsnoop"))
        let client = replay.activate { HeartRateClient() }
        replay.run(for: 20)
        #expect(client.log == ["state 5", "connected", "subscribe 2A37"])
        #expect(client.peripheral?.services?.map(\.uuid) == [CBUUID(string: "180D")])
        let c = try #require(client.peripheral?.services?.first?.characteristics?.first { $0.uuid == CBUUID(string: "2A37") })
        #expect(c.isNotifying)
        // What Linux cannot do: the subclass-only methods were not called...
        #expect(client.subscribed.isEmpty)
        #expect(client.beats.isEmpty)
        // ...and the replay says which, on which classes.
        let reported = replay.diagnostics.filter { $0.kind == .subclassedDelegate }.map(\.message)
        #expect(reported.count == 2)
        #expect(reported.contains { $0.hasPrefix("peripheral(_:didUpdateNotificationStateFor:error:) was called on a ") })
        #expect(reported.contains { $0.hasPrefix("peripheral(_:didUpdateValueFor:error:) was called on a ") })
        #expect(reported.allSatisfy { $0.contains("HeartRateClient, a subclass of ") && $0.contains("BaseCentral") })
    }

    /// A delegate whose own class conforms never gets that diagnostic for the methods it leaves out.
    @Test func aDirectlyConformingDelegateIsNotReported() throws {
        let replay = try CBReplay(capture: CapturePaths.sample("heart-rate-healthy.btsnoop"))
        let proxy = replay.activate { ForwardingCentral(name: "Pulse HRM") }
        proxy.add(ScanList())
        replay.run(for: 10)
        #expect(replay.diagnostics.isEmpty)
    }
}
