@testable import BLEReplay
import Testing

/// The scheduler's order (DESIGN.md "Replay semantics", virtual time; STYLE.md 7): events run in
/// (time, order hint, sequence number) order, so events at the same microsecond with the same
/// hint run first in, first out. Checked against a reference that picks the least pending event
/// by a linear scan, as the definition reads, on schedules crowded with equal times and hints,
/// events scheduled at the running event's own time, and cancellations (issue 12: the event
/// queue's heap, slots and cancellation by slot must keep exactly this order).
@Suite("Scheduler order")
struct SchedulerOrderTests {
    /// The definition: the pending event with the least (time, order, sequence) runs next.
    struct Reference {
        var pending: [(time: Int64, order: Int, sequence: Int)] = []
        var now: Int64 = 0

        mutating func schedule(at time: Int64, order: Int, sequence: Int) {
            pending.append((max(time, now), order, sequence))
        }

        mutating func cancel(_ sequence: Int) {
            pending.removeAll { $0.sequence == sequence }
        }

        mutating func next() -> Int? {
            guard let i = pending.indices.min(by: { a, b in
                let (x, y) = (pending[a], pending[b])
                return (x.time, x.order, x.sequence) < (y.time, y.order, y.sequence)
            }) else { return nil }
            now = pending[i].time
            return pending.remove(at: i).sequence
        }
    }

    /// The scheduler and the reference are fed the same schedule, in lockstep: each event that
    /// runs must be the one the reference picks at that moment.
    @Test(arguments: [1, 2, 3, 12, 99] as [UInt64])
    func crowdedTimesRunAsDefined(seed: UInt64) {
        let s = Scheduler()
        var reference = Reference()
        var g = SplitMix64(seed: seed)
        var ids: [Scheduler.EventID] = []
        var ran: [Int] = []
        var picked: [Int?] = []
        var cancelled = 0
        func add(depth: Int) {
            // Few times and few hints: most events tie on time, many on time and hint, and many
            // fall at the running event's own time.
            let time = s.now + Int64(g.next() % 3)
            let order = g.next() % 4 == 0 ? Scheduler.unordered : Int(g.next() % 3)
            let mine = ids.count
            reference.schedule(at: time, order: order, sequence: mine)
            ids.append(s.schedule(at: time, order: order) {
                ran.append(mine)
                picked.append(reference.next())
                if depth < 4 { for _ in 0..<Int(g.next() % 3) { add(depth: depth + 1) } }
                // Sometimes cancel an earlier event: still waiting, this one, or one that ran
                // (whose slot may hold another event by now).
                if g.next() % 4 == 0 {
                    let victim = Int(g.next() % UInt64(ids.count))
                    s.cancel(ids[victim])
                    reference.cancel(victim)
                    cancelled += 1
                }
            })
        }
        for _ in 0..<300 { add(depth: 0) }
        s.run()
        #expect(ran.count > 300)
        #expect(cancelled > 10)
        #expect(ran == picked.map { $0 ?? -1 })
        #expect(reference.next() == nil)
        #expect(s.eventsRun == ran.count)
        #expect(s.isIdle)
    }

    /// Cancelling an event that already ran does nothing, even once its slot holds a new event.
    @Test func cancellingARunEventSparesItsSlotsNextEvent() {
        let s = Scheduler()
        var ran: [String] = []
        let first = s.schedule(at: 1) { ran.append("first") }
        s.run()
        let second = s.schedule(at: 2) { ran.append("second") }
        #expect(second.slot == first.slot)
        s.cancel(first)
        s.run()
        #expect(ran == ["first", "second"])
    }

    /// An `EventChain` runs its events exactly where scheduling them all at once ran them: among
    /// other events at the same times (unhinted, and hinted with other packet ids), with ties
    /// inside the chain on time and hint, and chains fired from inside running events.
    @Test(arguments: [4, 5, 6, 77] as [UInt64])
    func chainRunsWhereScheduledAtOnceRan(seed: UInt64) {
        func run(chained: Bool) -> [Int] {
            let s = Scheduler()
            var g = SplitMix64(seed: seed)
            var ran: [Int] = []
            var label = 0
            var nextPacket = 1_000
            func fire(depth: Int) {
                var chain = EventChain()
                for n in 0..<Int(g.next() % 12) {
                    let delay = Int64(g.next() % 4) - 1                  // some negative: no delay
                    // Packet ids unique among chains; inside one, sometimes the previous item's
                    // again (a tie on both keys).
                    if n == 0 || g.next() % 5 != 0 { nextPacket += 1 }
                    let order = nextPacket
                    let mine = label
                    label += 1
                    if chained {
                        chain.append(at: s.now, after: delay, order: order, item: mine)
                    } else {
                        s.schedule(after: delay, order: order) { ran.append(mine) }
                    }
                }
                chain.schedule(on: s) { ran.append($0) }
                // Others at the same moments: unhinted, or hinted below every packet id.
                for _ in 0..<Int(g.next() % 4) {
                    let mine = label
                    label += 1
                    let order = g.next() % 2 == 0 ? Scheduler.unordered : Int(g.next() % 100)
                    s.schedule(after: Int64(g.next() % 4), order: order) {
                        ran.append(mine)
                        if depth < 3 { fire(depth: depth + 1) }
                    }
                }
            }
            for _ in 0..<40 { fire(depth: 0) }
            s.run()
            #expect(s.eventsRun == ran.count)
            return ran
        }
        let atOnce = run(chained: false)
        #expect(atOnce.count > 200)
        #expect(run(chained: true) == atOnce)
    }
}

