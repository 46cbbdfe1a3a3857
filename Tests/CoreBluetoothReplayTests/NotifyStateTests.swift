import BLEReplay
import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// `setNotifyValue(_:for:)` on characteristics that cannot notify, as iOS answers it
/// (Docs/replay.md "How iOS behaves"): without the Notify or Indicate property CoreBluetooth
/// refuses the call itself, with CBATTError requestNotSupported (6) "The request is not supported."
/// in `didUpdateNotificationStateFor` (react-native-ble-manager issue 771, iOS 14.6: answered "you
/// are using a wrong characteristic"), and nothing goes on air; a characteristic that has the
/// property but no Client Characteristic Configuration descriptor gives attributeNotFound (10)
/// (SwiftyBluetooth issue 36, BabyBluetooth issue 90: a descriptor missing in the firmware).
@Suite struct NotifyStateTests {
    /// heart-rate-healthy's Body Sensor Location (2A38, properties 0x02 read only).
    @Test(arguments: [true, false]) func aCharacteristicWithoutNotifyOrIndicateIsRefusedByTheSystem(enable: Bool) throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = NotifyStateApp(replay: replay)
        app.target = "2A38"
        app.enable = enable
        replay.run(for: 5)
        #expect(app.states.map(\.code) == [6])
        #expect(app.states.map(\.domain) == [CBATTErrorDomain])
        #expect(app.states.map(\.notifying) == [false])
        #expect(!app.deliveredInsideCall)
        // Nothing was sent for it: no Find Information or Write Request after discovery.
        let sent = replay.world.host.allLinks[0].log.filter(\.fromCentral).map { $0.bytes.first ?? 0 }
        #expect(!sent.contains(0x04) && !sent.contains(0x12))
    }

    /// 2A37 (Notify) subscribes as before.
    @Test func aNotifyingCharacteristicSubscribes() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = NotifyStateApp(replay: replay)
        app.target = "2A37"
        replay.run(for: 5)
        #expect(app.states.map(\.code) == [0])
        #expect(app.states.map(\.notifying) == [true])
    }
}

/// Subscribes to one characteristic of Pulse HRM once discovered, noting each
/// `didUpdateNotificationStateFor` (error domain and code, 0 for none; `isNotifying`).
final class NotifyStateApp: NSObject, CBPeripheralDelegate {
    let app: DiscoveringApp
    var target = ""
    var enable = true
    var states: [(domain: String, code: Int, notifying: Bool)] = []
    var deliveredInsideCall = false
    private var inside = false

    init(replay: CBReplay) {
        app = DiscoveringApp(replay: replay, target: "Pulse HRM")
        super.init()
        app.ready = { [unowned self] app, p in
            guard let c = app.characteristic(target) else { return }
            p.delegate = self
            inside = true
            p.setNotifyValue(enable, for: c)
            inside = false
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: (any Error)?) {
        if inside { deliveredInsideCall = true }
        states.append(((error as NSError?)?.domain ?? "", (error as NSError?)?.code ?? 0, characteristic.isNotifying))
    }
}
