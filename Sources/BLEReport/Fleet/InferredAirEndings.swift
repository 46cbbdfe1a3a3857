import BLEAnalysis
import BLECore
import BLETimeline

extension ErrorEvent {
    /// `detail` of a disconnect the capture does not report but `diagnose` infers: on a sniffer's
    /// capture, the peripheral went silent and the central stopped after the supervision
    /// timeout (finding `connection-timeout-on-air`: 0x08, or 0x3E when the peripheral never
    /// answered; Core v5.4 Vol 6 Part B 4.5.2). Counted with its code, said as inferred.
    public static let inferredOnAir = "inferred on air"

    /// An inferred disconnect (`inferredOnAir`).
    public var isInferred: Bool { kind == .disconnect && detail == Self.inferredOnAir }
}

extension CodeCount {
    /// How many of this code's disconnects were inferred (`ErrorEvent.inferredOnAir`), not reported.
    public var inferred: Int { parts["source"]?.first { $0.id == ErrorEvent.inferredOnAir }?.count ?? 0 }

    /// The code's name, and when some of its disconnects were inferred, how many: the report
    /// must not present an inferred ending as one the capture reported.
    public var nameWithInference: String {
        let n = inferred
        guard n > 0 else { return name }
        return name + (n == count ? " (inferred)" : " (\(n) inferred)")
    }
}

extension CaptureFactsLoader {
    /// The endings `diagnose` infers on an air capture (`FindingsEngine.timeoutSeenOnAir`,
    /// finding `connection-timeout-on-air`), as disconnects with their reason, 0x08 Connection
    /// Timeout or 0x3E Connection Failed to be Established (Core v5.4 Vol 6 Part B 4.5.2), at the
    /// link's last packet, marked `ErrorEvent.inferredOnAir`: so the report counts what diagnose
    /// says, and says it was inferred. The link ended there: not open at the end; one that failed
    /// to be established (0x3E) was never up, so it has no connected time.
    static func loadInferredAirEndings(_ db: SQLiteDatabase, captureID: Int64, into facts: inout CaptureFacts) throws {
        let rows = try db.rows("""
            SELECT f.connection_id, f.title, c.last_packet_id,
                   (SELECT p.ts_us FROM packet p WHERE p.rowid = \(PacketKey.sql(capture: "c.capture_id", frame: "c.last_packet_id"))),
                   f.cb_error, f.android_status, f.android_name
            FROM finding f JOIN connection c ON c.id = f.connection_id
            WHERE f.capture_id = ?1 AND f.code = 'connection-timeout-on-air' AND c.disconnect_reason IS NULL
            ORDER BY f.connection_id
            """, [.integer(captureID)])
        for row in rows {
            guard let id = row[0].int64, let i = facts.connections.firstIndex(where: { $0.id == id }),
                  facts.connections[i].disconnectReason == nil else { continue }
            let reason = AirEnding.inferredReason(findingTitle: row[1].string ?? "")
            let code = Int(reason.rawValue)
            // The app's views are the finding's (`FindingsEngine.timeoutSeenOnAir`), as diagnose shows them.
            let cb = row[4].string
            let android = row[5].int.map { AndroidGattStatus($0, row[6].string) }
            facts.connections[i].disconnectReason = code
            facts.connections[i].disconnectCBError = cb
            facts.connections[i].openAtEnd = false
            if code == 0x3E {
                facts.connections[i].start = nil
                facts.connections[i].end = nil
            }
            facts.events.append(ErrorEvent(kind: .disconnect, timestamp: row[3].int64 ?? 0, packetID: row[2].int ?? 0,
                                           connectionID: id, code: code, name: reason.name, cbError: cb, android: android, opcode: nil,
                                           opcodeName: nil, handle: nil, characteristic: nil, descriptor: nil,
                                           detail: ErrorEvent.inferredOnAir))
        }
        facts.events.sort { ($0.packetID, $0.kind) < ($1.packetID, $1.kind) }
    }
}
