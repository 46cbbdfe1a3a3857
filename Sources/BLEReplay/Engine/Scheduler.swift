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
    }

    /// A heap entry: plain values only, so sifting moves no reference counts (the closures
    /// live in `actions`, at `slot`; issue 12: moving closure-holding entries was a fifth of the run).
    private struct Entry {
        var time: VirtualTime
        var order: Int
        var sequence: UInt64
        var slot: Int

        @inline(__always) func precedes(_ other: Entry) -> Bool {
            if time != other.time { return time < other.time }
            if order != other.order { return order < other.order }
            return sequence < other.sequence
        }
    }

    private var heap: [Entry] = []
    /// The scheduled actions by slot; a slot is reused once its event ran or was skipped.
    private var actions: [(() -> Void)?] = []
    private var freeSlots: [Int] = []
    private var cancelled: Set<UInt64> = []
    private var nextSequence: UInt64 = 0
    /// The current virtual time.
    public private(set) var now: VirtualTime = 0
    /// Events run so far (cancelled ones not counted).
    public private(set) var eventsRun = 0
    /// Set by an event to end `run` after it.
    public var stopRequested = false
    /// Called just before each event runs (after the clock moved to its time). CoreBluetoothReplay
    /// uses it to note the moment the app's code for that event starts; it must not schedule.
    public var willRunEvent: (() -> Void)?

    public init() {
        heap.reserveCapacity(256)
    }

    /// Schedules `action` at `time` (not before now).
    @discardableResult
    public func schedule(at time: VirtualTime, order: Int = Scheduler.unordered, _ action: @escaping () -> Void) -> EventID {
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            actions[slot] = action
        } else {
            slot = actions.count
            actions.append(action)
        }
        let entry = Entry(time: max(time, now), order: order, sequence: nextSequence, slot: slot)
        nextSequence += 1
        heap.append(entry)
        siftUp(heap.count - 1)
        return EventID(sequence: entry.sequence)
    }

    /// Schedules `action` `delay` microseconds from now.
    @discardableResult
    public func schedule(after delay: Int64, order: Int = Scheduler.unordered, _ action: @escaping () -> Void) -> EventID {
        schedule(at: now.saturatingAdding(max(0, delay)), order: order, action)
    }

    /// The order of events with no hint: after every hinted event at the same time.
    public static let unordered = Int.max

    /// Cancels an event that has not run yet (harmless when it has).
    public func cancel(_ id: EventID?) {
        guard let id else { return }
        cancelled.insert(id.sequence)
    }

    /// The time of the next event, if any.
    public var nextEventTime: VirtualTime? { heap.first?.time }

    /// True when no event is waiting.
    public var isIdle: Bool { heap.isEmpty }

    /// Runs events in order until none is left, `limit` is passed, or an event asks to stop.
    /// With a limit, the clock ends at the limit when the queue ran dry before it.
    public func run(until limit: VirtualTime? = nil) {
        stopRequested = false
        while let first = heap.first {
            if let limit, first.time > limit { break }
            let entry = popFirst()
            let action = actions[entry.slot]
            actions[entry.slot] = nil
            freeSlots.append(entry.slot)
            if !cancelled.isEmpty, cancelled.remove(entry.sequence) != nil { continue }
            now = entry.time
            eventsRun += 1
            willRunEvent?()
            action?()
            if stopRequested { return }
        }
        if let limit, limit > now { now = limit }
    }

    private func popFirst() -> Entry {
        let first = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return first
    }

    private func siftUp(_ index: Int) {
        var i = index
        let item = heap[i]
        while i > 0 {
            let parent = (i - 1) / 2
            guard item.precedes(heap[parent]) else { break }
            heap[i] = heap[parent]
            i = parent
        }
        heap[i] = item
    }

    private func siftDown(_ index: Int) {
        var i = index
        let count = heap.count
        let item = heap[i]
        while true {
            let left = 2 * i + 1
            if left >= count { break }
            var child = left
            if left + 1 < count, heap[left + 1].precedes(heap[left]) { child = left + 1 }
            guard heap[child].precedes(item) else { break }
            heap[i] = heap[child]
            i = child
        }
        heap[i] = item
    }
}
