import CoreBluetoothReplay
import Foundation
import Testing

/// `CBPeripheralManager` misuse as iOS treats it (Docs/peripheral.md "iOS's GATT server, rule by
/// rule"): what iOS raises as NSInternalInconsistencyException traps here (the app would crash;
/// an error callback would let a test pass), what it logs and ignores is ignored with a
/// diagnostic, and what it drops before `.poweredOn` is dropped.
@Suite struct PeripheralManagerMisuseTests {
    /// A server that, once powered on, runs `publish` on its manager.
    final class Server: NSObject, CBPeripheralManagerDelegate {
        var manager: CBPeripheralManager!
        let publish: (CBPeripheralManager) -> Void
        var added: [(String, (any Error)?)] = []
        var advertising: [(any Error)?] = []
        init(publish: @escaping (CBPeripheralManager) -> Void) {
            self.publish = publish
            super.init()
            manager = CBPeripheralManager(delegate: self, queue: nil)
        }
        func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
            if peripheral.state == .poweredOn { publish(peripheral) }
        }
        func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?) {
            added.append((service.uuid.uuidString, error))
        }
        func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: (any Error)?) {
            advertising.append(error)
        }
    }

    static func run(_ publish: @escaping (CBPeripheralManager) -> Void) -> (CBReplay, Server) {
        let replay = try! CBReplay(capture: Samples.capture("heart-rate-peripheral.btsnoop"))
        let server = replay.activate { Server(publish: publish) }
        replay.run(for: 1)
        return (replay, server)
    }

    static func service(_ uuid: String, _ characteristics: [CBMutableCharacteristic] = []) -> CBMutableService {
        let s = CBMutableService(type: CBUUID(string: uuid), primary: true)
        s.characteristics = characteristics
        return s
    }

    static func cached(_ properties: CBCharacteristicProperties, _ permissions: CBAttributePermissions = [.readable]) -> CBMutableCharacteristic {
        CBMutableCharacteristic(type: CBUUID(string: "FFF1"), properties: properties, value: Data("v1".utf8), permissions: permissions)
    }

    // MARK: iOS exceptions

    /// "Characteristics with cached values must be read-only": a cached value with `.notify` too.
    @Test func aCachedValueThatAlsoNotifiesTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = PeripheralManagerMisuseTests.run { $0.add(PeripheralManagerMisuseTests.service("FFF0", [PeripheralManagerMisuseTests.cached([.read, .notify])])) }
        }
    }

    @Test func aCachedValueWithWriteablePermissionsTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = PeripheralManagerMisuseTests.run { $0.add(PeripheralManagerMisuseTests.service("FFF0", [PeripheralManagerMisuseTests.cached([.read], [.readable, .writeable])])) }
        }
    }

    /// "Services cannot be added more than once".
    @Test func addingAServiceTwiceTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = PeripheralManagerMisuseTests.run { m in
                let s = PeripheralManagerMisuseTests.service("FFF0")
                m.add(s)
                m.add(s)
            }
        }
    }

    /// "Characteristics cannot be added more than once": one characteristic in two services.
    @Test func addingACharacteristicTwiceTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = PeripheralManagerMisuseTests.run { m in
                let c = CBMutableCharacteristic(type: CBUUID(string: "FFF1"), properties: [.read], value: nil, permissions: [.readable])
                m.add(PeripheralManagerMisuseTests.service("FFF0", [c]))
                m.add(PeripheralManagerMisuseTests.service("FFE0", [c]))
            }
        }
    }

    /// "Included services must be published before the services that include them".
    @Test func includingAnUnpublishedServiceTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = PeripheralManagerMisuseTests.run { m in
                let outer = PeripheralManagerMisuseTests.service("FFF0")
                outer.includedServices = [PeripheralManagerMisuseTests.service("FFE0")]
                m.add(outer)
            }
        }
    }

    /// What is allowed still publishes: a read-only cached value, an included service added first.
    @Test func aReadOnlyCachedValueAndAPublishedIncludedServiceAreAdded() {
        let (_, server) = Self.run { m in
            let inner = PeripheralManagerMisuseTests.service("FFE0")
            m.add(inner)
            let outer = PeripheralManagerMisuseTests.service("FFF0", [PeripheralManagerMisuseTests.cached([.read])])
            outer.includedServices = [inner]
            m.add(outer)
        }
        #expect(server.added.map(\.0) == ["FFE0", "FFF0"])
        #expect(server.added.allSatisfy { $0.1 == nil })
    }

    // MARK: Logged and ignored

    /// iOS advertises the local name and service UUIDs and ignores (logs) the other keys.
    @Test func otherAdvertisingKeysAreIgnoredAndItStillAdvertises() {
        let (replay, server) = Self.run { m in
            m.startAdvertising([CBAdvertisementDataLocalNameKey: "Rules",
                                CBAdvertisementDataManufacturerDataKey: Data([0x4C, 0x00]),
                                CBAdvertisementDataTxPowerLevelKey: NSNumber(value: 4)])
        }
        #expect(server.advertising.count == 1)
        #expect(server.advertising.first.map { $0 == nil } == true)
        #expect(server.manager.isAdvertising)
        #expect(replay.diagnostics.contains { $0.message.contains(CBAdvertisementDataManufacturerDataKey) })
    }

    // MARK: Before poweredOn

    /// `add` and `startAdvertising` before `.poweredOn`: iOS logs "API MISUSE" and drops them,
    /// with no callback.
    @Test func addAndStartAdvertisingBeforePoweredOnAreDropped() {
        let replay = try! CBReplay(capture: Samples.capture("heart-rate-peripheral.btsnoop"))
        let server = replay.activate { () -> Server in
            let s = Server { _ in }
            s.manager.add(Self.service("FFF0"))
            s.manager.startAdvertising([CBAdvertisementDataLocalNameKey: "Early"])
            return s
        }
        replay.run(for: 1)
        #expect(server.manager.state == .poweredOn)
        #expect(server.added.isEmpty)
        #expect(server.advertising.isEmpty)
        #expect(!server.manager.isAdvertising)
        let misuse = replay.diagnostics.filter { $0.message.contains("API MISUSE") }.map(\.message)
        #expect(misuse.contains { $0.contains("add(_:)") })
        #expect(misuse.contains { $0.contains("startAdvertising(_:)") })
    }
}
