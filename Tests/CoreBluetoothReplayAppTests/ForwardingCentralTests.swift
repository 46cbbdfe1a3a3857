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

    /// On a real Android capture (../shared/captures/android-yeelock.btsnoop; `blereplay gatt`,
    /// tshark): the lock 60:C0:BF:1A:19:75 has 1800, 1801 and one vendor service
    /// 58AF3DCA-6FC0-4FA3-9464-74662F043A39 whose two characteristics are indicate-only and
    /// write-only. The forwarded callbacks reach the screen: connected, the vendor service alone
    /// (iOS hides 1800 and 1801), its characteristics, no read (nothing readable is left once
    /// those are hidden), the lock's indications, and its own disconnection.
    static let yeelock = CapturePaths.real("android-yeelock.btsnoop")

    @Test(.enabled(if: FileManager.default.fileExists(atPath: yeelock)))
    func forwardsOnARealLockCapture() throws {
        let replay = try CBReplay(capture: Self.yeelock)
        let lock = try #require(replay.peripheral("60:C0:BF:1A:19:75"))
        let id = CBReplay.identifier(for: lock.model)
        let (proxy, scans, screen) = replay.activate { () -> (ForwardingCentral, ScanList, DeviceScreen) in
            let proxy = ForwardingCentral(name: nil, identifier: id)
            let scans = ScanList(), screen = DeviceScreen()
            proxy.add(scans)
            proxy.add(screen)
            return (proxy, scans, screen)
        }
        replay.run(for: 30)
        #expect(scans.seen[id] != nil)
        // The lock ends each recorded connection itself (Disconnection Complete 0x13, tshark frames
        // 522 and 685, no HCI Disconnect from the phone): CBError.peripheralDisconnected (7).
        #expect(screen.events == ["connected", "services 58AF3DCA-6FC0-4FA3-9464-74662F043A39",
                                  "characteristic 58AF3DCA-6FC0-4FA3-9464-74662F043A3A indicate",
                                  "characteristic 58AF3DCA-6FC0-4FA3-9464-74662F043A3B write", "disconnected 7"])
        // The capture shows no write to the CCCD 0x000D (the bond's subscription predates it, Core
        // v5.4 Vol 3 Part G 3.3.3.3), so the lock's indications on 0x000C come at their recorded
        // offsets from the connection start (Docs/replay.md "Anchoring rules" 1); the screen keeps
        // the last of the first connection's four, tshark frame 515. No read was made.
        let last = "05405c84ff3dbf7962fd9ec03b2d66be9ac4d0e7"
        #expect(screen.values.mapValues { $0.map { String(format: "%02x", $0) }.joined() } == ["58AF3DCA-6FC0-4FA3-9464-74662F043A3A": last])
        #expect(screen.readErrors.isEmpty)
        #expect(proxy.peripheral?.state == .disconnected)
        #expect(replay.diagnostics.isEmpty)
    }
}
