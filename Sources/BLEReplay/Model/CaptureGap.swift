import BLEDecode
import BLETimeline

/// A place where the capture itself lacks records (issue 11, Docs/replay.md "Capture gaps"): the
/// btsnoop writer's cumulative-drops counter rose before a record (the packets it dropped are not
/// in the file), the writer cut a record's payload (Android's filtered snoop log: "Snoop log cut"
/// link events, `PacketDecoder+SnoopCut`), or the file ends inside a record or at damage. A connection that diverges across
/// a gap cannot be settled by the capture: the replay reports it as a capture gap, naming the
/// packet and why, never as reproduced.
public struct CaptureGap: Sendable, Equatable {
    /// The record after the gap (frame number as Wireshark counts it), when there is one.
    public var packetID: Int?
    /// Offset from the capture's start (µs), as `RecordedSession` times are.
    public var time: Int64
    public var reason: String

    public init(packetID: Int?, time: Int64, reason: String) {
        self.packetID = packetID
        self.time = time
        self.reason = reason
    }

    /// The capture's gaps: the decoder's "writer dropped N packet(s)" problems (btsnoop
    /// cumulative drops, Android's and BlueZ's writers count what they could not write), and a
    /// file that did not read to its end.
    static func load(_ session: RecordedSession, store: TimelineStore) throws -> [CaptureGap] {
        let db = store.database
        let id = SQLiteValue.integer(session.captureID)
        var gaps: [CaptureGap] = []
        for r in try db.rows("""
            SELECT d.packet_id, p.ts_us, d.reason FROM decode_problem d
            LEFT JOIN packet p ON p.rowid = \(PacketKey.sql(capture: "d.capture_id", frame: "d.packet_id"))
            WHERE d.capture_id = ?1 AND \(WriterDropsProblem.sqlMatch(table: "d")) ORDER BY d.packet_id
            """, [id]) {
            let t = r[1].int64.map { session.clock.time(frame: r[0].int, raw: $0).saturatingSubtracting(session.start) } ?? session.end
            gaps.append(CaptureGap(packetID: r[0].int, time: t,
                                   reason: "the capture's writer \(r[2].string?.dropFirst("writer ".count) ?? "dropped packets") (btsnoop cumulative drops): they are not in the file"))
        }
        for r in try db.rows("""
            SELECT e.packet_id, e.ts_us, e.detail FROM link_event e
            WHERE e.capture_id = ?1 AND e.name = ?2 ORDER BY e.packet_id
            """, [id, .text(PacketDecoder.snoopCutEventName)]) {
            let t = r[1].int64.map { $0 &- session.start } ?? session.end
            gaps.append(CaptureGap(packetID: r[0].int, time: t,
                                   reason: "the capture's writer cut this packet (\(r[2].string ?? "fewer bytes kept than the original"); Android's filtered snoop log): what it carried is not in the file"))
        }
        for r in try db.rows("SELECT status, records FROM capture WHERE id = ?1", [id]) where (r[0].string ?? "complete") != "complete" {
            let how = r[0].string == "truncated" ? "the file ends in the middle of a record" : "the file is damaged and was read up to the damage"
            gaps.append(CaptureGap(packetID: r[1].int, time: session.end, reason: "\(how): what followed is not in the file"))
        }
        return gaps
    }
}
