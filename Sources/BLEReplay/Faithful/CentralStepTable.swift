/// Every recorded connection's central steps (`RecordedCentral.Step`) in one list, in connection
/// order, each connection's a range of it (issue 17: a list of its own for each link was 144
/// bytes a link of 61,424 with its header, and 160 with the allocator's rounding; here a link's
/// two steps are their 112 bytes). Made once before the simulation runs, read only after.
struct CentralStepTable {
    private var steps: [RecordedCentral.Step] = []

    /// Adds a connection's steps; returns where they are.
    mutating func add(_ connectionSteps: [RecordedCentral.Step]) -> Range<Int> {
        let first = steps.count
        steps += connectionSteps
        return first..<steps.count
    }

    /// Makes room for `count` steps at once, so the list holds no more room than they take.
    init(capacity count: Int) {
        steps.reserveCapacity(count)
    }

    subscript(index: Int) -> RecordedCentral.Step {
        @inline(__always) get { steps[index] }
    }
}
