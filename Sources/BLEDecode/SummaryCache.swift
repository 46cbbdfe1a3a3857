import BLECore

/// Summary lines formatted lately, kept to be handed out again: a record whose summary says
/// what an earlier one's said gets the same string, not a new one.
///
/// Most records of a busy link repeat a few summaries: ACL fragments (`Rcvd ACL fragment
/// (continuation, 54 of 247 bytes)`: 1,882 distinct among 68,424 in the 100k-record gateway
/// benchmark) and handle-value PDUs (`Rcvd Handle Value Notification, Handle: 0x0105`: 8
/// distinct among 16,046). Formatting each and freeing it again was about a seventh of the
/// decoding thread's instructions (callgrind). A line is found by a key that says everything
/// the line says (`fragmentKey`, `handleValueKey`). Direct-mapped: a slot holds the last line
/// whose key lands on it, so what is kept is bounded and a lookup is a multiply and a compare.
struct SummaryCache: Sendable {
    /// Slots, a power of two.
    static let slotCount = 4096
    /// The key of each slot's line; 0 for an empty slot (no key is 0).
    private var keys: [UInt64] = []
    private var lines: [String] = []

    /// The line of `key`: the slot's when it holds that key, else `make()`, kept in the slot.
    mutating func line(_ key: UInt64, _ make: () -> String) -> String {
        if keys.isEmpty {
            keys = Array(repeating: 0, count: Self.slotCount)
            lines = Array(repeating: "", count: Self.slotCount)
        }
        // Fibonacci hashing: the top bits of key × 2^64/φ pick the slot.
        let slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - Self.slotCount.trailingZeroBitCount))
        if keys[slot] == key { return lines[slot] }
        let line = make()
        keys[slot] = key
        lines[slot] = line
        return line
    }

    /// Two bits per direction, never 0.
    private static func bits(_ direction: Direction) -> UInt64 {
        switch direction {
        case .sent: 1
        case .received: 2
        case .unknown: 3
        }
    }

    /// What `Fmt.fragmentSummary(prefix: Fmt.prefix(direction), …)` says, in one word: tag 0b10
    /// in bits 62-63, direction in bits 60-61, start in bit 59, whether the length is known in
    /// bit 58, `received` in bits 29-57 and `expected` in bits 0-28. Nil for counts that do not
    /// fit (none that the reassembler makes: a PDU is at most 65,539 bytes).
    static func fragmentKey(direction: Direction, start: Bool, received: Int, expected: Int?) -> UInt64? {
        let limit = 1 << 29
        guard received >= 0, received < limit else { return nil }
        if let expected, expected < 0 || expected >= limit { return nil }
        return 0b10 << 62 | bits(direction) << 60 | (start ? 1 << 59 : 0) | (expected != nil ? 1 << 58 : 0)
            | UInt64(received) << 29 | UInt64(expected ?? 0)
    }

    /// What the summary of a PDU that says only its opcode and an attribute handle says, in one
    /// word: tag 0b01 in bits 62-63, direction in bits 60-61, opcode in bits 16-23, handle in
    /// bits 0-15.
    static func handleValueKey(direction: Direction, opcode: UInt8, handle: UInt16) -> UInt64 {
        0b01 << 62 | bits(direction) << 60 | UInt64(opcode) << 16 | UInt64(handle)
    }

    /// What the summary of a PDU that says only its opcode says: as `handleValueKey`, with bit
    /// 24 set and no handle.
    static func opcodeKey(direction: Direction, opcode: UInt8) -> UInt64 {
        0b01 << 62 | bits(direction) << 60 | 1 << 24 | UInt64(opcode) << 16
    }
}
