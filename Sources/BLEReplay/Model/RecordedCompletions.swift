import BLETimeline

/// The recorded controller's Number Of Completed Packets per connection (Core v5.4 Vol 4 Part E
/// 7.7.19, 4.1.1 flow control): when each LE ACL buffer the host filled on that handle came back.
/// A faithful replay returns each buffer when the recording did, so a host that waited for a
/// buffer (a burst of Write Commands over the controller's 8) sends when it sent, whatever the
/// link's connection-event grid (which HCI never shows) would say.
enum RecordedCompletions {
    /// Fills `completions` of each connection: one entry per packet the controller reported
    /// completed on its handle while it was up, microseconds from the connection's origin.
    static func load(_ session: inout RecordedSession, store: TimelineStore) throws {
        let rows = try store.database.rows("""
            SELECT ts_us, raw FROM packet WHERE \(PacketKey.inCapture("?1")) AND kind = 'evt'
                AND summary LIKE '\(CompletedPacketsEvent.summaryPattern)' ORDER BY rowid
            """, [.integer(session.captureID)])
        var byHandle: [UInt16: [(time: Int64, count: Int)]] = [:]
        for r in rows {
            guard let t = r[0].int64, let raw = r[1].blob else { continue }
            for e in CompletedPacketsEvent.entries(raw) { byHandle[e.handle, default: []].append((t, e.count)) }
        }
        for k in session.connections.indices {
            let c = session.connections[k]
            guard c.isEstablished, let list = byHandle[c.handle] else { continue }
            let to = c.origin &+ c.end
            var out: [Int64] = []
            for e in list where e.time >= c.origin && e.time <= to {
                out += Array(repeating: e.time &- c.origin, count: min(e.count, 4096))
            }
            session.connections[k].completions = out
        }
    }
}
