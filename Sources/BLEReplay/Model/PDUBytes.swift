import BLECore
import BLETimeline
import Synchronization

/// The bytes of one ATT PDU as the replay's model holds them (issue 17: memory flat in the
/// number and size of recorded values): a short PDU inline, a long one (over `inlineLimit`
/// bytes) as a reference to its `att_pdu` row in the timeline the session was loaded from
/// (`PDUSource`), with its length, its SHA-256 and its first bytes. The bytes of a long PDU are
/// read back when something needs them whole (sending it on the simulated link, decoding it,
/// describing a divergence), and dropped again after.
///
/// Two PDUs are equal when their bytes are: short ones compare their bytes, long ones their
/// length and SHA-256 (FIPS 180-4), so equality and hashing never read a long PDU back.
public struct PDUBytes: Sendable, Hashable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// PDUs longer than this are held by reference when the session has a `PDUSource`. An LE
    /// ATT PDU of the usual MTUs (up to 517, Core v5.4 Vol 3 Part F 3.2.8) stays inline.
    public static let inlineLimit = 1024
    /// How many leading bytes a reference keeps (opcode, handle, offsets, error code: what the
    /// replay reads without needing the value).
    static let headLength = 32

    enum Storage: Sendable {
        case inline([UInt8])
        case stored(StoredPDU)
    }
    let storage: Storage

    /// `bytes` held inline, whatever their length.
    public init(_ bytes: [UInt8]) { storage = .inline(bytes) }

    public init(arrayLiteral elements: UInt8...) { storage = .inline(elements) }

    init(stored: StoredPDU) { storage = .stored(stored) }

    /// A key for `bytes` in a table of recorded PDUs (answers, counts): inline when short, else
    /// its length and digest only. Never read back: it cannot give the bytes of a long PDU.
    static func key(_ bytes: [UInt8]) -> PDUBytes {
        guard bytes.count > inlineLimit else { return PDUBytes(bytes) }
        return PDUBytes(stored: StoredPDU(bytes, row: PDURow(connection: 0, packet: 0, ordinal: 0), source: nil))
    }

    public var count: Int {
        @inline(__always) get {
        switch storage {
        case .inline(let b): b.count
        case .stored(let s): s.count
        }
        }
    }

    public var isEmpty: Bool { count == 0 }
    public var first: UInt8? {
        @inline(__always) get {
        switch storage {
        case .inline(let b): b.first
        case .stored(let s): s.head.first
        }
        }
    }

    /// The byte at `index`: a long PDU's first bytes without reading it back.
    public subscript(index: Int) -> UInt8 {
        @inline(__always) get {
            switch storage {
            case .inline(let b): return b[index]
            case .stored(let s): return index < s.head.count ? s.head[index] : s.byte(at: index)
            }
        }
    }

    /// The first bytes (at most `headLength`), without reading a long PDU back.
    public var head: [UInt8] {
        switch storage {
        case .inline(let b): b.count <= Self.headLength ? b : Array(b.prefix(Self.headLength))
        case .stored(let s): s.head
        }
    }

    /// The bytes held: the whole PDU when inline (no copy), a long one's first bytes (`head`).
    /// For what reads only the leading bytes, without reading a long PDU back.
    public var held: [UInt8] {
        @inline(__always) get {
        switch storage {
        case .inline(let b): b
        case .stored(let s): s.head
        }
        }
    }

    /// The whole PDU: a long one is read back from its timeline.
    public var bytes: [UInt8] {
        @inline(__always) get {
            switch storage {
            case .inline(let b): return b
            case .stored(let s): return s.bytes()
            }
        }
    }

    /// True when the bytes are held by reference (read back on demand).
    public var isReference: Bool {
        if case .stored = storage { return true }
        return false
    }

    public var description: String { hexString(head) + (count > Self.headLength ? "… (\(count) bytes)" : "") }

    @inline(__always)
    public static func == (l: PDUBytes, r: PDUBytes) -> Bool {
        if case .inline(let a) = l.storage, case .inline(let b) = r.storage { return a == b }
        return referenceEqual(l, r)
    }

    @inline(never)
    static func referenceEqual(_ l: PDUBytes, _ r: PDUBytes) -> Bool {
        switch (l.storage, r.storage) {
        case (.inline(let a), .inline(let b)): return a == b
        case (.stored(let a), .stored(let b)): return a === b || (a.count == b.count && a.digest == b.digest)
        case (.inline(let a), .stored(let b)), (.stored(let b), .inline(let a)):
            return a.count == b.count && PDUDigest(a) == b.digest
        }
    }

    @inline(__always)
    public func hash(into hasher: inout Hasher) {
        if case .inline(let b) = storage, b.count <= Self.inlineLimit {
            b.hash(into: &hasher)
        } else {
            referenceHash(into: &hasher)
        }
    }

    /// A long PDU hashes by length and digest, held inline (one the simulation made) or not.
    @inline(never)
    func referenceHash(into hasher: inout Hasher) {
        switch storage {
        case .inline(let b):
            hasher.combine(b.count)
            hasher.combine(PDUDigest(b))
        case .stored(let s):
            hasher.combine(s.count)
            hasher.combine(s.digest)
        }
    }
}

/// SHA-256 of a PDU, as four words.
struct PDUDigest: Hashable, Sendable {
    var words: (UInt64, UInt64, UInt64, UInt64)

    init(_ bytes: [UInt8]) {
        var h = SHA256()
        h.update(bytes)
        let d = h.finalize()
        func word(_ i: Int) -> UInt64 { d[i * 8..<i * 8 + 8].reduce(0) { $0 << 8 | UInt64($1) } }
        words = (word(0), word(1), word(2), word(3))
    }

    static func == (l: PDUDigest, r: PDUDigest) -> Bool { l.words == r.words }

