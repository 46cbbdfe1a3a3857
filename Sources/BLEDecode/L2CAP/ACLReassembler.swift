import BLECore

/// Maps positions in a reassembled L2CAP PDU back to absolute offsets in the capture file and
/// to the records that carried them.
///
/// A PDU from one ACL packet is one run of bytes; a reassembled one is one run per fragment.
struct OffsetMap: Sendable {
    /// One fragment's bytes: where they start in the PDU, in the file and in their record.
    struct Run: Sendable {
        var position: Int
        var absolute: Int
        var source: FragmentSource
    }

    /// Absolute offset of PDU byte 0.
    var first: Int { head.absolute }
    /// The record the first byte came in (the start fragment's).
    var startFrame: Int { head.source.frame }
    /// The first fragment's run, held inline: most PDUs come in one ACL packet, and an array of
    /// one run was a heap allocation per L2CAP PDU (callgrind, 100k-record gateway import).
    private var head: Run
    /// The runs of the later fragments, in PDU order; empty for a PDU of one packet.
    private var rest: [Run] = []

    /// One run per fragment, in PDU order; never empty.
    var runs: [Run] { [head] + rest }

    init(first: Int, source: FragmentSource) { head = Run(position: 0, absolute: first, source: source) }

    /// Absolute offset of the PDU byte at `position`.
    func absolute(_ position: Int) -> Int {
        var best = head
        for r in rest where r.position <= position { best = r }
        return best.absolute &+ (position &- best.position)
    }

    mutating func append(position: Int, absolute: Int, source: FragmentSource) {
        rest.append(Run(position: position, absolute: absolute, source: source))
    }

    /// The PDU bytes `range` (positions in the PDU, header included) as ranges of the records
    /// that carried them: a range that spans fragments comes back split, one piece per record.
    func recordRanges(_ range: Range<Int>, count: Int, what: String) -> [SecretRange] {
        var out: [SecretRange] = []
        let runs = self.runs
        for (i, run) in runs.enumerated() {
            let end = i + 1 < runs.count ? runs[i + 1].position : count
            let lower = max(range.lowerBound, run.position), upper = min(range.upperBound, end)
            guard lower < upper else { continue }
            let start = run.absolute &- run.source.recordBase &+ (lower &- run.position)
            guard start >= 0 else { continue }
            out.append(SecretRange(frame: run.source.frame, range: start..<(start + upper - lower), what: what))
        }
        return out
    }
}

/// The record a fragment came in: its frame number and the absolute offset of its payload's
/// byte 0 (so a PDU position maps to a position in that record's payload).
struct FragmentSource: Sendable {
    var frame: Int
    var recordBase: Int
}

/// A complete L2CAP PDU (basic header included) ready for dispatch on its CID.
struct L2CAPFrame: Sendable {
    /// Header (length u16, CID u16) and payload.
    var bytes: ArraySlice<UInt8>
    var offsets: OffsetMap
    /// ACL packets it was carried in.
    var fragments: Int
    /// True when the PDU came in several ACL packets (offsets need the map).
    var isReassembled: Bool { fragments > 1 }

    /// Channel ID (header bytes 2-3); the frame always has the 4 header bytes.
    var cid: UInt16 {
        let i = bytes.startIndex
        return UInt16(bytes[i + 2]) | UInt16(bytes[i + 3]) << 8
    }
    /// L2CAP payload (information payload of a B-frame).
    var payload: ArraySlice<UInt8> { bytes.dropFirst(4) }
}

/// Reassembles L2CAP PDUs from ACL fragments, per connection handle and direction.
///
/// Core v5.4 Vol 4 Part E 5.4.2 (packet boundary flag) and Vol 3 Part A 3 and 7.2
/// (fragmentation): a start fragment (PB 0b00 or 0b10, or 0b11 complete) begins with the basic
/// L2CAP header, length u16 + CID u16; continuation fragments (PB 0b01) follow until
/// length + 4 bytes have arrived. State is bounded: a pending PDU never holds more than its
/// header announces (at most 65,535 + 4 bytes) nor reserves more than has arrived, there is one
/// per (handle, direction), and all pending PDUs together hold at most `pendingBudget` bytes:
/// past it the oldest are discarded, each with a problem (a hostile capture can start 65,535-byte
/// PDUs on every one of 3,840 handles of each of many controllers and never finish them).
struct ACLReassembler: Sendable {
    struct Key: Hashable, Sendable {
        var handle: UInt16
        var direction: Direction
        /// Controller index (btmon captures record several controllers; handles are per controller).
        var controller: UInt16 = 0

