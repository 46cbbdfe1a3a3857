import BLECore
import BLETimeline

/// Which of the local host's ACL packets on one link the controller reported completed before a
/// frame, from its Number Of Completed Packets events (Core v5.4 Vol 4 Part E 7.7.19).
///
/// On LE a packet is completed once the peer's link layer acknowledged it; the controller
/// completes a handle's packets in the order the host sent them (4.1.1 flow control), so the
/// credits are matched first in, first out. What that yields is the liveness evidence of a link
/// on which the peer sends no data by protocol (a notifying server's client, the target of Write
/// Commands): the last packet the peer acknowledged, and those sent after it that it never did,
/// still in the controller's buffers when the link went (4.3: the Disconnection Complete frees them
/// with no further count).
struct AcknowledgedPackets {
    struct Sent {
        var frame: Int
        var ts: Int64
        var summary: String
    }

    /// The last packet a credit completed.
    var lastAcknowledged: Sent?
    /// The Number Of Completed Packets event that completed it.
    var lastCredit: (frame: Int, ts: Int64)?
    /// Packets sent after `lastAcknowledged` that no credit completed, in the order sent.
    var outstanding: [Sent] = []
    /// Credits beyond the packets the capture shows sent (packets sent before the capture began).
    var unmatchedCredits = 0
    /// Credits for the link's handle in all: none means the capture does not show the
    /// controller's completions for it (a filtered log, or a controller that sends none), and
    /// `outstanding` then says nothing of what the peer acknowledged.
    var credits = 0
    /// The host sent packets and the capture shows none of them completed, nor any other.
    var completionsMissing: Bool { credits == 0 && !outstanding.isEmpty }

    /// Reads the link's sent ACL packets and its controller's Number Of Completed Packets events
    /// between the link's first packet and `frame`, in capture order: handles are per controller
    /// (`ControllerHandle`), so another adapter's credits on the same handle are not this link's.
    /// The events come from `completions` (read once per capture); the sent packets through the
    /// link's own rows.
    init(_ c: ConnectionFacts, before frame: Int, db: SQLiteDatabase, captureID: Int64,
         completions: CompletionEvents) throws {
        let frames = c.firstPacketID..<max(frame, c.firstPacketID)
        if let credits = try completions.entries(controller: c.controller, handle: c.handle, frames: frames) {
            self = try Self.merging(credits, c, before: frame, db: db, captureID: captureID)
        } else {
            self = try Self.scanning(c, before: frame, db: db, captureID: captureID)
        }
    }

    private init() {}

    /// The link's sent packets, read through its own rows, merged with `credits` in frame order.
    private static func merging(_ credits: [CompletionEvents.Entry], _ c: ConnectionFacts, before frame: Int,
                                db: SQLiteDatabase, captureID: Int64) throws -> AcknowledgedPackets {
        var acks = AcknowledgedPackets()
        let s = try db.prepare("""
            SELECT frame, ts_us, summary FROM packet
            WHERE connection_id = ?4 AND kind = 'acl' AND direction = 'tx'
            AND rowid >= \(PacketKey.sql(capture: "?1", frame: "?2")) AND rowid < \(PacketKey.sql(capture: "?1", frame: "?3"))
            ORDER BY rowid
            """)
        try s.bind([.integer(captureID), .integer(Int64(c.firstPacketID)), .integer(Int64(frame)), .integer(c.id)])
        var matching = Matching()
        var next = 0
        while try s.step() {
            let sent = s.int(0)
            while next < credits.count, Int(credits[next].frame) < sent {
                matching.credit(Int(credits[next].count), frame: Int(credits[next].frame), ts: credits[next].ts, into: &acks)
                next += 1
            }
            matching.queue.append(Sent(frame: sent, ts: s.int64(1), summary: FindingsEngine.plain(s.text(2) ?? "")))
        }
        for e in credits[next...] { matching.credit(Int(e.count), frame: Int(e.frame), ts: e.ts, into: &acks) }
        acks.outstanding = Array(matching.queue[matching.head...])
        return acks
    }

    /// The same, every packet row between the link's first packet and `frame` stepped through:
    /// for a capture with more completions than `CompletionEvents` keeps.
    private static func scanning(_ c: ConnectionFacts, before frame: Int, db: SQLiteDatabase,
                                 captureID: Int64) throws -> AcknowledgedPackets {
        var acks = AcknowledgedPackets()
        let s = try db.prepare("""
            SELECT frame, ts_us, kind, summary, raw FROM packet
            WHERE rowid >= \(PacketKey.sql(capture: "?1", frame: "?2")) AND rowid < \(PacketKey.sql(capture: "?1", frame: "?3"))
            AND ((connection_id = ?4 AND kind = 'acl' AND direction = 'tx')
                 OR (kind = 'evt' AND controller_index = ?5 AND \(CompletedPacketsEvent.storedRow)))
            ORDER BY rowid
            """)
        try s.bind([.integer(captureID), .integer(Int64(c.firstPacketID)), .integer(Int64(frame)), .integer(c.id),
                    .integer(Int64(c.controller))])
        var matching = Matching()
        while try s.step() {
            if s.text(2) == "acl" {
                matching.queue.append(Sent(frame: s.int(0), ts: s.int64(1), summary: FindingsEngine.plain(s.text(3) ?? "")))
                continue
            }
            let credits = CompletedPacketsEvent.entries(s.blob(4) ?? [])
                .filter { Int($0.handle) == c.handle }.reduce(0) { $0 + $1.count }
            matching.credit(credits, frame: s.int(0), ts: s.int64(1), into: &acks)
        }
        acks.outstanding = Array(matching.queue[matching.head...])
        return acks
    }

    /// The host's packets in the order sent, matched first in, first out by the credits.
    private struct Matching {
        var queue: [Sent] = []
        var head = 0

        mutating func credit(_ credits: Int, frame: Int, ts: Int64, into acks: inout AcknowledgedPackets) {
            guard credits > 0 else { return }
            acks.credits += credits
            let matched = min(credits, queue.count - head)
            acks.unmatchedCredits += credits - matched
            guard matched > 0 else { return }
            head += matched
            acks.lastAcknowledged = queue[head - 1]
            acks.lastCredit = (frame, ts)
            if head > 4096 {
                queue.removeFirst(head)
                head = 0
            }
        }
    }
}
