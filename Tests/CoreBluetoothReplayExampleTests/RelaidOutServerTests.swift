import BLEReplay
import CoreBluetoothReplay
import Foundation
import Testing

/// An app whose GATT database is laid out differently from the recorded phone's (Docs/peripheral.md
/// "Handles"): the recorded central's requests reach the app's attributes by what they are
/// (service UUID, characteristic UUID, the how-many-th of each), not by the recorded handle; an
/// attribute the app lacks is a divergence that names it. Against Captures/heart-rate-peripheral.btsnoop,
/// where the recorded server had Heart Rate at 0x000A (2A37 value 0x000C, its CCCD 0x000D,
/// 2A38 0x000F, 2A39 0x0011; tshark frames 34, 37, 50).
@Suite struct RelaidOutServerTests {
    /// Heart Rate as in Examples/HeartRatePeripheral, optionally after a Battery service (which
    /// moves every Heart Rate handle by 3) and optionally without the control point.
    final class Sensor: NSObject, CBPeripheralManagerDelegate {
        var manager: CBPeripheralManager!
        let batteryFirst: Bool
        let withControlPoint: Bool
        let measurement = CBMutableCharacteristic(type: CBUUID(string: "2A37"), properties: [.notify], value: nil, permissions: [])
        var reads: [(TimeInterval, String)] = []
        var writes: [(TimeInterval, String, Data)] = []
        var subscriptions: [TimeInterval] = []
        var unsubscriptions: [TimeInterval] = []
        let now: () -> TimeInterval

        init(batteryFirst: Bool, withControlPoint: Bool, now: @escaping () -> TimeInterval) {
            self.batteryFirst = batteryFirst
            self.withControlPoint = withControlPoint
            self.now = now
            super.init()
            manager = CBPeripheralManager(delegate: self, queue: nil)
        }

        func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
            guard peripheral.state == .poweredOn else { return }
            if batteryFirst {
                let battery = CBMutableService(type: CBUUID(string: "180F"), primary: true)
                battery.characteristics = [CBMutableCharacteristic(type: CBUUID(string: "2A19"), properties: [.read], value: Data([0x64]),
                                                                   permissions: [.readable])]
                peripheral.add(battery)
            }
            let hr = CBMutableService(type: CBUUID(string: "180D"), primary: true)
            var chars = [measurement,
                         CBMutableCharacteristic(type: CBUUID(string: "2A38"), properties: [.read], value: nil, permissions: [.readable])]
            if withControlPoint {
                chars.append(CBMutableCharacteristic(type: CBUUID(string: "2A39"), properties: [.write], value: nil, permissions: [.writeable]))
            }
            hr.characteristics = chars
            peripheral.add(hr)
            peripheral.startAdvertising([CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "180D")]])
        }

        func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
            reads.append((now(), request.characteristic.uuid.uuidString))
            request.value = Data([0x01])
            peripheral.respond(to: request, withResult: .success)
        }

        func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
            for r in requests { writes.append((now(), r.characteristic.uuid.uuidString, r.value ?? Data())) }
            peripheral.respond(to: requests[0], withResult: .success)
        }

        func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic) {
            subscriptions.append(now())
            _ = peripheral.updateValue(Data([0x00, 72]), for: measurement, onSubscribedCentrals: nil)
        }

        func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic) {
            unsubscriptions.append(now())
        }
    }

    static func run(batteryFirst: Bool, withControlPoint: Bool) throws -> (CBReplay, Sensor) {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-peripheral.btsnoop"))
        let clock = replay.clock!
        let app = replay.activate { Sensor(batteryFirst: batteryFirst, withControlPoint: withControlPoint, now: { clock.now }) }
        replay.run(for: 40)
        return (replay, app)
    }

    static func near(_ a: TimeInterval, _ b: TimeInterval) -> Bool { abs(a - b) < 0.0005 }

    /// Battery first: the recorded read of 0x000F reaches the app's 2A38 (0x0012), the CCCD write
    /// to 0x000D its 2A37 CCCD (0x0010), the control-point write to 0x0011 its 2A39 (0x0014), at
    /// the recorded instants, and every answer matches the recorded one. Discovery is the system's
    /// answer from the app's own layout, so it is counted, not compared. Before the map, the read
    /// reached 2A37's value (notify only) and was refused with Read Not Permitted.
    @Test func requestsReachTheSameAttributesWhereverTheAppPutThem() throws {
        let (replay, app) = try Self.run(batteryFirst: true, withControlPoint: true)
        let driver = replay.localServerDriver
        #expect(driver.divergences.isEmpty, "\(driver.divergences)")
        let map = try #require(driver.servers.first?.handleMap)
        #expect(!map.isIdentity && map.missing.isEmpty)
        #expect(map.toApp[0x000F] == 0x0012 && map.toApp[0x000D] == 0x0010 && map.toApp[0x0011] == 0x0014 && map.toApp[0x000C] == 0x000F)
        #expect(app.reads.count == 1 && app.reads[0].1 == "2A38" && Self.near(app.reads[0].0, 1.420))
        #expect(app.writes.count == 1 && app.writes[0].1 == "2A39" && app.writes[0].2 == Data([0x01]) && Self.near(app.writes[0].0, 6.440))
        #expect(app.subscriptions.count == 2 && Self.near(app.subscriptions[0], 1.480) && Self.near(app.subscriptions[1], 26.980))
        #expect(app.unsubscriptions.count == 2 && Self.near(app.unsubscriptions[0], 25.060))
        #expect(driver.servers.allSatisfy { $0.discoveryRelaidOut > 0 && $0.unrecorded == 0 })
    }

    /// Without the control point: the recorded write to 0x0011 (frame 50) names an attribute the
    /// app does not have; the divergence says which, and the app's server refuses handle 0x0000
    /// (Invalid Handle) instead of whatever the app has there.
    @Test func aMissingCharacteristicIsADivergenceNamingIt() throws {
        let (replay, app) = try Self.run(batteryFirst: false, withControlPoint: false)
        let first = try #require(replay.localServerDriver.divergences.first)
        #expect(first.requestPacketID == 50)
        #expect(first.description == "packet 50 Write Request to 0x0011: characteristic 2A39 (Heart Rate Control Point) in service 180D (Heart Rate) is not in the app's database")
        #expect(replay.localServerDriver.divergences.count == 1, "\(replay.localServerDriver.divergences)")
        #expect(app.writes.isEmpty)
        #expect(app.reads.count == 1)
    }
}
