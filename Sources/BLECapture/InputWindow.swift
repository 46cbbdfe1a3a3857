/// Memory owned by an `InputWindow`, freed with it.
final class WindowStorage {
    let base: UnsafeMutableRawPointer
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit { base.deallocate() }
}

/// A sliding window over a `ByteSource`: the streaming readers' one buffer.
///
/// Refills with reads as large as the free space (1 MiB by default) and never holds more
/// than one window of the input, so memory stays flat for any file size. A state machine in
/// the swift-nio decoder style: a reader asks `fill(atLeast:)` for the bytes one record needs,
/// parses them in place through `pointer`, then `consume`s them.
struct InputWindow {
    static let defaultCapacity = 1 << 20

    private(set) var storage: WindowStorage
    /// Index in `storage` of the first unconsumed byte.
    private(set) var start = 0
    /// Index in `storage` just past the last byte read.
    private(set) var end = 0
    /// Absolute input offset of the first unconsumed byte.
    private(set) var offset = 0
    /// True once the source has reported the end of its input.
    private(set) var sourceEnded = false
    let source: any ByteSource

    /// A window whose first bytes are `initial` (a prefix already read for format detection).
    init(source: any ByteSource, initial: [UInt8] = [], capacity: Int = InputWindow.defaultCapacity) {
        self.source = source
        storage = WindowStorage(capacity: max(capacity, initial.count, 64))
        initial.withUnsafeBytes { bytes in
            if let from = bytes.baseAddress { storage.base.copyMemory(from: from, byteCount: bytes.count) }
        }
        end = initial.count
    }

    /// Unconsumed bytes in the window.
    @inline(__always) var available: Int { end - start }

    /// The first unconsumed byte; valid until the next `fill` or `consume`.
    @inline(__always) var pointer: UnsafeRawPointer { UnsafeRawPointer(storage.base + start) }

    /// The unconsumed bytes; valid until the next `fill` or `consume`.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: pointer, count: available) }

    @inline(__always) mutating func consume(_ count: Int) {
        start += count
        offset += count
    }

    /// Makes at least `count` bytes available unless the input ends first.
    /// Returns whether `available >= count`; a false answer means the input has ended.
    @inline(__always)
    mutating func fill(atLeast count: Int) throws(CaptureError) -> Bool {
        if available >= count { return true }
        return try refill(atLeast: count)
    }

    private mutating func refill(atLeast count: Int) throws(CaptureError) -> Bool {
        if sourceEnded { return false }
        if count > storage.capacity {
            let bigger = WindowStorage(capacity: max(count, storage.capacity * 2))
            bigger.base.copyMemory(from: storage.base + start, byteCount: available)
            end = available
            start = 0
            storage = bigger
        } else if storage.capacity - start < count {
            // Not enough room after `start`: move the unconsumed tail to the front.
            (storage.base).copyMemory(from: storage.base + start, byteCount: available)
            end = available
            start = 0
        }
        while available < count {
            let free = UnsafeMutableRawBufferPointer(start: storage.base + end, count: storage.capacity - end)
            let n = try source.read(into: free)
            if n <= 0 {
                sourceEnded = true
                return false
            }
            end += min(n, free.count)
        }
        return true
    }
}
