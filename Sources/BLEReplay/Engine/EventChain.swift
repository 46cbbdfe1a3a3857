/// Recorded events that came due together, scheduled as one chain (DESIGN.md "Replay
/// semantics", virtual time; issue 12).
///
/// When an anchor comes, every recorded action tied to it is due, at its own delay. Scheduled
/// all at once they filled the scheduler's heap with whole notification streams, and sifting
/// that heap was the simulation's largest cost. A chain puts them in (time, order hint) order
/// and schedules only the first; each, when it runs, schedules the next. The hints are the
/// actions' own recorded packet ids, unique among the events of a replay, so each runs exactly
/// where it would have run scheduled at once; ties on time and hint keep the list's order, as
/// their sequence numbers did. Every action still runs as one event.
struct EventChain {
    /// One due event: when, its order hint (never `Scheduler.unordered`), and what it is.
    struct Due {
        var time: VirtualTime
        var order: Int
        var item: Int
    }

    private var due: [Due] = []

    var isEmpty: Bool { due.isEmpty }

    /// Adds an event `delay` after `now` (a negative delay is no delay, as `Scheduler.schedule(after:)` has it).
    mutating func append(at now: VirtualTime, after delay: Int64, order: Int, item: Int) {
        due.append(Due(time: now.saturatingAdding(max(0, delay)), order: order, item: item))
    }

    /// Schedules the chain on `scheduler`; `run` performs one item.
    func schedule(on scheduler: Scheduler, _ run: @escaping (Int) -> Void) {
        guard !due.isEmpty else { return }
        func precedes(_ a: Due, _ b: Due) -> Bool { (a.time, a.order) < (b.time, b.order) }
        var ordered = due
        if !zip(due, due.dropFirst()).allSatisfy({ !precedes($1, $0) }) {
            ordered = due.enumerated().sorted { precedes($0.element, $1.element) || (!precedes($1.element, $0.element) && $0.offset < $1.offset) }
                .map(\.element)
        }
        Self.schedule(ordered, from: 0, on: scheduler, run)
    }

    private static func schedule(_ chain: [Due], from k: Int, on scheduler: Scheduler, _ run: @escaping (Int) -> Void) {
        let d = chain[k]
        scheduler.schedule(at: d.time, order: d.order) {
            run(d.item)
            if k + 1 < chain.count { schedule(chain, from: k + 1, on: scheduler, run) }
        }
    }
}