        /// One word for the hasher: the synthesized hash combined the direction's raw value, a
        /// string, and with it was most of a lookup's cost (a lookup or two per ACL fragment).
        func hash(into hasher: inout Hasher) {
            let d: UInt64 = switch direction {
            case .sent: 0
            case .received: 1
            case .unknown: 2
            }
            hasher.combine(UInt64(controller) << 32 | UInt64(handle) << 8 | d)
        }
    }

    /// A PDU whose fragments are still arriving.
    struct Pending: Sendable {
        var bytes: [UInt8]
        var offsets: OffsetMap
        var fragments: Int
        /// Absolute offset of the start fragment's data (for problems about the whole PDU).
        var startOffset: Int
        /// Which start fragment began it (ages pending PDUs for the budget).
        var serial = 0
    }

    /// Reassembly state of one (handle, direction); an absent key is `idle`.
    ///
    /// A struct, not an enum of the two states: a continuation is appended where the state is
    /// held in `states` (`appendContinuation`), which an enum's payload does not allow without
    /// taking it out and copying it back (callgrind: 1,360 instructions a fragment that way).
    struct State: Sendable {
        var pending: Pending
        /// L2CAP length + 4, once the basic header has arrived; nil while a start fragment shorter
        /// than the 4-byte header waits for the length.
        var expected: Int?

        /// A start fragment shorter than the 4-byte basic header: length not yet known.
        static func awaitingHeader(_ p: Pending) -> State { State(pending: p, expected: nil) }
        /// Header seen; `expected` = L2CAP length + 4.
        static func collecting(_ p: Pending, expected: Int) -> State { State(pending: p, expected: expected) }

        /// Appends `data`, a continuation, when the PDU's length is known and `data` does not
        /// overfill it; returns the bytes now held, the length expected and the PDU's serial, or
        /// nil (nothing changed) for any other fragment.
        mutating func appendContinuation(_ data: ArraySlice<UInt8>, absolute: Int,
                                         source: FragmentSource) -> (received: Int, expected: Int, serial: Int)? {
            guard let expected, pending.bytes.count + data.count <= expected else { return nil }
            pending.offsets.append(position: pending.bytes.count, absolute: absolute, source: source)
            pending.fragments += 1
            pending.bytes.append(contentsOf: data)
            return (pending.bytes.count, expected, pending.serial)
        }
    }

    /// What one fragment produced.
    enum Outcome: Sendable {
        /// A whole PDU.
        case complete(L2CAPFrame)
        /// A fragment kept until the rest arrives; counts in bytes of the whole PDU.
        case needMore(isStart: Bool, received: Int, expected: Int?)
        /// A continuation with nothing pending, or a fragment that could not be used.
        case dropped
    }

    /// Largest PDU the basic header can announce, header included.
    static let maximumPDU = 65_535 + 4

    /// Bytes all pending PDUs may hold together (a few hundred maximum-size PDUs).
    static let pendingBudget = 16 << 20

    private(set) var states: [Key: State] = [:]
    /// Bytes held by the pending PDUs in `states`.
    private(set) var pendingBytes = 0
    /// Pending PDUs oldest first, by (key, serial); entries whose PDU is gone are skipped lazily.
    private var age: [(key: Key, serial: Int)] = []
    private var ageStart = 0
    private var nextSerial = 0

    /// Whether any PDU is pending.
    var isEmpty: Bool { states.isEmpty }

