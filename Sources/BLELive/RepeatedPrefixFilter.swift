import BLECore

/// Keeps a reconnected stream that starts over from storing what was already stored.
///
/// Some servers send the same stream from its beginning on every connection (a btsnoop file
/// served whole, a cut stream that always ends at the same record). Each reconnection then
/// delivered the same records again: one such server made the recorder store the same 127
/// records 236 times in 60 s. A repeated identical prefix is not new data.
///
/// Each connection's records are fingerprinted (FNV-1a 64 over direction, kind, payload and,
/// when the stream carries them, the source's timestamps) and compared, in order, with the
/// records of the longest stream seen since a connect (the reference). While they match, the
/// records are repeats:
/// - with source timestamps (btsnoop), a match is the same record: it is dropped at once;
/// - without (H4: times are arrival times, so a new session may legitimately begin with the
///   same bytes, e.g. HCI Reset), matching records are held back: released in order when the
///   stream diverges (it is a new session after all), dropped when the connection ends first.
///
/// A connection whose records all repeat delivered nothing new, so `TCPSource` counts it as a
/// failed attempt and gives up after `--retries` of them, as on a server that sends nothing.
struct RepeatedPrefixFilter {
    /// At most this many fingerprints are kept per stream (8 bytes each); past that, records
    /// are compared no further and count as new.
    let limit: Int
    private var reference: [UInt64] = []
    private var current: [UInt64] = []
    /// This connection's records have all matched the reference so far.
    private var matching = true
    private var held: [LiveRecord] = []
    /// Repeats dropped on this connection.
    private(set) var repeatsOnConnection = 0
    /// Repeats dropped in all.
    private(set) var repeatsDropped = 0
    /// Connections whose every record was a repeat.
    private(set) var repeatingConnections = 0
    /// Records offered on this connection so far (its stream index of the next record).
    private(set) var offeredOnConnection = 0
    /// The last record offered was the first one past the end of the reference, after a
    /// connection that matched the reference all along: the same stream, going on further.
    private(set) var lastOfferContinuedReference = false

    /// Every record of this connection so far matched the reference, and the reference holds a
    /// record at `index` too: with source timestamps, that record was delivered whole before.
    func referenceHolds(index: Int) -> Bool {
        matching && index < reference.count && index < limit
    }

    init(limit: Int = 1 << 20) {
        self.limit = limit
    }

    /// A new connection begins (its stream starts over).
    mutating func connectionStarted() {
        current.removeAll(keepingCapacity: true)
        matching = true
        held.removeAll()
        repeatsOnConnection = 0
        offeredOnConnection = 0
        lastOfferContinuedReference = false
    }

    /// The connection ended: held records were repeats after all. Returns how many repeats
    /// this connection brought.
    @discardableResult
    mutating func connectionEnded() -> Int {
        if matching {
            repeatsOnConnection += held.count
            repeatsDropped += held.count
            held.removeAll()
        }
        // Still matching at the end: every record was a repeat (a new record ends the match).
        if matching && !current.isEmpty { repeatingConnections += 1 }
        // The longest stream is what the next connection may repeat.
        if !matching || current.count > reference.count { swap(&reference, &current) }
        current.removeAll(keepingCapacity: true)
        matching = true
        return repeatsOnConnection
    }

    /// Offers the connection's next record; returns the records to deliver now, in order.
    mutating func offer(_ live: LiveRecord, sourceTimestamps: Bool) -> [LiveRecord] {
        let index = offeredOnConnection
        offeredOnConnection += 1
        lastOfferContinuedReference = matching && index == reference.count && index < limit
        let print = Self.fingerprint(live.record, timestamp: sourceTimestamps)
        if current.count < limit { current.append(print) }
        if matching && index < reference.count && index < limit && reference[index] == print {
            if sourceTimestamps {
                repeatsOnConnection += 1
                repeatsDropped += 1
            } else {
                held.append(live)
            }
            return []
        }
        matching = false
        if held.isEmpty { return [live] }
        var out = held
        held.removeAll()
        out.append(live)
        return out
    }

    /// FNV-1a 64 over the record's direction, kind, payload and (optionally) timestamp.
    static func fingerprint(_ record: CaptureRecord, timestamp: Bool) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        @inline(__always) func mix(_ byte: UInt8) {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        for b in record.direction.rawValue.utf8 { mix(b) }
        mix(0)
        for b in record.kind.rawValue.utf8 { mix(b) }
        mix(0)
        if timestamp {
            var t = record.timestamp
            for _ in 0..<8 {
                mix(UInt8(truncatingIfNeeded: t))
                t >>= 8
            }
        }
        for b in record.payload { mix(b) }
        return hash
    }
}
