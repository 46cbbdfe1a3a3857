import BLEDecode

/// The first kind of PDU (`ATTMatchKey`) a peer received on a link and how many of it, in one
/// word: most links of a capture of many receive one kind only (a Write Command to one handle),
/// and a table of one entry was 104 bytes a link (issue 17). Every other kind is counted in the
/// session's `Occasional` table.
///
/// The word holds the count in its low 38 bits (2.7 x 10^11 PDUs, more than a replay sends on
/// a link) and the key above them: the opcode, a bit for a handle, and the handle.
struct FirstKeyCount {
    private var word: UInt64 = 0
    private static let countBits: UInt64 = 38
    private static let countMask: UInt64 = (1 << countBits) - 1

    /// How many of the first key were received (0: none yet, the key is not set).
    var count: Int { Int(word & Self.countMask) }

    /// Whether `key` is the one counted here (false while none is).
    func holds(_ key: ATTMatchKey) -> Bool { count > 0 && word >> Self.countBits == Self.tag(key) }

    /// Counts one more `key`, which must be the one held, or the first: the new count.
    mutating func increment(_ key: ATTMatchKey) -> Int {
        let n = count + 1
        precondition(UInt64(n) <= Self.countMask, "more PDUs of one kind on a link than a replay counts")
        word = Self.tag(key) << Self.countBits | UInt64(n)
        return n
    }

    /// The key's 25 bits: opcode, a bit set when it has a handle, the handle.
    private static func tag(_ key: ATTMatchKey) -> UInt64 {
        UInt64(key.opcode.rawValue) | (key.handle.map { 1 << 8 | UInt64($0) << 9 } ?? 0)
    }
}
