import BLECore
import Testing
@testable import BLEReplay

/// A fault that never fires fails the run (STYLE.md 18): in text, JSON and JUnit, for faithful
/// replay and central scripts; seeded faults are drawn from what the central actually sends, and
/// a MIC failure only where a link was encrypted.
@Suite struct UnfiredFaultTests {
    static func request(_ faults: [String], script: CentralScript? = nil, json: Bool = false) throws -> ReplayRequest {
        var r = ReplayRequest()
        r.configuration.faults = try faults.map { try FaultSpec(parsing: $0) }
        r.script = script
        r.json = json
        return r
    }

    /// heart-rate-supervision-timeout.btsnoop carries one Write Request (to 0x000F) per connection:
    /// a fault on the third never fires.
    @Test func faithfulReplayWithAFaultThatNeverFiresFails() throws {
        let session = try TestCaptures.session(TestCaptures.sample("heart-rate-supervision-timeout.btsnoop"))
        let fault = "disconnect:0x08@after=write-request#3"
        let text = ReplayRunner.run([session], try Self.request([fault]))
        #expect(text.status == .failed)
        #expect(text.stdout.contains("FAULT NEVER FIRED: \(fault)"))
        #expect(text.stdout.contains("1 fault(s) never fired"))

        let json = ReplayRunner.run([session], try Self.request([fault], json: true))
        #expect(json.status == .failed)
        #expect(json.stdout.contains("\"faults_never_fired\": [\n    \"\(fault)\"\n  ]"))
        #expect(json.stdout.contains("\"passed\": false"))

        var config = FaithfulReplay.configuration(for: session, base: ReplayConfiguration())
        config.faults = [try FaultSpec(parsing: fault)]
        let (result, _) = FaithfulReplay.run(session, configuration: config)
        #expect(result.allReproduced)
        #expect(!result.passed)
        let xml = FaithfulReport.junit([result]).xml()
        #expect(xml.contains("name=\"fault \(fault) fires\""))
        #expect(xml.contains("<failure message=\"the fault never fired\""))
    }

    @Test func aFaultThatFiresIsNotReportedUnfired() throws {
        let session = try TestCaptures.session(TestCaptures.sample("heart-rate-supervision-timeout.btsnoop"))
        let out = ReplayRunner.run([session], try Self.request(["disconnect:0x08@after=write-request#1"]))
        #expect(out.stdout.contains("fault fired: "))
        #expect(!out.stdout.contains("NEVER FIRED"))
        // latency-scale applies to every answer: never counted as unfired.
        let scaled = ReplayRunner.run([session], try Self.request(["latency-scale:1"]))
        #expect(!scaled.stdout.contains("NEVER FIRED"))
    }

    @Test func scriptRunWithAFaultThatNeverFiresFails() throws {
        let session = try TestCaptures.session(TestCaptures.sample("heart-rate-healthy.btsnoop"))
        let script = try CentralScriptTests.example("loop-reads.json")
        // The script reads; it never writes.
        let out = ReplayRunner.run([session], try Self.request(["drop-response:write-request#1"], script: script))
        #expect(out.status == .failed)
        #expect(out.stdout.contains("FAIL"))
        #expect(out.stdout.contains("fault drop-response:write-request#1 fires: --inject 'drop-response:write-request#1' never fired"))
    }

    /// The recording holds a Write Request to 0x000F that loop-reads.json never sends: seeded faults
    /// must not be aimed at it, and every drawn fault fires.
    @Test func seededScriptFaultsComeFromWhatTheScriptSends() throws {
        let session = try TestCaptures.session(TestCaptures.sample("heart-rate-healthy.btsnoop"))
        let script = try CentralScriptTests.example("loop-reads.json")
        let configuration = ScriptReplay.configuration(script, session: session, base: ReplayConfiguration(), unmatchedGiven: false)
        #expect(FaultFuzzer.targets(session).requests.contains { $0.key.opcode.rawValue == 0x12 })
        let targets = FaultFuzzer.targets(session, script: script, configuration: configuration)
        #expect(!targets.requests.isEmpty)
        #expect(!targets.requests.contains { $0.key.opcode.rawValue == 0x12 })
        #expect(targets.requests.contains { $0.key.opcode.rawValue == 0x0A && $0.count == 5 })
        let runs = FaultFuzzer.scriptRuns(session, script: script, configuration: configuration, runs: 12, seed: 7)
        let unfired = runs.filter { !$0.fired }.map(\.fault.description)
        #expect(unfired.isEmpty, "\(unfired)")
    }

