import CoreBluetoothReplay
import Foundation
import Testing

/// `CBConnectPeripheralOptionStartDelayKey` (Apple: "An option that indicates a delay before the
/// system makes a connection. The corresponding value is an NSNumber that indicates the duration of
/// the delay in seconds."): the system starts connecting only after the delay, so `didConnect` comes
/// no earlier than that after `connect(_:options:)`; the peripheral is `.connecting` meanwhile, and
/// `cancelPeripheralConnection` during the delay ends the request (didDisconnectPeripheral, no
/// error) with nothing sent to the controller. The replay ignored the option and connected at the
/// peripheral's next advertising event (Pulse HRM, heart-rate-healthy: about 0.3 s).
@Suite struct ConnectStartDelayTests {
    final class App: NSObject, CBCentralManagerDelegate {
        let clock: CBReplayClock
        let options: [String: Any]?
        let cancelAfter: TimeInterval?
        var central: CBCentralManager!
        var peripheral: CBPeripheral?
        var connectCalledAt: TimeInterval?
        var log: [String] = []
        var stateDuringDelay: CBPeripheralState?

        init(replay: CBReplay, options: [String: Any]?, cancelAfter: TimeInterval? = nil) {
            clock = replay.clock
            self.options = options
            self.cancelAfter = cancelAfter
            super.init()
            central = replay.activate { CBCentralManager(delegate: self, queue: nil) }
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            if central.state == .poweredOn { central.scanForPeripherals(withServices: [CBUUID(string: "180D")]) }
        }
        func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
            guard self.peripheral == nil else { return }
            self.peripheral = peripheral
            central.stopScan()
            connectCalledAt = clock.now
            central.connect(peripheral, options: options)
            clock.schedule(after: 1) { [self] in stateDuringDelay = peripheral.state }
            if let cancelAfter { clock.schedule(after: cancelAfter) { [self] in central.cancelPeripheralConnection(peripheral) } }
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            log.append("connect \(clock.now - (connectCalledAt ?? 0))")
        }
        func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
            log.append("disconnect \(clock.now - (connectCalledAt ?? 0)) \(error == nil ? "nil" : "error")")
        }
    }

    static func delay(_ line: String?) -> Double? { line.flatMap { Double($0.split(separator: " ")[1]) } }

    @Test(arguments: [NSNumber(value: 3), NSNumber(value: 2.5)])
    func didConnectComesAfterTheStartDelay(delay: NSNumber) throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = App(replay: replay, options: [CBConnectPeripheralOptionStartDelayKey: delay])
        replay.run(for: 10)
        #expect(app.stateDuringDelay == .connecting)
        let after = try #require(Self.delay(app.log.first { $0.hasPrefix("connect") }))
        #expect(after >= delay.doubleValue)
        #expect(after < delay.doubleValue + 1)
    }

    @Test func withoutTheOptionItConnectsAtTheNextAdvertisement() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = App(replay: replay, options: nil)
        replay.run(for: 10)
        let after = try #require(Self.delay(app.log.first { $0.hasPrefix("connect") }))
        #expect(after < 1)
    }

    @Test func cancellingDuringTheDelayEndsTheRequestWithNothingSent() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = App(replay: replay, options: [CBConnectPeripheralOptionStartDelayKey: NSNumber(value: 5)], cancelAfter: 2)
        replay.run(for: 10)
        #expect(app.log.count == 1)
        #expect(app.log.first.map { $0.hasPrefix("disconnect 2.0") && $0.hasSuffix(" nil") } == true)
        #expect(app.peripheral?.state == .disconnected)
        // No LE Create Connection (0x200D) ever went to the controller.
        #expect(replay.world.host.allLinks.isEmpty)
    }
}
