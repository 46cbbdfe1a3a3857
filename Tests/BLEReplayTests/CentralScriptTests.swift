import Foundation
import BLECore
import Testing
@testable import BLEReplay

@Suite struct CentralScriptTests {
    static func script(_ json: String) throws -> CentralScript {
        try CentralScript(parsing: Array(json.utf8), name: "test.json")
    }

    static func example(_ name: String) throws -> CentralScript {
        let path = "\(TestCaptures.packageRoot)/Examples/scripts/\(name)"
        return try CentralScript(parsing: try TextFile.read(path), name: name)
    }

    func run(_ script: CentralScript, on capture: String, faults: [String] = [], seed: UInt64 = 0) throws -> (ScriptResult, ReplayWorld, RecordedSession) {
        let session = try TestCaptures.session(TestCaptures.sample(capture))
        var base = ReplayConfiguration()
        base.faults = try faults.map { try FaultSpec(parsing: $0) }
        base.seed = seed
        let c = ScriptReplay.configuration(script, session: session, base: base, unmatchedGiven: false)
        let (r, w) = ScriptReplay.run(session, script: script, configuration: c)
        return (r, w, session)
    }

    @Test func parsesEveryStepKind() throws {
        let s = try Self.script("""
            {"name": "all", "reconnect": {"attempts": 2, "initial": "500ms", "maximum": "4s", "multiplier": 3},
             "unmatched": "error:0x0E", "mtu": 247, "limit": "2m", "inject": ["latency-scale:2"],
             "steps": [
              {"scan": {"services": ["180D"], "timeout": "5s", "allowDuplicates": true}},
              {"connect": {"timeout": "10s"}},
              {"discover": {"services": ["180D"]}},
              {"read": {"characteristic": "2A29", "service": "180A", "expect": {"value": "utf8:Acme"}}},
              {"write": {"handle": "0x0021", "value": "hex:01 02", "withResponse": false}},
              {"subscribe": {"characteristic": "2A37", "indicate": true, "expect": {"attError": "0x05"}}},
              {"unsubscribe": {"characteristic": "2A37"}},
              {"wait": "1.5s"},
              {"wait": {"notifications": 3, "characteristic": "2A37", "timeout": "9s"}},
              {"expect": {"disconnect": {"reason": "0x08", "cbError": "CBError.connectionTimeout", "within": "30s"}}},
              {"loop": {"count": 2, "steps": [{"wait": 1}]}},
              {"disconnect": {}}
             ]}
            """)
        #expect(s.steps.count == 12)
        #expect(s.mtu == 247 && s.limit == 120_000_000 && s.unmatched == .error(.unlikelyError))
        #expect(s.faults.map(\.description) == ["latency-scale:2.0"])
        let policy = try #require(s.reconnect)
        var rng = SplitMix64(seed: 1)
        #expect((0..<5).map { policy.delay(attempt: $0, rng: &rng) } == [500_000, 1_500_000, 4_000_000, 4_000_000, 4_000_000])
        #expect(s.steps[3].label == "steps[3] read 2A29 in 180A")
        guard case .expectDisconnect(let e) = s.steps[9].step else { Issue.record("not an expectation"); return }
        #expect(e.reason == .connectionTimeout && e.cbError == 6 && e.within == 30_000_000)
        guard case .write(let t, let v, false, nil) = s.steps[4].step else { Issue.record("not a write"); return }
        #expect(t.handle == 0x21 && v == [1, 2])
    }

