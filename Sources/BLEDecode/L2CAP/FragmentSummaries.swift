import BLECore

/// The summaries of ACL fragments (`Fmt.fragmentSummary`) formatted lately, kept to be handed out
/// again: a record's summary is then a shared string, not a new one.
///
/// In a notification-heavy capture most records are fragments whose summaries repeat
/// (`Rcvd ACL fragment (continuation, 54 of 247 bytes)`: 1,882 distinct among 68,424 in the
/// 100k-record gateway benchmark), and formatting each, then freeing it, was a tenth of the
/// decoding thread's instructions (callgrind). Direct-mapped: a slot holds the last line whose
/// key lands on it, so what is kept is bounded and a lookup costs a multiply and a compare.
struct FragmentSummaries: Sendable {
    /// Slots, a power of two.
    static let slotCount = 4096
    /// What each slot's line says, packed (`key`); 0 for an empty slot (no key is 0).
    private var keys: [UInt64] = []
    private var lines: [String] = []

    /// `Fmt.fragmentSummary(prefix: Fmt.prefix(direction), …)`, from a slot when it holds it.
    mutating func summary(direction: Direction, start: Bool, received: Int, expected: Int?) -> String {
        guard let key = Self.key(direction: direction, start: start, received: received, expected: expected) else {
            return Fmt.fragmentSummary(prefix: Fmt.prefix(direction), start: start, received: received, expected: expected)
        }
        if keys.isEmpty {
            keys = Array(repeating: 0, count: Self.slotCount)
            lines = Array(repeating: "", count: Self.slotCount)
        }
        // Fibonacci hashing: the top bits of key × 2^64/φ pick the slot.
        let slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - Self.slotCount.trailingZeroBitCount))
        if keys[slot] == key { return lines[slot] }
        let line = Fmt.fragmentSummary(prefix: Fmt.prefix(direction), start: start, received: received, expected: expected)
        keys[slot] = key
        lines[slot] = line
        return line
    }

    /// Everything a fragment summary says, in one non-zero word: bit 63 set, direction in bits
    /// 60-61, start in bit 59, whether the length is known in bit 58, `received` in bits 29-57
    /// and `expected` in bits 0-28. Nil for counts that do not fit (none that the reassembler
    /// makes: a PDU is at most 65,539 bytes).
    static func key(direction: Direction, start: Bool, received: Int, expected: Int?) -> UInt64? {
        let limit = 1 << 29
        guard received >= 0, received < limit else { return nil }
        if let expected, expected < 0 || expected >= limit { return nil }
        let d: UInt64 = switch direction {
        case .sent: 1
        case .received: 2
        case .unknown: 3
        }
        return 1 << 63 | d << 60 | (start ? 1 << 59 : 0) | (expected != nil ? 1 << 58 : 0)
            | UInt64(received) << 29 | UInt64(expected ?? 0)
    }
}
