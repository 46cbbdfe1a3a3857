import CoreBluetoothReplay
import Foundation
import Testing

/// `connect` called while the peripheral is `.disconnecting` (Docs/replay.md "connect while
/// disconnecting"): the request is kept and carried out once the disconnection completes, as a
/// connection request on iOS does not time out and is withdrawn only by
/// `cancelPeripheralConnection`.
@Suite struct ConnectWhileDisconnectingTests {
    /// Connects to Pulse HRM; at the first `didConnect` it disconnects and at once connects
    /// again (an app's "reconnect" button); `cancelsAgain` also cancels that second request
    /// before the disconnection completes.
    final class Reconnector: NSObject, CBCentralManagerDelegate {
        let clock: CBReplayClock
        var central: CBCentralManager!
        var peripheral: CBPeripheral?
        var log: [String] = []
        var stateAfterConnect: CBPeripheralState?
        let cancelsAgain: Bool

        init(replay: CBReplay, cancelsAgain: Bool = false) {
            clock = replay.clock
            self.cancelsAgain = cancelsAgain
            super.init()
            central = replay.activate { CBCentralManager(delegate: self, queue: nil) }
        }

        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            if central.state == .poweredOn { central.scanForPeripherals(withServices: nil) }
        }
        func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
            guard self.peripheral == nil, advertisementData[CBAdvertisementDataLocalNameKey] as? String == "Pulse HRM" else { return }
            self.peripheral = peripheral
            central.stopScan()
            central.connect(peripheral)
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            log.append("connect")
            guard log.count == 1 else { return }
            central.cancelPeripheralConnection(peripheral)
            log.append("state \(peripheral.state == .disconnecting ? "disconnecting" : "\(peripheral.state.rawValue)")")
            central.connect(peripheral)
            stateAfterConnect = peripheral.state
            if cancelsAgain { central.cancelPeripheralConnection(peripheral) }
        }
        func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?) {
            log.append("disconnect \(error == nil ? "no error" : "\(error!)")")
        }
        func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?) {
            log.append("fail")
        }
    }

    @Test func aConnectWhileDisconnectingConnectsOnceTheDisconnectionCompletes() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = Reconnector(replay: replay)
        replay.run(for: 10)
        #expect(app.log == ["connect", "state disconnecting", "disconnect no error", "connect"], "\(app.log)")
        // The request waits: the peripheral stays `.disconnecting` until the link is down.
        #expect(app.stateAfterConnect == .disconnecting)
        #expect(app.peripheral?.state == .connected)
        #expect(replay.world.host.allLinks.count == 2)
    }

    @Test func cancelBeforeTheDisconnectionCompletesWithdrawsIt() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = Reconnector(replay: replay, cancelsAgain: true)
        replay.run(for: 10)
        #expect(app.log == ["connect", "state disconnecting", "disconnect no error"], "\(app.log)")
        #expect(app.peripheral?.state == .disconnected)
        #expect(replay.world.host.allLinks.count == 1)
    }
}
