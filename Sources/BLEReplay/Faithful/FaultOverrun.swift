import BLECore

/// How far past the recording's end a faithful replay with faults goes on (Docs/replay.md
/// "Faults"): a fault that makes answers slower or never come moves what the recording ends with
/// later — a recorded central's disconnect anchored to a request, an ATT transaction's 30 s
/// timeout (Core v5.4 Vol 3 Part F 3.3.3), a supervision timeout of up to 32 s (Vol 6 Part B
/// 4.5.2) — and a replay cut at the recording's end called such a link "still connected".
///
/// The world runs on, event by event, until nothing is left to happen or this horizon: the
/// recording's span stretched by the largest latency scale, plus every added delay, plus one
/// ATT timeout and one longest supervision timeout. Without faults nothing moves, and the replay
/// stops at the recording's end as before.
enum FaultOverrun {
    static let attTimeoutUs: Int64 = 30_000_000
    static let longestSupervisionTimeoutUs: Int64 = 32_000_000

    static func horizon(end: VirtualTime, faults: [FaultSpec]) -> VirtualTime? {
        guard !faults.isEmpty else { return nil }
        var scale = 1.0
        var delays: Int64 = 0
        for f in faults {
            switch f.kind {
            case .latencyScale(let s): scale = max(scale, s.isFinite ? min(s, 1_000) : 1)
            case .delayResponse(_, let d): delays = delays.saturatingAdding(max(0, d))
            default: break
            }
        }
        let stretched = Double(max(0, end)) * scale
        let base = stretched < 9.0e18 ? Int64(stretched) : Int64.max
        return base.saturatingAdding(delays).saturatingAdding(attTimeoutUs).saturatingAdding(longestSupervisionTimeoutUs)
    }

    /// Runs `world` on from the recording's end, one event time at a time, while events are left
    /// before `horizon`: the clock stops at the last event run, not at the horizon.
    static func run(_ world: ReplayWorld, until horizon: VirtualTime) {
        while let next = world.scheduler.nextEventTime, next <= horizon {
            world.run(until: next)
        }
    }
}
