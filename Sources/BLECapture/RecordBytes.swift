/// Copies `count` bytes at `pointer` into a new array: the one allocation per record.
///
/// Through `Array(UnsafeRawBufferPointer)`, which is specialised for `UInt8` here: the
/// `unsafeUninitializedCapacity` initialiser went through the standard library's unspecialised
/// `_allocateBufferUninitialized`, which looks up the array storage's generic metadata on every
/// call (600 instructions a record of the decoding thread, callgrind, 100k-record import).
@inline(__always)
func copyBytes(_ pointer: UnsafeRawPointer, count: Int) -> [UInt8] {
    guard count > 0 else { return [] }
    return Array(UnsafeRawBufferPointer(start: pointer, count: count))
}

extension UnsafeRawPointer {
    @inline(__always) func bigEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inline(__always) func bigEndianUInt64(at offset: Int) -> UInt64 {
        UInt64(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inline(__always) func uint32(at offset: Int, bigEndian: Bool) -> UInt32 {
        let raw = loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        return bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)
    }

    @inline(__always) func uint16(at offset: Int, bigEndian: Bool) -> UInt16 {
        let raw = loadUnaligned(fromByteOffset: offset, as: UInt16.self)
        return bigEndian ? UInt16(bigEndian: raw) : UInt16(littleEndian: raw)
    }
}

extension UnsafeRawBufferPointer {
    /// Big-endian u32 at `offset`, or nil past the end.
    func bigEndianUInt32(at offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= count, let base = baseAddress else { return nil }
        return base.bigEndianUInt32(at: offset)
    }

    /// u32 in the given order at `offset`, or nil past the end.
    func uint32(at offset: Int, bigEndian: Bool) -> UInt32? {
        guard offset >= 0, offset + 4 <= count, let base = baseAddress else { return nil }
        return base.uint32(at: offset, bigEndian: bigEndian)
    }
}

/// The standard wording of a truncated-record warning.
func truncationMessage(recordOffset: Int, have: Int, need: Int, header: Bool = false) -> String {
    let what = header ? "record header" : "record"
    return "truncated \(what) at byte \(recordOffset) (file ends after \(have) of \(need) bytes)"
}

extension Array where Element == UInt8 {
    /// u16 in the given byte order at `i` (the caller has checked the bytes are there): a pcapng
    /// block's fields, in its section's byte order (draft-ietf-opsawg-pcapng 4.1).
    func uint16(at i: Int, bigEndian: Bool) -> UInt16 {
        let v = UInt16(self[i]) | UInt16(self[i + 1]) << 8
        return bigEndian ? v.byteSwapped : v
    }

    /// u32 in the given byte order at `i` (the caller has checked the bytes are there).
    func uint32(at i: Int, bigEndian: Bool) -> UInt32 {
        let v = UInt32(self[i]) | UInt32(self[i + 1]) << 8 | UInt32(self[i + 2]) << 16 | UInt32(self[i + 3]) << 24
        return bigEndian ? v.byteSwapped : v
    }
}