    /// `stop-advertising` in a faithful replay: the recorded central's connection to the silenced
    /// peripheral never comes up (a link comes up at the peer's connectable advertising); it fired
    /// and changed nothing. After the link is up, it changes nothing, and the run reproduces.
    @Test func stopAdvertisingKeepsTheRecordedCentralFromConnecting() throws {
        let session = try TestCaptures.session(TestCaptures.sample("heart-rate-healthy.btsnoop"))
        func run(_ fault: String) throws -> FaithfulReplayResult {
            var config = ReplayConfiguration()
            config.unmatched = .strict
            config.faults = [try FaultSpec(parsing: fault)]
            return FaithfulReplay.run(session, configuration: config).0
        }
        // The recorded connection comes up at 1.409 s.
        let before = try run("stop-advertising@t=0.5s,peer=C4:7A:3B:12:9E:51")
        #expect(before.firedFaults.count == 1 && !before.passed)
        #expect(before.verdicts.first?.divergence?.kind == "missing-connection")
        let after = try run("stop-advertising@t=5s,peer=C4:7A:3B:12:9E:51")
        #expect(after.firedFaults.count == 1 && after.allReproduced)
    }

    @Test func micFailureOnlyOnEncryptedLinks() {
        let plain = FaultFuzzer.Targets(requests: [:], encrypted: [], span: 10_000_000)
        // Encrypted from 2.5 s to 4.0 s of the session only.
        let encrypted = FaultFuzzer.Targets(requests: [:], encrypted: [("C4:7A:3B:12:9E:51", 2_500_000, 4_000_000)], span: 10_000_000)
        var rng = SplitMix64(seed: 1)
        var reasons: [UInt8: Int] = [:]
        for _ in 0..<300 {
            let f = FaultFuzzer.randomFault(plain, rng: &rng)
            if case .disconnect(let reason, _) = f.kind { reasons[reason.rawValue, default: 0] += 1 }
        }
        #expect(reasons[0x3D] == nil)
        #expect(reasons[0x08] != nil)
        var micPeers: Set<String?> = []
        for _ in 0..<300 {
            let f = FaultFuzzer.randomFault(encrypted, rng: &rng)
            if case .disconnect(let reason, .at(let t)) = f.kind, reason.rawValue == 0x3D {
                micPeers.insert(f.peer)
                // Drawn while the link was up and encrypted: anywhere else it never fires.
                #expect(t >= 2_500_000 && t < 4_000_000, "\(f)")
            }
        }
        #expect(micPeers == ["C4:7A:3B:12:9E:51"])
    }

    /// Seeded runs on captures with encrypted links: every MIC failure drawn fires (wave 1 drew
    /// 0x3D at any moment of the capture, often before the encryption or after the link's end).
    @Test(arguments: ["android-lock-pairing.btsnoop", "ios-glasses.pklg"])
    func seededMICFailuresFire(_ capture: String) throws {
        let session = try TestCaptures.session(TestCaptures.shared(capture))
        var configuration = ReplayConfiguration()
        configuration.unmatched = .strict
        let runs = FaultFuzzer.faithfulRuns(session, configuration: configuration, runs: 24, seed: 11)
        let mic = runs.filter { $0.fault.description.hasPrefix("disconnect:0x3D") }
        #expect(!mic.isEmpty)
        let unfired = mic.filter { !$0.fired }.map(\.fault.description)
        #expect(unfired.isEmpty, "\(unfired)")
    }
}
