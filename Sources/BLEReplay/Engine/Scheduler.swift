/// A discrete-event scheduler on a virtual clock (DESIGN.md "Replay semantics", virtual time).
///
/// Events run in (time, order, sequence number) order: two events at the same microsecond run
/// in the order they were scheduled, unless they carry an order hint (replayed events carry
/// their recorded packet id, so simultaneous recorded events keep the recording's order;
/// events without one come after them). Nothing here reads a wall clock or sleeps; running the same
/// schedule twice runs the same events in the same order.
public final class Scheduler {
    /// Identifies a scheduled event so it can be cancelled.
    public struct EventID: Hashable, Sendable {
        public let sequence: UInt64
        /// Where its action waits (`EventQueue`): 32 bits, so that an optional id fits in 16
        /// bytes (a link holds two, issue 17). A queue never holds 2^31 events; were it to, an id
        /// past that could not cancel its event, and never another's: the sequence number must
        /// match too.
        let slot: Int32
    }

    private var queue = EventQueue()
    /// The current virtual time.
    public private(set) var now: VirtualTime = 0
    /// Events run so far (cancelled ones not counted).
    public private(set) var eventsRun = 0
    /// Set by an event to end `run` after it.
    public var stopRequested = false
    /// Called just before each event runs (after the clock moved to its time). CoreBluetoothReplay
    /// uses it to note the moment the app's code for that event starts; it must not schedule.
    public var willRunEvent: (() -> Void)?

    public init() {}

    /// Schedules `action` at `time` (not before now).
    @discardableResult
    public func schedule(at time: VirtualTime, order: Int = Scheduler.unordered, _ action: @escaping () -> Void) -> EventID {
        let (sequence, slot) = queue.push(time: max(time, now), order: order, action)
        return EventID(sequence: sequence, slot: Int32(truncatingIfNeeded: slot))
    }

    /// Schedules `action` `delay` microseconds from now.
    @discardableResult
    public func schedule(after delay: Int64, order: Int = Scheduler.unordered, _ action: @escaping () -> Void) -> EventID {
        schedule(at: now.saturatingAdding(max(0, delay)), order: order, action)
    }

    /// Sets `count` sequence numbers aside for events scheduled later with
    /// `schedule(at:order:reserved:_:)`, and returns the first: such an event runs where it would
    /// have run had it been scheduled now, so a long series of events can enter the queue one at
    /// a time rather than all at once (`RecordedCentralDriver`).
    public func reserveSequences(_ count: Int) -> UInt64 {
        queue.reserveSequences(count)
    }

    /// Schedules `action` at `time` (not before now) with a sequence number set aside by
    /// `reserveSequences`. The caller schedules it before any event that would run after it runs.
    @discardableResult
    public func schedule(at time: VirtualTime, order: Int = Scheduler.unordered, reserved sequence: UInt64,
                         _ action: @escaping () -> Void) -> EventID {
        let (sequence, slot) = queue.push(time: max(time, now), order: order, sequence: sequence, action)
        return EventID(sequence: sequence, slot: Int32(truncatingIfNeeded: slot))
    }

    /// The order of events with no hint: after every hinted event at the same time.
    public static let unordered = Int.max

    /// Cancels an event that has not run yet (harmless when it has).
    public func cancel(_ id: EventID?) {
        guard let id else { return }
        queue.cancel(sequence: id.sequence, slot: Int(id.slot))
    }

    /// The time of the next event, if any.
    public var nextEventTime: VirtualTime? { queue.firstTime }

    /// True when no event is waiting.
    public var isIdle: Bool { queue.isEmpty }

    /// Runs events in order until none is left, `limit` is passed, or an event asks to stop.
    /// With a limit, the clock ends at the limit when the queue ran dry before it. Kept out of
    /// line (one call per run) so that a profile names the simulation as one function.
    @inline(never)
    public func run(until limit: VirtualTime? = nil) {
        stopRequested = false
        while let time = queue.firstTime {
            if let limit, time > limit { break }
            let (entry, action) = queue.pop()
            guard let action else { continue }
            now = entry.time
            eventsRun += 1
            willRunEvent?()
            action.run()
            if stopRequested { return }
        }
        if let limit, limit > now { now = limit }
    }
}
