import BLECore

/// Runs a central script against the peripherals of a capture (Docs/replay.md "Central scripts").
public enum ScriptReplay {
    /// The configuration a script run starts from: the script's `unmatched` policy unless the
    /// command line gave one, the script's faults added to the command line's.
    public static func configuration(_ script: CentralScript, session: RecordedSession, base: ReplayConfiguration,
                                     unmatchedGiven: Bool) -> ReplayConfiguration {
        var c = base
        if !unmatchedGiven, let u = script.unmatched { c.unmatched = u }
        c.faults += script.faults
        c.clientRxMTU = script.mtu
        c.epoch = session.start
        return c
    }

    /// The peripherals a script meets: the capture's remote devices, or its own local GATT server
    /// with the script as the remote central (`RecordedLocalServer.applies`).
    public static func peripherals(_ session: RecordedSession, script: CentralScript) -> [PeripheralModel] {
        if RecordedLocalServer.applies(session, script: script) { return RecordedLocalServer.model(session).map { [$0] } ?? [] }
        return ModelBuilder.build(session).peripherals
    }

    public static func run(_ session: RecordedSession, script: CentralScript, configuration: ReplayConfiguration) -> (ScriptResult, ReplayWorld) {
        let againstLocalServer = RecordedLocalServer.applies(session, script: script)
        let peripherals = peripherals(session, script: script)
        let world = ReplayWorld(peripherals: peripherals, configuration: configuration)
        let runner = ScriptRunner(world: world, script: script)
        runner.start()
        world.run(until: script.limit)
        var result = finish(runner, world: world, capture: session.fileName)
        let names = Dictionary(peripherals.map { ($0.key, $0.name ?? "") }, uniquingKeysWith: { a, _ in a })
        if againstLocalServer {
            result.notes.append(RecordedLocalServer.note(session))
        } else if let note = LocalPeripheralRole.scriptNote(session, found: runner.target?.model.key, peripheral: script.peripheral,
                                                            names: names) {
            result.notes.append(note)
        }
        if let target = runner.target?.model, let note = CachedDatabaseNote.note(target) { result.notes.append(note) }
        return (result, world)
    }

    /// The runner's result once the world stopped: the limit if it was reached, the faults that
    /// fired and those that never did, and requests no recording or policy answered.
    public static func finish(_ runner: ScriptRunner, world: ReplayWorld, capture: String) -> ScriptResult {
        var result = runner.result
        result.capture = capture
        if !result.finished {
            // A script the runner stopped (a failed scan or connect, an unexpected disconnection)
            // ended before its limit, and its events already say why; else the limit stopped it.
            if runner.stopped, let why = result.events.last {
                result.unfinishedReason = why
            } else {
                result.events.append("\(TimeLabel.replay(world.now))  limit reached at \(runner.currentLabel)")
                result.unfinishedReason = result.events.last
            }
        }
        for f in world.firedFaults { result.events.append("\(TimeLabel.replay(f.time))  fault fired: \(f.fault)") }
        for f in world.unfiredFaults {
            result.checks.append(ScriptCheck(label: "fault \(f) fires", passed: false,
                                             message: "--inject '\(f)' never fired: \(FaithfulReport.neverFiredReason)", time: world.now))
        }
        for u in world.unmatchedRequests {
            result.checks.append(ScriptCheck(label: "request the recording never saw", passed: false,
                                             message: ReplayComparison.describe(u.pdu, fromCentral: true) + " (--unmatched strict)", time: u.time))
        }
        return result
    }

    static func outcome(_ sessions: [RecordedSession], script: CentralScript, request: ReplayRequest) -> ReplayOutcome {
        var outcome = ReplayOutcome()
        guard let session = sessions.first else {
            outcome.stderr.append("blereplay replay: the timeline holds no capture")
            outcome.status = .badInput
            return outcome
        }
        if sessions.count > 1 { outcome.stderr.append("note: the timeline holds \(sessions.count) captures; the script runs against the first") }
        let configuration = Self.configuration(script, session: session, base: request.configuration, unmatchedGiven: request.unmatchedGiven)
        if let runs = request.runs {
            var fuzzed = FaultFuzzer.scriptOutcome(session, script: script, configuration: configuration, runs: runs, seed: request.seed,
                                                   json: request.json, junitPath: request.junitPath)
            let names = Dictionary(ModelBuilder.build(session).peripherals.map { ($0.key, $0.name ?? "") }, uniquingKeysWith: { a, _ in a })
            if RecordedLocalServer.applies(session, script: script) {
                fuzzed.stderr.append("note: \(RecordedLocalServer.note(session))")
            } else if let note = LocalPeripheralRole.scriptNote(session, found: nil, peripheral: script.peripheral, names: names) {
                fuzzed.stderr.append("note: \(note)")
            }
            return fuzzed
        }
        let (result, world) = run(session, script: script, configuration: configuration)
        outcome.stdout = request.json ? ScriptReport.json(result).serialized(pretty: true) + "\n" : ScriptReport.text(result)
        if let path = request.junitPath {
            do { try TextFile.write(ScriptReport.junit([result]).xml(), to: path) } catch {
                outcome.stderr.append("blereplay replay: \(error)")
                outcome.status = .badInput
                return outcome
            }
        }
        if let path = request.capturePath {
            do { try world.trace.writeBtsnoop(to: path) } catch {
                outcome.stderr.append("blereplay replay: \(error)")
                outcome.status = .badInput
                return outcome
            }
        }
        outcome.status = result.passed ? .passed : .failed
        return outcome
    }
}
