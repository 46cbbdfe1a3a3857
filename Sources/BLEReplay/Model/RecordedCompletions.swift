/// The recorded controller's Number Of Completed Packets per connection (Core v5.4 Vol 4 Part E
/// 7.7.19, 4.1.1 flow control): when each LE ACL buffer the host filled on that handle came back.
/// A faithful replay returns each buffer when the recording did, so a host that waited for a
/// buffer (a burst of Write Commands over the controller's 8) sends when it sent, whatever the
/// link's connection-event grid (which HCI never shows) would say.
enum RecordedCompletions {
    /// Fills `completions` of each connection: one entry per packet the controller reported
    /// completed on its handle while it was up, microseconds from the connection's origin.
    /// `byHandle` is every Number Of Completed Packets of the capture (`CapturePacketScan`).
    static func assign(_ byHandle: [UInt16: [(time: Int64, count: Int)]], to connections: inout [RecordedConnection]) {
        for k in connections.indices {
            let c = connections[k]
            guard c.isEstablished, let list = byHandle[c.handle] else { continue }
            let to = c.origin &+ c.end
            var out: [Int64] = []
            for e in list where e.time >= c.origin && e.time <= to {
                out += Array(repeating: e.time &- c.origin, count: min(e.count, 4096))
            }
            connections[k].completions = out
        }
    }
}
