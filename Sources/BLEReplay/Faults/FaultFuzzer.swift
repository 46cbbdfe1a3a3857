enum FaultFuzzer {
    static func faithfulOutcome(_ sessions: [RecordedSession], configuration: ReplayConfiguration, runs: Int, seed: UInt64, json: Bool) -> ReplayOutcome {
        ReplayOutcome()
    }
}
