import BLECore

/// `blereplay replay --bench` (and `make bench`): how fast the simulation runs. Loading the
/// timeline is not timed; building the models and running the faithful replay is, several times.
public enum ReplayBench {
    public struct Figures: Sendable {
        public var capture: String
        public var repetitions: Int
        public var events: Int
        public var simulatedSpan: Int64
        /// Monotonic wall time for all repetitions, in nanoseconds.
        public var wallNanoseconds: UInt64

        public var eventsPerSecond: Double { Double(events * repetitions) / (Double(wallNanoseconds) / 1e9) }
        public var speedUp: Double { Double(simulatedSpan) * 1000 * Double(repetitions) / Double(wallNanoseconds) }
    }

    /// Measures the faithful replay of `session` (benchmarks are the one place a clock is read;
    /// it never feeds the simulation).
    public static func measure(_ session: RecordedSession, repetitions: Int = 20) -> Figures {
        var configuration = ReplayConfiguration()
        configuration.unmatched = .strict
        let start = ContinuousClock.now
        var events = 0
        var span: Int64 = 0
        for _ in 0..<repetitions {
            let (result, _) = FaithfulReplay.run(session, configuration: configuration)
            events = result.eventsRun
            span = result.simulatedSpan
        }
        let elapsed = ContinuousClock.now - start
        let (seconds, attoseconds) = elapsed.components
        let nanos = UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
        return Figures(capture: session.fileName, repetitions: repetitions, events: events, simulatedSpan: span,
                       wallNanoseconds: max(1, nanos))
    }

    static func outcome(_ sessions: [RecordedSession]) -> ReplayOutcome {
        var out = ReplayOutcome()
        for s in sessions {
            let f = measure(s)
            out.stdout += "bench \(TextFormat.printable(f.capture)): \(f.events) events over \(VirtualDuration.short(f.simulatedSpan)) simulated; "
            out.stdout += "\(Int(f.eventsPerSecond)) events/s, \(Int(f.speedUp))x real time "
            out.stdout += "(\(f.repetitions) runs in \(Double(f.wallNanoseconds / 1_000_000) / 1000) s, models included)\n"
        }
        return out
    }
}
