/// The scheduler's pending events: a binary min-heap of plain-value entries in (time, order,
/// sequence) order, with the actions kept apart in reusable slots (DESIGN.md "Replay
/// semantics", virtual time).
///
/// A value type, so the scheduler reaches all of it through one access per push, pop or cancel
/// (issue 12: the heap, the slots and the cancelled set as separate class properties cost a
/// dynamic exclusivity check per array access, a quarter of the simulation). Sifting moves no
/// reference counts: an entry holds its action's slot, not the closure. A cancelled event's
/// action is dropped from its slot at once; its entry stays in the heap and is skipped when it
/// comes up. A slot remembers the sequence number of the event it holds, so cancelling an event
/// that already ran (its slot perhaps reused) does nothing.
struct EventQueue {
    /// 24 bytes (issue 17: 32 with a word for each, and the heap holds an entry for each event
    /// waiting, two a link of 61,424 at once): the order hint and the slot in 32 bits each. An
    /// order is a packet number or `Scheduler.unordered`, held clamped to 32 bits; a queue never
    /// holds 2^31 slots (`Scheduler.EventID`).
    struct Entry {
        var time: VirtualTime
        var sequence: UInt64
        var order: Int32
        var slot: Int32

        @inline(__always) func precedes(_ other: Entry) -> Bool {
            if time != other.time { return time < other.time }
            if order != other.order { return order < other.order }
            return sequence < other.sequence
        }
    }

    /// A scheduled action. Wrapped in a struct, an array holds the closure as it is: an array
    /// of bare closures holds them reabstracted, which allocated a thunk going in and another
    /// coming out of the array for each event (issue 12).
    struct Action {
        let run: () -> Void
    }

    private var heap: [Entry] = []
    private var actions: [Action?] = []
    /// The sequence number of the event each slot holds (`free` when it holds none).
    private var slotSequences: [UInt64] = []
    private var freeSlots: [Int] = []
    private var nextSequence: UInt64 = 0
    private static let free = UInt64.max

    init() {
        heap.reserveCapacity(256)
    }

    /// The earliest entry's time (a cancelled one's too: it is skipped when popped).
    var firstTime: VirtualTime? { heap.first?.time }
    var isEmpty: Bool { heap.isEmpty }

    /// Adds an event; returns its sequence number (the order of scheduling) and the slot its
    /// action went to.
    mutating func push(time: VirtualTime, order: Int, _ action: @escaping () -> Void) -> (sequence: UInt64, slot: Int) {
        let sequence = nextSequence
        nextSequence += 1
        return push(time: time, order: order, sequence: sequence, action)
    }

    /// Sets `count` sequence numbers aside, from the one returned on, for events pushed later
    /// with them (`push(time:order:sequence:_:)`): they run as if pushed now.
    mutating func reserveSequences(_ count: Int) -> UInt64 {
        let first = nextSequence
        nextSequence += UInt64(max(0, count))
        return first
    }

    /// Adds an event with a sequence number set aside for it (`reserveSequences`).
    mutating func push(time: VirtualTime, order: Int, sequence: UInt64, _ action: @escaping () -> Void) -> (sequence: UInt64, slot: Int) {
        let slot: Int
        if let reused = freeSlots.popLast() {
            slot = reused
            actions[slot] = Action(run: action)
            slotSequences[slot] = sequence
        } else {
            slot = actions.count
            actions.append(Action(run: action))
            slotSequences.append(sequence)
        }
        heap.append(Entry(time: time, sequence: sequence, order: Int32(clamping: order), slot: Int32(truncatingIfNeeded: slot)))
        siftUp(heap.count - 1)
        return (sequence, slot)
    }

    /// Drops the action of the event `sequence` in `slot`, when that event is still waiting.
    mutating func cancel(sequence: UInt64, slot: Int) {
        guard slot >= 0, slot < slotSequences.count, slotSequences[slot] == sequence else { return }
        actions[slot] = nil
    }

    /// Removes the earliest entry; its action is nil when the event was cancelled. Not empty.
    mutating func pop() -> (entry: Entry, action: Action?) {
        let first = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        let slot = Int(first.slot)
        let action = actions[slot]
        actions[slot] = nil
        slotSequences[slot] = Self.free
        freeSlots.append(slot)
        if heap.isEmpty && actions.count > Self.keptSlots { releaseStorage() }
        return (first, action)
    }

    /// Slots kept when the queue runs dry: more than this go (a faithful replay schedules every
    /// recorded connection at once, and 61,424 of them left 68 bytes a link of empty room for the
    /// rest of the run, issue 17). Refilling that many costs far less than scheduling them did.
    private static let keptSlots = 4_096

    /// Lets the storage of an empty queue go. Every slot is free then, and an event id still held
    /// names a sequence number no later event has, so cancelling it stays harmless.
    private mutating func releaseStorage() {
        heap = []
        heap.reserveCapacity(256)
        actions = []
        slotSequences = []
        freeSlots = []
    }

    private mutating func siftUp(_ index: Int) {
        heap.withUnsafeMutableBufferPointer { h in
            var i = index
            let item = h[i]
            while i > 0 {
                let parent = (i - 1) / 2
                guard item.precedes(h[parent]) else { break }
                h[i] = h[parent]
                i = parent
            }
            h[i] = item
        }
    }

    private mutating func siftDown(_ index: Int) {
        heap.withUnsafeMutableBufferPointer { h in
            var i = index
            let count = h.count
            let item = h[i]
            while true {
                let left = 2 * i + 1
                if left >= count { break }
                var child = left
                if left + 1 < count, h[left + 1].precedes(h[left]) { child = left + 1 }
                guard h[child].precedes(item) else { break }
                h[i] = h[child]
                i = child
            }
            h[i] = item
        }
    }
}
