import CoreBluetoothReplay
import Foundation
import Testing

/// `writeValue(_:for: CBDescriptor)` on a Client Characteristic Configuration descriptor: iOS
/// raises an Objective-C exception ("Client Characteristic Configuration descriptors must be
/// configured using setNotifyValue:forCharacteristic:"), which ends the app. Swift on Linux has
/// no Objective-C exceptions; the replay traps the same way (a precondition failure with that
/// message), so a test suite fails where the iPhone app would crash. Other descriptors write.
@Suite struct CCCDWriteTests {
    static func writeDescriptor(_ uuid: String) -> (DiscoveringApp, CBReplay) {
        let replay = try! CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = DiscoveringApp(replay: replay, target: "Pulse HRM")
        app.ready = { app, p in
            guard let c = app.characteristic("2A37") else { return }
            p.discoverDescriptors(for: c)
        }
        final class Writer: NSObject, CBPeripheralDelegate {
            let uuid: String
            var wrote: (any Error)?? = .none
            init(_ uuid: String) { self.uuid = uuid }
            func peripheral(_ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: (any Error)?) {
                guard let d = characteristic.descriptors?.first(where: { $0.uuid == CBUUID(string: uuid) }) else { return }
                peripheral.writeValue(Data([0x01, 0x00]), for: d)
            }
        }
        let writer = Writer(uuid)
        app.onValue = nil
        app.ready = { app, p in
            guard let c = app.characteristic("2A37") else { return }
            p.delegate = writer
            p.discoverDescriptors(for: c)
        }
        replay.run(for: 10)
        _ = writer
        return (app, replay)
    }

    @Test func writingTheCCCDTrapsAsIOSRaises() async {
        await #expect(processExitsWith: .failure) {
            _ = CCCDWriteTests.writeDescriptor("2902")
        }
    }

    @Test func theSameAppWithoutTheCCCDWriteRunsToTheEnd() {
        let (app, _) = Self.writeDescriptor("2901")
        #expect(app.log.contains { $0.contains("connect") })
    }
}