    /// Feeds one ACL packet's data.
    ///
    /// - Parameters:
    ///   - data: the ACL data (after the 4-byte ACL header).
    ///   - dataOffset: absolute offset of `data`'s first byte.
    ///   - isStart: PB flag says first fragment (0b00, 0b10) or complete PDU (0b11).
    ///   - isTruncated: the capture cut this ACL packet short: no more bytes will come for the
    ///     PDU, so it is handed on as it is.
    ///   - source: the record `data` belongs to (for `OffsetMap.recordRanges`).
    mutating func add(_ data: ArraySlice<UInt8>, dataOffset: Int, source: FragmentSource, key: Key, isStart: Bool,
                      isTruncated: Bool, problems: inout [DecodeError]) -> Outcome {
        if isStart {
            if let old = take(key) {
                problems.append(Self.discardProblem(old, key: key, why: "a new start fragment arrived"))
            }
            // The common case: one ACL packet holds the whole PDU; no copy.
            if data.count >= 4 {
                let expected = Self.expectedLength(data)
                if data.count == expected || (isTruncated && data.count < expected) {
                    if data.count < expected {
                        problems.append(Self.truncatedProblem(received: data.count, expected: expected,
                                                              at: dataOffset &+ data.count))
                    }
                    return .complete(L2CAPFrame(bytes: data, offsets: OffsetMap(first: dataOffset, source: source), fragments: 1))
                }
                if data.count > expected {
                    problems.append(Self.excessProblem(data.count - expected, at: dataOffset &+ expected))
                    let whole = data.prefix(expected)
                    return .complete(L2CAPFrame(bytes: whole, offsets: OffsetMap(first: dataOffset, source: source), fragments: 1))
                }
            }
            nextSerial += 1
            var pending = Pending(bytes: [], offsets: OffsetMap(first: dataOffset, source: source), fragments: 1,
                                  startOffset: dataOffset, serial: nextSerial)
            // What arrived, not what the header announces: a PDU that never completes holds only
            // its bytes (the array grows geometrically as continuations come).
            pending.bytes.append(contentsOf: data)
            return settle(pending, key: key, isStart: true, isTruncated: isTruncated, problems: &problems)
        }
        // The common continuations: one that does not overfill its PDU. It is appended where the
        // PDU is held; taking the PDU out of the dictionary and putting it back (two lookups and
        // two copies of its state) cost more than the rest of a fragment (callgrind). One that
        // completes the PDU then takes it out by its index, with no second lookup. The outcomes
        // are the ones `settle` gives such fragments.
        if !isTruncated, let i = states.index(forKey: key),
           let held = states.values[i].appendContinuation(data, absolute: dataOffset, source: source) {
            if held.received == held.expected {
                let done = states.remove(at: i).value.pending
                pendingBytes -= held.received - data.count
                return .complete(Self.frame(done, count: held.received))
            }
            pendingBytes += data.count
            enforceBudget(keeping: key, serial: held.serial, problems: &problems)
            return .needMore(isStart: false, received: held.received, expected: held.expected)
        }
        guard let state = take(key) else {
            problems.append(DecodeError(layer: .acl, offset: dataOffset, kind: .malformed,
                                        reason: "continuation fragment (\(data.count) bytes) with no L2CAP PDU pending on handle \(Fmt.h4(key.handle))"))
            return .dropped
        }
        var pending: Pending
        var limit = Self.maximumPDU
        switch state.expected {
        case nil:
            let p = state.pending
            pending = p
            if p.bytes.count + data.count >= 4 {
                var header = p.bytes
                header.append(contentsOf: data.prefix(4 - p.bytes.count))
                limit = Self.expectedLength(header[...])
            }
        case let expected?:
            pending = state.pending
            limit = expected
        }
        pending.offsets.append(position: pending.bytes.count, absolute: dataOffset, source: source)
        pending.fragments += 1
        // Copy no more than the PDU announced: pending state stays bounded.
        let take = min(data.count, max(0, limit - pending.bytes.count))
        pending.bytes.append(contentsOf: data.prefix(take))
        if data.count > take {
            problems.append(Self.excessProblem(data.count - take, at: dataOffset &+ take))
        }
        return settle(pending, key: key, isStart: false, isTruncated: isTruncated, problems: &problems)
    }

    /// Decides what a pending PDU is after a fragment was added: complete, or still waiting.
    private mutating func settle(_ pending: Pending, key: Key, isStart: Bool, isTruncated: Bool,
                                 problems: inout [DecodeError]) -> Outcome {
        guard pending.bytes.count >= 4 else {
            if isTruncated {
                problems.append(DecodeError(layer: .l2cap, offset: pending.startOffset, kind: .truncated,
                                            reason: "L2CAP basic header: need 4 bytes, have \(pending.bytes.count) (capture cut the packet)"))
                return .dropped
            }
            put(.awaitingHeader(pending), key: key, isNew: isStart, problems: &problems)
            return .needMore(isStart: isStart, received: pending.bytes.count, expected: nil)
        }
        let expected = Self.expectedLength(pending.bytes[...])
        let count = pending.bytes.count
        if count == expected {
            return .complete(Self.frame(pending, count: count))
        }
        if count > expected {
            let excess = count - expected
            problems.append(Self.excessProblem(excess, at: pending.offsets.absolute(expected)))
            return .complete(Self.frame(pending, count: expected))
        }
        if isTruncated {
            problems.append(Self.truncatedProblem(received: count, expected: expected,
                                                  at: pending.offsets.absolute(count)))
            return .complete(Self.frame(pending, count: count))
        }
        put(.collecting(pending, expected: expected), key: key, isNew: isStart, problems: &problems)
        return .needMore(isStart: isStart, received: count, expected: expected)
    }

    /// Removes and returns the pending PDU of `key`.
    private mutating func take(_ key: Key) -> State? {
        guard let state = states.removeValue(forKey: key) else { return nil }
        pendingBytes -= state.pending.bytes.count
        return state
    }

