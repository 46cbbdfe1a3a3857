import BLECore
import BLETimeline

/// The rows of one capture the fleet report itself does not need but a fact store keeps: every
/// ATT transaction with its latency, and the diagnosis findings. Loaded only when asked for
/// (`FleetReader.Options.details`), so the report on files keeps its memory flat.
public struct CaptureDetails: Sendable {
    /// One row of the timeline's `att_transactions` view.
    public struct Transaction: Sendable {
        public var connectionID: Int64
        public var requestPacketID: Int
        public var responsePacketID: Int?
        public var requestTimestamp: Int64
        public var opcode: Int
        public var opcodeName: String?
        /// `local` (the capturing host sent the request) or `peer`.
        public var requester: String
        public var handle: Int?
        public var latency: Int64?
        /// `ok`, `error`, `timeout`, `disconnected` or `pending`.
        public var outcome: String
        public var errorCode: Int?
    }

    /// One row of the timeline's `findings` view (the diagnosis).
    public struct Finding: Sendable {
        public var connectionID: Int64?
        public var severity: String
        public var code: String
        public var title: String
        public var detail: String
        /// Frame numbers, comma-separated as the timeline stores them.
        public var evidencePacketIDs: String
        public var cbError: String?
        /// What an Android app's callback got (`findings.android_status`, `android_name`).
        public var androidStatus: Int? = nil
        public var androidName: String? = nil
    }

    public var transactions: [Transaction]
    public var findings: [Finding]

    /// The details of capture `captureID` of an analysed timeline.
    static func load(_ db: SQLiteDatabase, captureID: Int64, opcodeNames: [Int: String]) throws -> CaptureDetails {
        var out = CaptureDetails(transactions: [], findings: [])
        let t = try db.prepare("""
            SELECT t.connection_id, t.request_packet_id, t.response_packet_id, t.request_ts_us, t.opcode, t.direction,
                   t.handle, t.latency_us, t.outcome, t.error_code
            FROM att_transaction t JOIN connection c ON c.id = t.connection_id
            WHERE c.capture_id = ?1 ORDER BY t.connection_id, t.request_packet_id
            """)
        try t.bind([.integer(captureID)])
        while try t.step() {
            out.transactions.append(Transaction(
                connectionID: t.int64(0), requestPacketID: t.int(1), responsePacketID: t.optionalInt(2),
                requestTimestamp: t.int64(3), opcode: t.int(4), opcodeName: opcodeNames[t.int(4)],
                requester: t.text(5) == "rx" ? "peer" : "local", handle: t.optionalInt(6),
                latency: t.isNull(7) ? nil : t.int64(7), outcome: t.text(8) ?? "?", errorCode: t.optionalInt(9)))
        }
        let f = try db.prepare("""
            SELECT connection_id, severity, code, title, detail, evidence_packet_ids, cb_error, android_status, android_name
            FROM finding WHERE capture_id = ?1 ORDER BY rowid
            """)
        try f.bind([.integer(captureID)])
        while try f.step() {
            out.findings.append(Finding(
                connectionID: f.isNull(0) ? nil : f.int64(0), severity: f.text(1) ?? "", code: f.text(2) ?? "",
                title: f.text(3) ?? "", detail: f.text(4) ?? "", evidencePacketIDs: f.text(5) ?? "", cbError: f.text(6),
                androidStatus: f.optionalInt(7), androidName: f.text(8)))
        }
        return out
    }
}
