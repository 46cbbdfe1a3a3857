enum ScriptReplay {
    static func outcome(_ sessions: [RecordedSession], script: CentralScript, request: ReplayRequest) -> ReplayOutcome {
        ReplayOutcome()
    }
}