    /// Stores a pending PDU (`isNew`: begun by this fragment), then discards the oldest others
    /// while all of them hold more than `pendingBudget` bytes.
    private mutating func put(_ state: State, key: Key, isNew: Bool, problems: inout [DecodeError]) {
        let p = state.pending
        pendingBytes += p.bytes.count
        states[key] = state
        if isNew { age.append((key, p.serial)) }
        enforceBudget(keeping: key, serial: p.serial, problems: &problems)
    }

    /// Discards the oldest pending PDUs but the one of `key` and `serial` while all of them hold
    /// more than `pendingBudget` bytes, then forgets ages of PDUs that are gone.
    private mutating func enforceBudget(keeping key: Key, serial keptSerial: Int, problems: inout [DecodeError]) {
        while pendingBytes > Self.pendingBudget, ageStart < age.count {
            let (oldKey, serial) = age[ageStart]
            ageStart += 1
            guard oldKey != key || serial != keptSerial, states[oldKey]?.pending.serial == serial,
                  let old = take(oldKey) else { continue }
            problems.append(Self.discardProblem(old, key: oldKey,
                                                why: "more than \(Self.pendingBudget >> 20) MiB of L2CAP PDUs pending at once"))
        }
        // Forget entries of PDUs that are gone once they outnumber the live ones.
        if ageStart > 1024 || age.count > 2 * states.count + 1024 {
            age = age[ageStart...].filter { states[$0.key]?.pending.serial == $0.serial }
            ageStart = 0
        }
    }

    /// Drops what is pending on `handle` of `controller` (both directions), e.g. at disconnection.
    mutating func discard(handle: UInt16, controller: UInt16 = 0, why: String) -> [DecodeError] {
        var out: [DecodeError] = []
        for d in [Direction.sent, .received, .unknown] {
            let key = Key(handle: handle, direction: d, controller: controller)
            if let old = take(key) {
                out.append(Self.discardProblem(old, key: key, why: why))
            }
        }
        return out
    }

    /// Drops what is pending under `key` (the capture writer cut its next fragment, so the PDU
    /// cannot complete). True when something was pending.
    @discardableResult
    mutating func discard(key: Key) -> Bool { take(key) != nil }

    /// Drops everything pending (end of capture), ordered by where each PDU started, each
    /// problem added to `chunks` (so that tens of thousands of pending PDUs, issue 17, are not
    /// all put into sentences at once).
    mutating func discardAll<E: Error>(why: String, into chunks: inout ProblemChunks,
                                       _ emit: ([DecodeError]) throws(E) -> Void) throws(E) {
        let order = states.map { (offset: $0.value.pending.startOffset, key: $0.key) }.sorted { $0.offset < $1.offset }
        for (_, key) in order {
            guard let state = states[key] else { continue }
            try chunks.append(Self.discardProblem(state, key: key, why: why), emit)
        }
        states.removeAll()
        pendingBytes = 0
        age.removeAll()
        ageStart = 0
    }

    // MARK: helpers

    private static func expectedLength(_ bytes: ArraySlice<UInt8>) -> Int {
        let i = bytes.startIndex
        return (Int(bytes[i]) | Int(bytes[i + 1]) << 8) + 4
    }

    private static func frame(_ p: Pending, count: Int) -> L2CAPFrame {
        L2CAPFrame(bytes: p.bytes[0..<count], offsets: p.offsets, fragments: p.fragments)
    }

    private static func discardProblem(_ state: State, key: Key, why: String) -> DecodeError {
        let (p, expected) = (state.pending, state.expected)
        let of = expected.map { " of \($0)" } ?? ""
        // About the record its start fragment came in (`DecodeError.frame`), where its offset is.
        return DecodeError(layer: .l2cap, offset: p.startOffset, kind: .truncated,
                           reason: "incomplete L2CAP PDU discarded (\(why)): handle \(Fmt.h4(key.handle)) \(key.direction.rawValue), \(p.bytes.count)\(of) bytes in \(p.fragments) fragment(s)",
                           frame: p.offsets.startFrame)
    }

    private static func excessProblem(_ n: Int, at offset: Int) -> DecodeError {
        DecodeError(layer: .l2cap, offset: offset, kind: .malformed,
                    reason: "\(n) byte(s) beyond the length in the L2CAP header")
    }

    private static func truncatedProblem(received: Int, expected: Int, at offset: Int) -> DecodeError {
        DecodeError(layer: .l2cap, offset: offset, kind: .truncated,
                    reason: "L2CAP PDU cut short by the capture: \(received) of \(expected) bytes")
    }
}
