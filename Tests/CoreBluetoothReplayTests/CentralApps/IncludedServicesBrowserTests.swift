import BLEReplay
import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// `IncludedServicesBrowser` against SpecCapture.includedServices(): FFF0 includes 180F, 180A
/// and a 128-bit vendor service at an ATT MTU of 23. Find Included Services (Core v5.4 Vol 3
/// Part G 4.5.1) repeats its Read By Type «Include» until Attribute Not Found or the end of the
/// service's range, and reads the declaration of an included service whose UUID is 128-bit (the
/// include declaration carries only 16-bit UUIDs, Vol 3 Part G 3.2). Apple,
/// `CBService.includedServices`: "A list of included services discovered in this service";
/// `discoverIncludedServices(_:for:)`: "the peripheral calls
/// peripheral(_:didDiscoverIncludedServicesFor:error:)", with the services in `includedServices`.
@Suite struct IncludedServicesBrowserTests {
    static func run(_ filter: [CBUUID]? = nil) throws -> (CBReplay, IncludedServicesBrowser) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("included-\(UUID().uuidString).btsnoop").path
        try SpecCapture.includedServices().write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = IncludedServicesBrowser(replay: replay)
        app.includedFilter = filter
        replay.run(for: 10)
        return (replay, app)
    }

    /// All three included services, the 128-bit one with its UUID, in handle order; then the
    /// app discovers the vendor service's characteristic and reads it (recorded `C0 DE`).
    @Test func everyIncludedServiceIsFoundAtTheSmallestMTU() throws {
        let (replay, app) = try Self.run()
        #expect(app.included == ["FFF0": ["180F", "180A", SpecCapture.includedVendorService]], "\(app.log)")
        #expect(app.includedErrors.isEmpty)
        let fff0 = try #require(app.peripheral?.services?.first { $0.uuid == CBUUID(string: "FFF0") })
        let vendor = try #require(fff0.includedServices?.last)
        #expect(vendor.characteristics?.map(\.uuid.uuidString) == [SpecCapture.includedVendorCharacteristic])
        #expect(app.values[SpecCapture.includedVendorCharacteristic] == Data([0xC0, 0xDE]))
        // On the air: the Read By Type «Include» requests over FFF0's range go on from the
        // handle after the last include found until Attribute Not Found, then the Read Request
        // of the 128-bit service's declaration (0x000A).
        let link = try #require(replay.world.host.allLinks.first)
        let sent = link.log.filter(\.fromCentral).map(\.bytes)
        let includeRequests = sent.filter { $0.count == 7 && $0[0] == 0x08 && $0[5] == 0x02 && $0[6] == 0x28 && $0[3] == 0x12 }
        #expect(includeRequests.map { Int($0[1]) | Int($0[2]) << 8 } == [0x000D, 0x0010, 0x0011])
        let afterIncludes = try #require(sent.firstIndex(of: includeRequests.last!))
        #expect(sent[afterIncludes + 1] == [0x0A, 0x0A, 0x00])
    }

    /// A filter names the 128-bit service: only it is included, which needs its UUID read.
    @Test func aFilterOnA128BitIncludedServiceFindsIt() throws {
        let (_, app) = try Self.run([CBUUID(string: SpecCapture.includedVendorService)])
        #expect(app.included == ["FFF0": [SpecCapture.includedVendorService]], "\(app.log)")
    }
}

/// `SecondaryServiceSubscriber` against SpecCapture.secondaryServiceNotifications(): the only
/// way to the secondary service's characteristic is FFF0's include. Once subscribed (Apple,
/// `setNotifyValue(_:for:)`: "when the characteristic’s value changes, the peripheral calls
/// the peripheral(_:didUpdateValueFor:error:) method"), the app hears every notification the
/// peripheral sends for it, as for a characteristic of a primary service.
@Suite struct SecondaryServiceSubscriberTests {
    @Test func notificationsOfAnIncludedServicesCharacteristicReachTheApp() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("secondary-\(UUID().uuidString).btsnoop").path
        try SpecCapture.secondaryServiceNotifications().write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = SecondaryServiceSubscriber(replay: replay)
        replay.run(for: 10)
        #expect(app.log.first == "services FFF0", "\(app.log)")
        #expect(app.log.contains("notifying \(SpecCapture.includedVendorCharacteristic) true 0"), "\(app.log)")
        // The peripheral sent them (the link's log), and the app heard each.
        let link = try #require(replay.world.host.allLinks.first)
        let sent = link.log.filter { !$0.fromCentral && $0.bytes.first == 0x1B }.map { Data($0.bytes.dropFirst(3)) }
        #expect(sent == SpecCapture.secondaryNotifications.map { Data($0) })
        #expect(app.notified[SpecCapture.includedVendorCharacteristic] == sent, "\(app.notified)")
    }

    /// When the link goes, the subscription ends with it (Apple,
    /// `centralManager(_:didDisconnectPeripheral:error:)`: the peripheral's services,
    /// characteristics and descriptors are invalidated; Docs/replay.md "Disconnect"): the
    /// secondary service's characteristic no longer reads `isNotifying`, as one of a primary
    /// service does not.
    @Test func theSubscriptionEndsWithTheLink() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("secondary-\(UUID().uuidString).btsnoop").path
        try SpecCapture.secondaryServiceNotifications().write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var c = ReplayConfiguration()
        c.faults = [try FaultSpec(parsing: "disconnect:0x13@t=5s")]
        let replay = try CBReplay(capture: path, configuration: c)
        let app = SecondaryServiceSubscriber(replay: replay)
        replay.run(for: 3)
        let fff0 = try #require(app.peripheral?.services?.first)
        let characteristic = try #require(fff0.includedServices?.first?.characteristics?.first)
        #expect(characteristic.isNotifying)
        replay.run(for: 5)
        #expect(app.peripheral?.state == .disconnected)
        #expect(!characteristic.isNotifying)
    }
}
