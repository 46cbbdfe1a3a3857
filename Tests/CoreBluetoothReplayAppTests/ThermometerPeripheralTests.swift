import BLEReplay
import CoreBluetoothReplay
import Foundation
import Testing

/// ThermometerPeripheral driven by a central script playing a phone nobody recorded (the
/// replay's `runCentralScript`, Docs/peripheral.md "A central script as the remote central"):
/// it scans for 1809, connects (ATT MTU 185), discovers everything, reads the cached battery
/// level and the interval, subscribes to indications, changes the interval, tries an interval
/// out of range and the calibration value (it never pairs), unsubscribes and disconnects.
@Suite struct ThermometerPeripheralTests {
    static let script = """
    {
      "name": "thermometer-phone",
      "server": "local",
      "steps": [
        { "scan": { "services": ["1809"], "timeout": "5s" } },
        { "connect": { "timeout": "5s" } },
        { "discover": {} },
        { "read": { "characteristic": "2A19", "expect": { "value": "hex:57" } } },
        { "read": { "characteristic": "2A21", "expect": { "value": "hex:0200" } } },
        { "subscribe": { "characteristic": "2A1C", "indicate": true } },
        { "wait": { "notifications": 2, "characteristic": "2A1C", "timeout": "10s" } },
        { "write": { "characteristic": "2A21", "value": "hex:0100" } },
        { "wait": { "notifications": 3, "characteristic": "2A1C", "timeout": "10s" } },
        { "write": { "characteristic": "2A21", "value": "hex:5A00", "expect": { "attError": "0xFF" } } },
        { "read": { "characteristic": "A1C0FFEE-0000-4000-8000-00805F9B34FB", "expect": { "attError": "0x05" } } },
        { "unsubscribe": { "characteristic": "2A1C" } },
        { "disconnect": {} }
      ]
    }
    """

    static func run() throws -> (CBReplay, ThermometerPeripheral, ScriptResult) {
        let replay = try CBReplay(capture: CapturePaths.sample("heart-rate-peripheral.btsnoop"))
        let app = replay.activate { ThermometerPeripheral(now: { replay.clock.now }) }
        let result = replay.runCentralScript(try CentralScript(parsing: Array(script.utf8), name: "thermometer-phone.json"))
        replay.run(for: 1)
        return (replay, app, result)
    }

    @Test func thePhonesStepsPassAgainstTheApp() throws {
        let (_, app, result) = try Self.run()
        #expect(result.passed, "\(ScriptReport.text(result))")
        // Two services, one advertising: the second start (from the second didAdd) fails as
        // "already advertising" (CBError 9).
        #expect(app.log.filter { $0.contains("advertising") }.map { String($0.dropFirst(6)) }
                == ["advertising", "advertising error CBErrorDomain 9"], "\(app.log)")
        #expect(app.log.contains { $0.hasSuffix("subscribed 2A1C") } && app.log.contains { $0.hasSuffix("unsubscribed 2A1C") })
        // The calibration needs a paired central: the system refused it, the app never heard it.
        #expect(!app.log.contains { $0.contains("read A1C0FFEE") }, "\(app.log)")
        #expect(app.log.filter { $0.contains("interval") }.map { String($0.dropFirst(6)) } == ["interval 1", "interval 90"])
        #expect(app.indicationsSent >= 5)
    }

    @Test func theSameRunTwiceGivesTheSameLog() throws {
        let (_, a, r) = try Self.run()
        let (_, b, s) = try Self.run()
        #expect(a.log == b.log)
        #expect(ScriptReport.text(r) == ScriptReport.text(s))
    }
}
