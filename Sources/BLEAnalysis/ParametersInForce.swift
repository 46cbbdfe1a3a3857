import BLECore
import BLETimeline

/// The LE connection parameters in force at one packet, and where the capture shows them.
///
/// The central sets them in LE (Enhanced) Connection Complete (Core v5.4 Vol 4 Part E
/// 7.7.65.1) and changes them with LE Connection Update Complete (7.7.65.3; a non-zero status
/// changed nothing). A link that began before the capture has none known until its first
/// successful update: before it they are unknown, never the update's values.
struct ParametersInForce {
    var intervalUs: Int
    var latency: Int
    var supervisionTimeoutMs: Int
    /// The packet that set them (the Connection Complete or the Connection Update Complete).
    var packetID: Int?
    var timestamp: Int64?
    var fromUpdate: Bool

    /// One connection event span the peripheral may skip: interval × (1 + latency).
    var effectiveIntervalUs: Int { intervalUs.multipliedReportingOverflow(by: 1 + max(0, latency)).partialValue }

    /// `from LE Connection Update Complete at 15:03:22.548 (packet 580)` / `from LE Connection Complete (packet 12)`.
    var source: String {
        let at = timestamp.map { " at \(TextFormat.clock($0))" } ?? ""
        let packet = packetID.map { " (packet \($0))" } ?? ""
        return fromUpdate ? "from LE Connection Update Complete\(at)\(packet)" : "from the Connection Complete\(packet)"
    }

    var describe: String {
        "interval \(TextFormat.fixed(Double(intervalUs) / 1000, 2)) ms, latency \(latency), supervision timeout \(supervisionTimeoutMs) ms"
    }
}

extension FindingsEngine {
    /// The parameters in force just before `frame` (nil: unknown, a link that began before the
    /// capture and had no successful update yet).
    func parametersInForce(_ c: ConnectionFacts, before frame: Int) throws -> ParametersInForce? {
        let row = try db.rows("""
            SELECT packet_id, ts_us, interval_us, latency, supervision_timeout_ms FROM connection_update
            WHERE connection_id = ?1 AND source = 'hci' AND coalesce(status, 0) = 0 AND packet_id < ?2
            ORDER BY packet_id DESC LIMIT 1
            """, [.integer(c.id), .integer(Int64(frame))]).first
        if let row, let interval = row[2].int, let timeout = row[4].int {
            return ParametersInForce(intervalUs: interval, latency: row[3].int ?? 0, supervisionTimeoutMs: timeout,
                                     packetID: row[0].int, timestamp: row[1].int64, fromUpdate: true)
        }
        guard !c.beganBeforeCapture, let interval = c.intervalUs, let timeout = c.supervisionTimeoutMs else { return nil }
        return ParametersInForce(intervalUs: interval, latency: c.latency ?? 0, supervisionTimeoutMs: timeout,
                                 packetID: c.completePacketID, timestamp: c.connectedAt, fromUpdate: false)
    }
}

extension FindingsEngine {
    /// Every set of parameters the link had, in order (the Connection Complete's, then each
    /// successful update), to look up many packets at once.
    func parameterHistory(_ c: ConnectionFacts) throws -> [ParametersInForce] {
        var out: [ParametersInForce] = []
        if !c.beganBeforeCapture, let interval = c.intervalUs, let timeout = c.supervisionTimeoutMs {
            out.append(ParametersInForce(intervalUs: interval, latency: c.latency ?? 0, supervisionTimeoutMs: timeout,
                                         packetID: c.completePacketID, timestamp: c.connectedAt, fromUpdate: false))
        }
        for r in try db.rows("""
            SELECT packet_id, ts_us, interval_us, latency, supervision_timeout_ms FROM connection_update
            WHERE connection_id = ?1 AND source = 'hci' AND coalesce(status, 0) = 0 ORDER BY packet_id
            """, [.integer(c.id)]) {
            guard let interval = r[2].int, let timeout = r[4].int else { continue }
            out.append(ParametersInForce(intervalUs: interval, latency: r[3].int ?? 0, supervisionTimeoutMs: timeout,
                                         packetID: r[0].int, timestamp: r[1].int64, fromUpdate: true))
        }
        return out
    }
}

extension [ParametersInForce] {
    /// The entry in force at `frame` (nil before the first one is known).
    func inForce(at frame: Int) -> ParametersInForce? {
        last { ($0.packetID ?? 0) < frame }
    }
}
