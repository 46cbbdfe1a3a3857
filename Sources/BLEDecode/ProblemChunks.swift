import BLECore

/// Problems handed on `size` at a time, in order: the end of a capture with tens of thousands of
/// links open or PDUs pending (issue 17) is reported without holding every sentence at once.
struct ProblemChunks {
    let size: Int
    private var held: [DecodeError] = []

    init(size: Int) { self.size = max(1, size) }

    /// Adds `problem`; hands the chunk to `emit` once it is full.
    mutating func append<E: Error>(_ problem: DecodeError, _ emit: ([DecodeError]) throws(E) -> Void) throws(E) {
        held.append(problem)
        if held.count >= size { try flush(emit) }
    }

    /// Hands what is held to `emit` (nothing when empty).
    mutating func flush<E: Error>(_ emit: ([DecodeError]) throws(E) -> Void) throws(E) {
        guard !held.isEmpty else { return }
        try emit(held)
        held.removeAll(keepingCapacity: true)
    }
}
