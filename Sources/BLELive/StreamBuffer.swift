/// Bytes received but not yet decoded: appended at the end, consumed from the front.
///
/// The streaming decoders look at `bytes` and `consume` what a record used; the storage is
/// compacted when more than half of it has been consumed, so memory stays near the largest
/// record plus one read.
struct StreamBuffer {
    private var storage: [UInt8] = []
    private var start = 0

    /// Unconsumed bytes.
    var count: Int { storage.count - start }
    var isEmpty: Bool { count == 0 }

    /// The unconsumed bytes (indices are positions in the storage, not from zero).
    var bytes: ArraySlice<UInt8> { storage[start...] }

    /// The unconsumed byte at `index` from the front.
    subscript(index: Int) -> UInt8 { storage[start + index] }

    mutating func append(_ chunk: UnsafeRawBufferPointer) {
        storage.append(contentsOf: chunk)
    }

    mutating func append(_ chunk: some Collection<UInt8>) {
        storage.append(contentsOf: chunk)
    }

    /// The next `length` bytes, copied; the caller checked `count >= length`.
    func prefix(_ length: Int) -> [UInt8] { Array(storage[start..<(start + length)]) }

    /// Drops `length` bytes from the front.
    mutating func consume(_ length: Int) {
        start += length
        if start == storage.count {
            storage.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 65_536 && start * 2 > storage.count {
            storage.removeFirst(start)
            start = 0
        }
    }

    mutating func removeAll() {
        storage.removeAll(keepingCapacity: true)
        start = 0
    }

    /// Unsigned little-endian 16-bit value at `index` from the front.
    func uint16LE(at index: Int) -> UInt16 { UInt16(self[index]) | UInt16(self[index + 1]) << 8 }

    /// Unsigned big-endian 32-bit value at `index` from the front.
    func uint32BE(at index: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(self[index + $1]) }
    }

    /// Unsigned big-endian 64-bit value at `index` from the front.
    func uint64BE(at index: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(self[index + $1]) }
    }
}