    @Test(arguments: [
        ("[]", "top level"), ("{\"steps\": 3}", "\"steps\" must be an array"), ("{\"steps\": [{\"fly\": {}}]}", "unknown step"),
        ("{\"steps\": [{\"read\": {}}]}", "steps[0]: name a"), ("{\"steps\": [{\"wait\": \"soon\"}]}", "steps[0]"),
        ("{\"steps\": [], \"extra\": 1}", "unknown key"), ("{\"steps\": [], \"server\": \"phone\"}", "server: \"remote\""), ("{\"steps\": [{\"expect\": {\"disconnect\": {\"cbError\": \"nope\"}}}]}", "CBError"),
        ("{\"steps\": [", "JSON error at byte"),
    ])
    func reportsWhereAScriptIsWrong(_ json: String, _ message: String) {
        #expect {
            _ = try Self.script(json)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    /// Against the recorded local GATT server of heart-rate-peripheral.btsnoop, connected twice:
    /// the second connection behaves like the second recorded one, which the remote central ended
    /// (0x13 at packet 132); that end was the central's, so the script's own disconnect ends it
    /// as a central's host reports its own: 0x16, after two connection intervals.
    @Test func theScriptsOwnDisconnectIsItsOwnOnEveryRecordedConnection() throws {
        let script = try Self.script("""
            {"name": "twice", "steps": [{"connect": {}}, {"disconnect": {}}, {"connect": {}}, {"read": {"handle": "0x000F", "expect": {"value": "hex:01"}}}, {"disconnect": {}}]}
            """)
        let (r, world, _) = try run(script, on: "heart-rate-peripheral.btsnoop")
        #expect(r.passed, "\(ScriptReport.text(r))")
        let links = world.host.allLinks
        #expect(links.count == 2 && links.allSatisfy { $0.endReason?.rawValue == 0x16 })
        #expect(links.map(\.behaviourConnectionID) == [1, 2])
    }

    /// The shipped example against the link-loss capture: the loss is ridden out with one
    /// reconnect after exactly the policy's initial delay, and every check passes.
    /// A script that names a device the capture does not hold fails at its `connect` (Docs/replay.md:
    /// "`connect` without a scan uses it"); it connected to another device and passed.
    @Test func aNamedPeripheralMissingFromTheCaptureFailsTheConnect() throws {
        let missing = try Self.script(#"{"peripheral": "11:22:33:44:55:66", "steps": [{"connect": {}}, {"discover": {}}, {"disconnect": {}}]}"#)
        let (r, world, _) = try run(missing, on: "heart-rate-healthy.btsnoop")
        #expect(!r.passed)
        #expect(world.host.allLinks.isEmpty)
        #expect(ScriptReport.text(r).contains("no peripheral 11:22:33:44:55:66 in the capture to connect to"), "\(ScriptReport.text(r))")
        // By the name it advertises, as scans accept it.
        let byName = try Self.script(#"{"peripheral": "Pulse HRM", "steps": [{"connect": {}}, {"disconnect": {}}]}"#)
        let (named, _, _) = try run(byName, on: "heart-rate-healthy.btsnoop")
        #expect(named.passed, "\(ScriptReport.text(named))")
    }

    @Test func reconnectExamplePasses() throws {
        let (r, world, _) = try run(try Self.example("heart-rate-reconnect.json"), on: "heart-rate-supervision-timeout.btsnoop")
        #expect(r.passed, "\(ScriptReport.text(r))")
        #expect(r.reconnectDelays == [1_000_000])
        let links = world.host.allLinks
        #expect(links.count == 2)
        #expect(links.first?.endReason == .connectionTimeout)
        #expect(links.last?.endReason?.rawValue == 0x16)
        // The second link came up after the backoff, a scan, and the peripheral's next advertising event.
        let lost = try #require(links.first?.endedAt)
        #expect(links[1].establishedAt > lost + 1_000_000)
    }

    @Test func linkLossExpectationMatchesTheRecordedReasonAndCBError() throws {
        let (r, _, _) = try run(try Self.example("heart-rate-link-loss.json"), on: "heart-rate-supervision-timeout.btsnoop")
        #expect(r.passed, "\(ScriptReport.text(r))")
        #expect(r.checks.last?.message == "disconnected with 0x08 Connection Timeout, CBError.connectionTimeout")
    }

    @Test func attTimeoutExamplePasses() throws {
        let (r, world, _) = try run(try Self.example("att-timeout-control-point.json"), on: "att-timeout.btsnoop")
        #expect(r.passed, "\(ScriptReport.text(r))")
        let link = try #require(world.host.allLinks.first)
        let unanswered = try #require(link.log.last { $0.fromCentral && $0.bytes.first == 0x12 })
        // 30 s ATT timeout, then the host's Disconnect; the end comes the recorded termination delay later.
        #expect(link.attTimedOut)
        #expect(link.relative(link.endedAt!) > unanswered.time + 30_000_000)
    }

    /// An injected link loss with no reconnect policy fails the script at the step that was running.
    @Test func unexpectedDisconnectFailsWithoutAPolicy() throws {
        let script = try Self.example("loop-reads.json")
        let (r, _, _) = try run(script, on: "heart-rate-healthy.btsnoop", faults: ["disconnect:0x13@after=read-request:0x0018#3"])
        #expect(!r.passed)
        let failure = try #require(r.checks.first { !$0.passed })
        #expect(failure.message.hasPrefix("unexpected disconnection 0x13"))
        #expect(failure.label.contains("iteration 3"))
    }

    /// A script stopped by an unexpected disconnection did not reach its limit (1 h by default):
    /// the report says it stopped, never "limit reached" (it said so at 0.3 s of a 1 h limit), and
    /// JUnit's "script finishes" failure names the stop. A script that does run into its limit
    /// still says so.
    @Test func aStoppedScriptIsNotALimitReached() throws {
        let script = try Self.example("loop-reads.json")
        let (r, _, _) = try run(script, on: "heart-rate-healthy.btsnoop", faults: ["disconnect:0x13@after=read-request:0x0018#3"])
        #expect(!r.finished && r.simulatedSpan < script.limit)
        #expect(!r.events.contains { $0.contains("limit reached") }, "\(r.events)")
        let finishes = try #require(ScriptReport.junit([r]).cases.first { $0.name == "script finishes" })
        #expect(finishes.failure?.detail.contains("script stopped") == true, "\(finishes.failure?.detail ?? "")")

        let limited = try Self.script(#"{"name": "limited", "limit": "2s", "steps": [{"wait": "10s"}]}"#)
        let (l, _, _) = try run(limited, on: "heart-rate-healthy.btsnoop")
        #expect(!l.finished && l.events.last?.contains("limit reached at steps[0] wait") == true, "\(l.events)")
    }

    /// A device whose Device Name read came back NUL-padded ("Sensor-XY" and 1-8 NULs, the
    /// `padded-name` generated shape) and which advertises a shortened name of its own ("SXY"):
    /// every way a script names it finds it. Before, the padded name matched nothing ("no
    /// peripheral Sensor-XY in the capture", a scan for it timed out), and a scan under
    /// `"peripheral": "SXY"` timed out though `connect` under the same key found the device.
    @Test(arguments: [
        #"{"name": "a", "peripheral": "Sensor-XY", "steps": [{"connect": {}}]}"#,
        #"{"name": "b", "steps": [{"scan": {"name": "Sensor-XY", "timeout": "5s"}}, {"connect": {}}]}"#,
        #"{"name": "c", "peripheral": "SXY", "steps": [{"scan": {"timeout": "5s"}}, {"connect": {}}]}"#,
        #"{"name": "d", "peripheral": "SXY", "steps": [{"connect": {}}]}"#,
        #"{"name": "e", "peripheral": "Sensor-XY", "steps": [{"scan": {"timeout": "5s"}}, {"connect": {}}]}"#,
    ])
    func aDeviceIsFoundByEitherOfItsNames(_ json: String) throws {
        let dir = try GeneratedSession.temporaryDirectory("padded-name")
        defer { try? FileManager.default.removeItem(at: dir) }
        let s = try #require(try GeneratedSession.generate(seed: 1, count: 1, shape: "padded-name", into: dir).first)
        let session = try #require(try ReplaySource.load(path: s.path).sessions.first)
        #expect(ModelBuilder.build(session).peripherals.first?.name == "Sensor-XY")
        let script = try Self.script(json)
        let (r, _) = ScriptReplay.run(session, script: script, configuration: ScriptReplay.configuration(
            script, session: session, base: ReplayConfiguration(), unmatchedGiven: false))
        #expect(r.passed, "\(ScriptReport.text(r))")
    }

    @Test func junitHasOneTestcasePerCheck() throws {
        let (r, _, _) = try run(try Self.example("loop-reads.json"), on: "heart-rate-healthy.btsnoop")
        let xml = ScriptReport.junit([r]).xml()
        #expect(xml.split(separator: "\n").filter { $0.contains("<testcase ") }.count == r.checks.count)
        #expect(xml.contains("failures=\"0\""))
        #expect(xml.contains("name=\"steps[2].steps[0] read 2A29 (iteration 5)\""))
    }

    @Test func seededFaultRunsAreReproducible() throws {
        let session = try TestCaptures.session(TestCaptures.sample("heart-rate-supervision-timeout.btsnoop"))
        let script = try Self.example("heart-rate-reconnect.json")
        let c = ScriptReplay.configuration(script, session: session, base: ReplayConfiguration(), unmatchedGiven: false)
        let a = FaultFuzzer.scriptRuns(session, script: script, configuration: c, runs: 6, seed: 42)
        let b = FaultFuzzer.scriptRuns(session, script: script, configuration: c, runs: 6, seed: 42)
        #expect(a.map { "\($0.fault) \($0.passed) \($0.detail)" } == b.map { "\($0.fault) \($0.passed) \($0.detail)" })
        // Each run's fault, injected alone with the run's seed, gives the same outcome.
        for run in a {
            let (r, _, _) = try self.run(script, on: "heart-rate-supervision-timeout.btsnoop", faults: [run.fault.description], seed: run.seed)
            #expect(r.passed == run.passed, "run \(run.index): \(run.fault)")
        }
    }
}
