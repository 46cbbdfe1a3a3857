/// Holds each short ATT PDU of a recording once: identical PDUs (requests for the same handle,
/// Write Responses, Handle Value Confirmations, the same command on many links) share one buffer,
/// where each had a heap array of its own (issue 17: 48 bytes a PDU with the allocator's
/// rounding, two a link of 61,424 on the many-links capture, each to the end of the run).
/// Sharing changes nothing else: PDUs compare by their bytes (`PDUBytes`).
struct ShortPDUInterner {
    /// The longest PDU looked up: one of the default ATT_MTU (Core v5.4 Vol 3 Part F 3.2.8), which
    /// most requests and short values are. Longer ones are seldom repeated, and hashing them costs.
    static let maxLength = 23
    private var held: Set<[UInt8]> = []

    /// `bytes`, or the identical bytes already held.
    mutating func intern(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count <= Self.maxLength else { return bytes }
        return held.insert(bytes).memberAfterInsert
    }
}
