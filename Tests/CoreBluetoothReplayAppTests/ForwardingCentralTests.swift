import CoreBluetoothReplay
import Foundation
import Testing

/// The delegate-forwarding client: `listener.centralManager?(…)` and `listener.peripheral?(…)`
/// compile unchanged and reach each listener's own implementation; a listener without one hears
/// nothing (the default).
@Suite struct ForwardingCentralTests {
    @Test func optionalChainedCallsReachTheListenersThatImplementThem() throws {
        let replay = try CBReplay(capture: CapturePaths.sample("heart-rate-healthy.btsnoop"))
        let (proxy, scans, screen) = replay.activate { () -> (ForwardingCentral, ScanList, DeviceScreen) in
            let proxy = ForwardingCentral(name: "Pulse HRM")
            let scans = ScanList(), screen = DeviceScreen()
            proxy.add(scans)
            proxy.add(screen)
            return (proxy, scans, screen)
        }
        replay.run(for: 20)
        #expect(scans.states == [.poweredOn])
        #expect(scans.seen.values.contains("Pulse HRM"))
        // The proxy stops scanning once it connects, so the list holds what came before.
        #expect(screen.events.prefix(2) == ["connected", "services 180D,180F,180A"])
        #expect(screen.values["2A38"] == Data([0x01]))
        #expect(screen.values["2A19"] == Data([0x5C]))
        #expect(screen.values["2A29"] == Data("Acme Sensors".utf8))
        #expect(screen.values["2A24"] == Data("HRM-200".utf8))
        #expect(proxy.peripheral?.state == .connected)
        #expect(replay.diagnostics.isEmpty)
    }

    /// The optional-call property is never nil: `delegate?.centralManager?(…)` gives `()` where
    /// iOS gives nil for a method the target lacks (Docs/replay.md "API as on iOS").
    @Test func theOptionalCallGivesAValueEvenWhenTheTargetLacksTheMethod() {
        let scans = ScanList()
        let target: (any CBPeripheralDelegate)? = scans
        #expect(target?.peripheralDidUpdateName != nil)
    }
}
