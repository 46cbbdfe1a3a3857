import BLECore

/// Times the packets of pcapng Simple Packet Blocks, which carry no timestamp.
///
/// A Simple Packet Block (draft-ietf-opsawg-pcapng 4.4) holds a packet of interface 0 and
/// nothing else: no Interface ID, no timestamp. libpcap 1.10 gives it the time 0 plus the
/// interface's `if_tsoffset` (1970-01-01T00:00:00Z for most files), so a file mixing them with
/// Enhanced Packet Blocks would jump 56 years back and forth, and a capture's duration, an ATT
/// latency or a supervision timeout measured across one would be absurd. Instead, in file order
/// (the order they were captured in, kept as it is):
/// - a packet after a timestamped one is timed at the last timestamp seen;
/// - packets before the first timestamped one are held (up to `holdLimit` records) and timed at
///   the first timestamp that follows;
/// - when no timestamp comes (a file of Simple Packet Blocks only, or more than `holdLimit` of
///   them first), they keep libpcap's time.
/// So a packet without a time is never placed before a packet that came before it, and the
/// durations measured across it are those of the timestamped packets around it. `note` says
/// how many packets were timed which way.
struct SimplePacketTiming {
    /// Untimed packets held, at most, while waiting for the first timestamp.
    static let holdLimit = 4096

    /// The timestamp of the last packet that had one.
    private var lastTimestamp: Int64?
    /// Untimed packets before the first timestamp, waiting for it.
    private var held: [CaptureRecord] = []
    /// Packets ready to be returned, in file order, from `readyIndex` on.
    private var ready: [CaptureRecord] = []
    private var readyIndex = 0
    /// True once `holdLimit` was reached: later untimed packets are not held either.
    private var stoppedHolding = false

    /// Untimed packets seen, and where the first one is.
    private(set) var untimed = 0
    private var firstOffset = 0
    private(set) var timedAtPrevious = 0
    private(set) var timedAtNext = 0
    private(set) var keptAsRead = 0
    /// The time libpcap gave the first packet kept as read.
    private var keptTime: Int64?

    /// The next packet ready to be returned.
    mutating func nextReady() -> CaptureRecord? {
        guard readyIndex < ready.count else { return nil }
        defer {
            readyIndex += 1
            if readyIndex == ready.count {
                ready.removeAll(keepingCapacity: true)
                readyIndex = 0
            }
        }
        return ready[readyIndex]
    }

    /// Takes the next packet read: returns the packet to hand out now, or nil when it is held
    /// (and `nextReady` has nothing yet either). `hasTimestamp` is false for a Simple Packet Block;
    /// `blockOffset` is where the packet's block starts (the note names the first such block).
    mutating func take(_ record: CaptureRecord, hasTimestamp: Bool, blockOffset: Int) -> CaptureRecord? {
        var record = record
        if hasTimestamp {
            lastTimestamp = record.timestamp
            guard !held.isEmpty else { return record }
            timedAtNext += held.count
            for i in held.indices { held[i].timestamp = record.timestamp }
            release(held + [record])
            return nextReady()
        }
        if untimed == 0 { firstOffset = blockOffset }
        untimed += 1
        if let lastTimestamp {
            timedAtPrevious += 1
            record.timestamp = lastTimestamp
            return record
        }
        if !stoppedHolding && held.count < Self.holdLimit {
            held.append(record)
            return nil
        }
        stoppedHolding = true
        keep(held + [record])
        return nextReady()
    }

    /// The packets have ended (or the file is damaged): the held ones keep libpcap's time.
    mutating func finish() {
        keep(held)
    }

    private mutating func keep(_ records: [CaptureRecord]) {
        guard !records.isEmpty else { return }
        keptAsRead += records.count
        if keptTime == nil { keptTime = records.first?.timestamp }
        release(records)
    }

    private mutating func release(_ records: [CaptureRecord]) {
        held.removeAll()
        ready += records
    }

    /// What the user should know once the packets have ended: nil when every block had a time.
    var note: CaptureWarning? {
        guard untimed > 0 else { return nil }
        var how: [String] = []
        if timedAtPrevious > 0 { how.append("\(timedAtPrevious) timed at the timestamped packet before them") }
        if timedAtNext > 0 { how.append("\(timedAtNext) before any timestamped packet timed at the first one after them") }
        if keptAsRead > 0, let keptTime {
            how.append("\(keptAsRead) with no timestamped packet "
                + (stoppedHolding ? "among the \(Self.holdLimit) before them" : "after them")
                + " kept at the time libpcap gives them, \(Timestamp.iso8601(keptTime)) (the interface's if_tsoffset)")
        }
        return CaptureWarning(offset: firstOffset, message:
            "\(untimed) packet(s) in pcapng Simple Packet Blocks, which carry no timestamp: "
            + how.joined(separator: ", ") + "; their order is the file's, and a time measured between two of "
            + "them (a latency, a duration) is 0, not what happened")
    }
}
