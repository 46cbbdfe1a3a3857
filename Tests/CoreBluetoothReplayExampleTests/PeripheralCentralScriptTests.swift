import BLECore
import BLEReplay
import CoreBluetoothReplay
import Foundation
import Testing

/// A central script as the remote phone of Examples/HeartRatePeripheral (Docs/peripheral.md "A
/// central script as the remote central"): the same script language `blereplay replay --central`
/// runs, driving the app's own CBPeripheralManager on the virtual clock, with behaviour the
/// capture never recorded; and the fault of a central that stops reading.
@Suite struct PeripheralCentralScriptTests {
    static func script(_ name: String) throws -> CentralScript {
        let path = "\(Samples.packageRoot)/Examples/scripts/\(name)"
        return try CentralScript(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: path))), name: name)
    }

    static func app(_ configuration: ReplayConfiguration? = nil) throws -> (CBReplay, HeartRatePeripheral) {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-peripheral.btsnoop"), configuration: configuration)
        let clock = replay.clock!
        let app = replay.activate { HeartRatePeripheral(now: { clock.now }) }
        return (replay, app)
    }

    /// The shipped script, as the phone: it finds the app's advertising (Pulse HR, 180D), connects,
    /// discovers the app's database, reads Body Sensor Location (the app answers 01, chest),
    /// subscribes to 2A37 (the app hears didSubscribeTo and sends its history first), writes the
    /// control point (the app resets Energy Expended), unsubscribes and disconnects. The recorded
    /// collector never connects while the script runs.
    @Test func theScriptDrivesTheAppsGATTServer() throws {
        let (replay, app) = try Self.app()
        let result = replay.runCentralScript(try Self.script("heart-rate-peripheral-phone.json"))
        #expect(result.passed, "\(ScriptReport.text(result))")
        #expect(result.checks.count == 9)
        let discovered = try #require(result.checks.first { $0.label.contains("discover") })
        #expect(discovered.message == "1 services, 3 characteristics: 180D")
        #expect(app.energyResets == 1)
        let subscribed = app.events.filter { if case .subscribed = $0 { true } else { false } }
        let unsubscribed = app.events.filter { if case .unsubscribed = $0 { true } else { false } }
        #expect(subscribed.count == 1 && unsubscribed.count == 1)
        #expect(app.events.contains { if case .read(_, "2A38", 0) = $0 { true } else { false } })
        // Only the script's link: the recorded collector stayed away.
        let driver = replay.localServerDriver
        #expect(driver.servers.count == 1 && driver.servers[0].recorded == nil)
        #expect(replay.world.host.allLinks.count == 1 && replay.world.host.allLinks[0].localCentral == false)
        // The same script, the same app: the same outcome, check for check.
        let (again, sameApp) = try Self.app()
        let second = again.runCentralScript(try Self.script("heart-rate-peripheral-phone.json"))
        #expect(ScriptReport.text(second) == ScriptReport.text(result))
        #expect(sameApp.events == app.events)
    }

    /// What nobody recorded: a control-point value the app refuses with its own ATT error 0x80
    /// (Control Point Not Supported), and a read at an offset past the value (0x07), both as the
    /// script expects them; a wrong expectation fails the run with JUnit output as the CLI's.
    @Test func behaviourNobodyRecordedIsChecked() throws {
        let (replay, app) = try Self.app()
        let script = try CentralScript(parsing: Array("""
            {"name": "unrecorded", "steps": [
              {"connect": {"timeout": "5s"}},
              {"discover": {}},
              {"write": {"characteristic": "2A39", "value": "hex:02", "expect": {"attError": "0x80"}}},
              {"write": {"characteristic": "2A39", "value": "hex:01", "expect": {"attError": "0x80"}}},
              {"read": {"characteristic": "2A38", "expect": {"value": "hex:01"}}}
            ]}
            """.utf8), name: "unrecorded.json")
        let result = replay.runCentralScript(script)
        #expect(result.finished)
        #expect(result.checks.map(\.passed) == [true, true, true, false, true], "\(ScriptReport.text(result))")
        #expect(result.checks[3].message == "write succeeded, expected ATT error 0x80 Application Error (0x80)")
        #expect(app.energyResets == 1)
        let junit = ScriptReport.junit([result]).xml()
        #expect(junit.contains("failures=\"1\""), "\(junit)")
    }

    /// The central stops reading (`stop-reading`) after the app's 3rd notification: its link
    /// layer acknowledges nothing more, so the controller's 8 LE ACL buffers fill with the next 8
    /// measurements (one a second), updateValue then returns false and
    /// peripheralManagerIsReady never comes; the script's wait for 10 notifications fails.
    @Test func aScriptedCentralThatStopsReadingFillsTheAppsQueue() throws {
        let (replay, app) = try Self.app()
        let script = try CentralScript(parsing: Array("""
            {"name": "stops-reading", "inject": ["stop-reading@after=handle-value-notification#3"], "steps": [
              {"connect": {"timeout": "5s"}},
              {"discover": {"services": ["180D"]}},
              {"subscribe": {"characteristic": "2A37"}},
              {"wait": {"notifications": 10, "characteristic": "2A37", "timeout": "30s"}}
            ]}
            """.utf8), name: "stops-reading.json")
        let result = replay.runCentralScript(script)
        #expect(replay.world.firedFaults.count == 1 && replay.world.unfiredFaults.isEmpty)
        let wait = try #require(result.checks.last)
        #expect(!wait.passed && wait.message == "3 of 10 notifications within 30 s", "\(ScriptReport.text(result))")
        let subscribedAt = try #require(app.events.compactMap { e -> TimeInterval? in if case .subscribed(let t, _) = e { t } else { nil } }.first)
        let sent = app.events.filter { if case .sent = $0 { true } else { false } }
        #expect(sent.count == 3 + 8, "\(app.events)")
        #expect(app.events.contains { if case .queueFull = $0 { true } else { false } })
        #expect(!app.events.contains { if case .ready = $0 { true } else { false } })
        #expect(subscribedAt > 0)
    }

    /// The same fault on the recording (`--inject`): the recorded collector stops reading after
    /// the app's 5th notification (5.000 s: the history at 1.480 s, then one a second). Nothing
    /// the local controller sends from then on is acknowledged: the collector's control-point
    /// write still comes at its recorded 6.440 s (it followed one of the server's notifications,
    /// so it keeps its recorded time), and the app's Write Response takes one of the controller's
    /// 8 LE ACL buffers, the next 7 measurements the others; from then on updateValue returns
    /// false and peripheralManagerIsReady never comes on that link. The link loss follows as
    /// recorded: didUnsubscribeFrom at 25.060 s, the recorded Disconnection Complete 0x08. The
    /// reconnect (26.560 s) gets all 8 buffers back.
    @Test func aRecordedCentralThatStopsReadingLosesTheLinkAsRecorded() throws {
        var c = ReplayConfiguration()
        c.faults = [try FaultSpec(parsing: "stop-reading@after=handle-value-notification:0x000C#5")]
        let (replay, app) = try Self.app(c)
        replay.run(for: 40)
        #expect(replay.world.unfiredFaults.isEmpty)
        let fired = replay.world.firedFaults.map(\.time)
        #expect(fired.count == 2 && fired[0] == 5_000_000, "\(fired)")
        let unsubscribed = app.events.compactMap { e -> TimeInterval? in if case .unsubscribed(let t, _) = e { t } else { nil } }
        #expect(unsubscribed.count == 2 && HeartRatePeripheralTests.near(unsubscribed[0], 25.060), "\(unsubscribed)")
        func sent(_ range: ClosedRange<TimeInterval>) -> Int {
            app.events.filter { if case .sent(let t, _) = $0 { range.contains(t) } else { false } }.count
        }
        #expect(sent(5.5...25.06) == 7)
        #expect(app.events.contains { if case .wrote(let t, "2A39", _) = $0 { HeartRatePeripheralTests.near(t, 6.44) } else { false } })
        let firstFull = app.events.compactMap { e -> TimeInterval? in if case .queueFull(let t) = e { t } else { nil } }.first
        #expect(firstFull.map { HeartRatePeripheralTests.near($0, 13.0) } == true, "\(String(describing: firstFull))")
        #expect(!app.events.contains { if case .ready(let t) = $0 { t > 5 && t < 25.06 } else { false } })
        #expect(app.events.contains { if case .subscribed(let t, _) = $0 { HeartRatePeripheralTests.near(t, 26.98) } else { false } })
        #expect(sent(26.9...40) >= 8)
    }
}
