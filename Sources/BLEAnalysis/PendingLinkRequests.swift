import BLECore
import BLETimeline

/// What the local host asked of a link that the capture never shows finished: a change of
/// parameters, or the link's end. A 0x08 Connection Timeout that follows one is explained by it.
struct PendingParameterUpdate {
    /// The command: LE Connection Update (Core v5.4 Vol 4 Part E 7.8.18) or LE Remote Connection
    /// Parameter Request Reply (7.8.31, the host accepting the peer's request).
    var frame: Int
    var ts: Int64
    var name: String
    /// Its Command Status (nil: none in the capture).
    var statusFrame: Int?
    var intervalMinMs: Double?
    var intervalMaxMs: Double?
    var latency: Int?
    var supervisionTimeoutMs: Int

    var describe: String {
        var parts: [String] = []
        if let lo = intervalMinMs, let hi = intervalMaxMs {
            parts.append("interval " + (lo == hi ? TextFormat.fixed(lo, 2) : TextFormat.fixed(lo, 2) + "–" + TextFormat.fixed(hi, 2)) + " ms")
        }
        if let latency { parts.append("latency \(latency)") }
        parts.append("supervision timeout \(supervisionTimeoutMs) ms")
        return parts.joined(separator: ", ")
    }
}

/// The local host's HCI Disconnect (Vol 4 Part E 7.1.6) on a link.
struct LocalDisconnectRequest {
    var frame: Int
    var ts: Int64
    /// "0x13 Remote User Terminated Connection"; nil in a timeline imported before the command's
    /// reason was kept.
    var reason: String?
    var statusFrame: Int?
}

extension FindingsEngine {
    /// A field of a link event's `detail` (`name=value`, the value up to the next `name=`: a
    /// reason such as `0x13 Remote User Terminated Connection` has spaces).
    static func linkEventField(_ name: String, in detail: String) -> String? {
        var value: [Substring]?
        for word in detail.split(separator: " ") {
            if let eq = word.firstIndex(of: "=") {
                if value != nil { break }
                if word[..<eq] == name { value = [word[word.index(after: eq)...]] }
            } else {
                value?.append(word)
            }
        }
        return value?.joined(separator: " ")
    }

    /// The reason code of an HCI Disconnect's link event (`handle=0x0040 reason=0x13 Remote User…`).
    static func disconnectReason(inDetail detail: String) -> UInt8? {
        guard let reason = linkEventField("reason", in: detail), reason.hasPrefix("0x") else { return nil }
        return UInt8(reason.dropFirst(2).prefix(while: { $0 != " " }), radix: 16)
    }

    /// The last parameter change the host asked for on `c` after `after` and before `frame`, that
    /// the controller did not refuse and that no LE Connection Update Complete (7.7.65.3) ended
    /// before `frame`: the controller may have applied it at its instant (Vol 6 Part B 5.1.1)
    /// without the capture saying so. Nil when there is none.
    func pendingParameterUpdate(_ c: ConnectionFacts, after: Int, before frame: Int) throws -> PendingParameterUpdate? {
        // Opcodes 8211 and 8224: 0x2013 and 0x2020.
        guard let r = try db.rows("""
            SELECT e.packet_id, e.ts_us, e.name, e.detail, k.result_packet_id, k.status FROM link_event e
            LEFT JOIN command k ON k.capture_id = e.capture_id AND k.opcode IN (8211, 8224) AND k.packet_id = e.packet_id
            WHERE e.connection_id = ?1 AND e.packet_id > ?2 AND e.packet_id < ?3
              AND e.name IN ('LE Connection Update', 'LE Remote Connection Parameter Request Reply')
            ORDER BY e.packet_id DESC LIMIT 1
            """, [.integer(c.id), .integer(Int64(after)), .integer(Int64(frame))]).first,
              let id = r[0].int, let ts = r[1].int64, let detail = r[3].string,
              let timeout = Self.linkEventField("timeout_ms", in: detail).flatMap({ Int($0) }), timeout > 0,
              (r[5].int ?? 0) == 0 else { return nil }
        let completed = try db.rows("""
            SELECT 1 FROM connection_update WHERE connection_id = ?1 AND source = 'hci' AND packet_id > ?2 AND packet_id < ?3 LIMIT 1
            """, [.integer(c.id), .integer(Int64(id)), .integer(Int64(frame))])
        guard completed.isEmpty else { return nil }
        return PendingParameterUpdate(
            frame: id, ts: ts, name: r[2].string ?? "LE Connection Update", statusFrame: r[4].int,
            intervalMinMs: Self.linkEventField("interval_min_ms", in: detail).flatMap(Double.init),
            intervalMaxMs: Self.linkEventField("interval_max_ms", in: detail).flatMap(Double.init),
            latency: Self.linkEventField("latency", in: detail).flatMap { Int($0) }, supervisionTimeoutMs: timeout)
    }

    /// The first HCI Disconnect the host sent on `c` before `frame` that the controller did not
    /// refuse (its Command Status, 7.7.15).
    func localDisconnectRequest(_ c: ConnectionFacts, before frame: Int) throws -> LocalDisconnectRequest? {
        // Opcode 1030: 0x0406.
        guard c.localDisconnectRequested, let r = try db.rows("""
            SELECT k.packet_id, k.ts_us, k.result_packet_id, e.detail FROM command k
            LEFT JOIN link_event e ON e.connection_id = k.connection_id AND e.packet_id = k.packet_id
            WHERE k.capture_id = ?1 AND k.connection_id = ?2 AND k.opcode = 1030 AND k.packet_id < ?3
              AND coalesce(k.status, 0) = 0
            ORDER BY k.packet_id LIMIT 1
            """, [.integer(captureID), .integer(c.id), .integer(Int64(frame))]).first,
              let id = r[0].int, let ts = r[1].int64 else { return nil }
        return LocalDisconnectRequest(frame: id, ts: ts, reason: r[3].string.flatMap { Self.linkEventField("reason", in: $0) },
                                      statusFrame: r[2].int)
    }
}