    func hash(into hasher: inout Hasher) { hasher.combine(words.0) }
}

/// Where a long PDU is in the timeline: the `att_pdu` rows of `connection` and `packet`, in rowid
/// order, the `ordinal`-th (0-based) of them (as the loader reads them).
struct PDURow: Hashable, Sendable {
    var connection: Int64
    var packet: Int
    var ordinal: Int
}

/// A long PDU's reference: its `att_pdu` row, length, digest and first bytes.
final class StoredPDU: Sendable {
    let count: Int
    let digest: PDUDigest
    let head: [UInt8]
    /// Its row in `source`'s timeline.
    let row: PDURow
    /// Nil for a key (`PDUBytes.key`), which is never read back.
    let source: PDUSource?

    init(_ bytes: [UInt8], row: PDURow, source: PDUSource?) {
        count = bytes.count
        digest = PDUDigest(bytes)
        head = Array(bytes.prefix(PDUBytes.headLength))
        self.row = row
        self.source = source
    }

    init(count: Int, digest: PDUDigest, head: [UInt8], row: PDURow, source: PDUSource) {
        self.count = count
        self.digest = digest
        self.head = head
        self.row = row
        self.source = source
    }

    /// The byte at `index`, read back.
    @inline(never)
    func byte(at index: Int) -> UInt8 { bytes()[index] }

    /// The bytes, read back; the first bytes alone if the timeline no longer has the row as it
    /// was (its source counts that, `PDUSource.unreadable`, and the command says so).
    @inline(never)
    func bytes() -> [UInt8] {
        source?.bytes(row: row, count: count, digest: digest) ?? head
    }
}

/// The timeline a session's long PDUs are read back from (`PDUBytes`): the file, or the scratch
/// timeline a capture was imported into, kept open (and the scratch file kept) for as long as a
/// PDU refers to it. Made before the load (the loader's references point to it), given the
/// timeline after (`keep`).
public final class PDUSource: Sendable {
    struct State {
        var timeline: OpenTimeline? = nil
        /// Every long PDU loaded, by length and digest -> its row and first bytes: what the
        /// simulated link's log refers to when it carries one of them (`reference(to:)`).
        var rows: [Key: (row: PDURow, head: [UInt8])] = [:]
        /// Long PDUs that could not be read back as loaded (`unreadable`).
        var unreadable = 0
    }
    struct Key: Hashable {
        var count: Int
        var digest: PDUDigest
    }
    private let state = Mutex(State())

    public init() {}

    /// Keeps `source` open for the PDUs that refer to it; when none does, it is left to close
    /// (a scratch timeline removed) as before.
    public func keep(_ source: consuming sending TimelineSource) {
        guard !state.withLock({ $0.rows.isEmpty }) else { return }
        let timeline = OpenTimeline(source)
        state.withLock { $0.timeline = timeline }
    }

    /// Closes the timeline (removing a scratch one) once nothing more is to be read: a PDU read
    /// back after gives its first bytes only. The command calls it when its output is written,
    /// rather than waiting for the last reference to go.
    public func close() {
        state.withLock { $0.timeline = nil }
    }

    /// A long PDU just loaded from `row`: held by reference from now on.
    func spill(_ bytes: [UInt8], row: PDURow) -> PDUBytes {
        let stored = StoredPDU(bytes, row: row, source: self)
        let head = stored.head
        state.withLock { $0.rows[Key(count: stored.count, digest: stored.digest)] = (row, head) }
        return PDUBytes(stored: stored)
    }

    /// `bytes` as the model holds them: a long PDU the recording holds becomes a reference to
    /// its row; any other stays inline.
    public func reference(to bytes: [UInt8]) -> PDUBytes {
        guard bytes.count > PDUBytes.inlineLimit else { return PDUBytes(bytes) }
        let digest = PDUDigest(bytes)
        let key = Key(count: bytes.count, digest: digest)
        guard let found = state.withLock({ s -> (row: PDURow, head: [UInt8])? in s.rows[key] }) else { return PDUBytes(bytes) }
        return PDUBytes(stored: StoredPDU(count: bytes.count, digest: digest, head: found.head, row: found.row, source: self))
    }

    /// The row's bytes when they are still the ones loaded (same length and SHA-256); else nil,
    /// counted in `unreadable`.
    func bytes(row: PDURow, count: Int, digest: PDUDigest) -> [UInt8]? {
        let timeline = state.withLock { $0.timeline }
        if let b = timeline?.pdu(row: row, count: count), PDUDigest(b) == digest { return b }
        state.withLock { $0.unreadable += 1 }
        return nil
    }

    /// How many times a long PDU could not be read back as it was loaded (the timeline was changed
    /// or closed under the replay): each time its first bytes stood in for it, so the replay's
    /// outcome is not the recording's, and `replay` exits 65 saying so.
    public var unreadable: Int { state.withLock { $0.unreadable } }
}

/// A timeline kept open for reading PDUs back, one reader at a time.
final class OpenTimeline: Sendable {
    private let source: Mutex<TimelineSource>

    init(_ source: consuming sending TimelineSource) {
        self.source = Mutex(source)
    }

    /// `att_pdu.pdu` of `row`, when it is there with `count` bytes.
    func pdu(row: PDURow, count: Int) -> [UInt8]? {
        source.withLock { s -> [UInt8]? in
            guard let r = try? s.store.database.rows("""
                SELECT pdu FROM att_pdu WHERE connection_id = ?1 AND packet_id = ?2 ORDER BY rowid LIMIT 1 OFFSET ?3
                """, [.integer(row.connection), .integer(Int64(row.packet)), .integer(Int64(row.ordinal))]).first,
                  let b = r.first?.blob, b.count == count else { return nil }
            return b
        }
    }
}
