import BLECore
import BLEDecode

/// Requests sent while another of the same requester and bearer was still unanswered: a breach
/// of ATT's sequential protocol (Core v5.4 Vol 3 Part F 3.3.2: a client shall not send a request
/// before the response to its previous one has arrived). Counted, with the first few pairs kept.
public struct ATTRequestOverlaps: Sendable, Equatable {
    /// One request overtaken by a later one of the same requester and bearer.
    public struct Pair: Sendable, Equatable {
        /// The request still unanswered, its opcode and handle.
        public var outstanding: Int
        public var outstandingOpcode: ATTOpcode
        public var outstandingHandle: UInt16?
        /// The request sent while it was, and its opcode.
        public var overtaking: Int
        public var overtakingOpcode: ATTOpcode
        /// Who sent both: `.sent` when the local host was the client.
        public var direction: Direction
    }
    /// How many requests were overtaken (each counted once, by the first request sent over it).
    public private(set) var count = 0
    /// How many of those were never answered (given up: `pending` or `timeout`).
    public internal(set) var unanswered = 0
    /// The first `kept` pairs, in the order they happened.
    public private(set) var first: [Pair] = []
    /// How many pairs are kept: a finding cites the first ones, memory stays flat.
    public static let kept = 5

    public init() {}

    mutating func add(_ pair: Pair) {
        count += 1
        if first.count < Self.kept { first.append(pair) }
    }
}

/// The requests one requester has outstanding on one bearer, oldest first.
///
/// A client keeping to Core v5.4 Vol 3 Part F 3.3.2 has at most one; one that breaks it may
/// have several, and its responses then say which they answer: an Error Response names the
/// request opcode and handle in error (3.4.1.1), any other response the request opcode it
/// answers. The list is bounded (`capacity`), so the work per PDU is constant.
struct OutstandingRequests {
    /// One unanswered request.
    struct Entry {
        var transaction: ATTTransaction
        /// When a later request of the same requester was sent while this one was unanswered.
        var overtakenAt: Int64?
    }

    /// At most this many requests are kept outstanding; an older one is given up (closed
    /// unanswered) when a further request comes.
    static let capacity = 8

    private(set) var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }

    /// A new request: entries 30 s old or more are given up first (their transaction has timed
    /// out, 3.3.3, and no response can end it now); the others left are overtaken by it (each
    /// reported once, to `overtaken`). Returns the entries given up.
    mutating func open(_ t: ATTTransaction, timeout: Int64, overtaken: (ATTTransaction) -> Void) -> [Entry] {
        var closed: [Entry] = []
        entries.removeAll { e in
            guard t.requestTimestamp.saturatingSubtracting(e.transaction.requestTimestamp) >= timeout else { return false }
            closed.append(e)
            return true
        }
        for i in entries.indices where entries[i].overtakenAt == nil {
            entries[i].overtakenAt = t.requestTimestamp
            overtaken(entries[i].transaction)
        }
        if entries.count >= Self.capacity { closed.append(entries.removeFirst()) }
        entries.append(Entry(transaction: t))
        return closed
    }

    /// How well a response answers an outstanding request: 2 when an Error Response names both
    /// its opcode and its handle, 1 when the opcode alone answers (Error Response naming the
    /// opcode, or the response opcode of the request), 0 when it does not answer it.
    static func fit(_ p: StoredATTPDU, _ t: ATTTransaction) -> Int {
        guard p.opcode == .errorResponse else { return t.opcode.responseOpcode == p.opcode ? 1 : 0 }
        // A malformed or cut Error Response still ends a transaction: the newest one.
        guard case .errorResponse(let e)? = p.pdu else { return 1 }
        guard e.requestOpcode == t.opcode else { return 0 }
        return t.handle == e.attributeHandle ? 2 : 1
    }

    /// Takes the request a response answers: the newest of those it fits best. Older entries it
    /// fits as well cannot be told apart from that one by the response: they are given up,
    /// superseded by the newer request (returned in `superseded`). Nil when it answers none.
    mutating func answer(_ p: StoredATTPDU, superseded: inout [Entry]) -> ATTTransaction? {
        var best = -1, bestFit = 0
        for i in entries.indices.reversed() {
            let f = Self.fit(p, entries[i].transaction)
            if f > bestFit { best = i; bestFit = f }
        }
        guard best >= 0 else { return nil }
        let t = entries[best].transaction
        var kept: [Entry] = []
        for (i, e) in entries.enumerated() where i != best {
            if i < best && Self.fit(p, e.transaction) == bestFit && e.transaction.opcode == t.opcode {
                superseded.append(e)
            } else {
                kept.append(e)
            }
        }
        entries = kept
        return t
    }

    /// Empties the list, oldest first.
    mutating func removeAll() -> [Entry] {
        defer { entries = [] }
        return entries
    }
}
