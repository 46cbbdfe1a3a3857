import BLECore
import BLETimeline

/// Everything the findings need to know about one connection, read from the timeline once.
struct ConnectionFacts {
    var id: Int64
    var captureID: Int64
    var ordinal: Int
    var handle: Int
    /// The controller that numbered `handle` (`ControllerHandle`; several in a btmon capture).
    var controller: Int
    var transport: String
    var peerAddress: String?
    var role: String?
    var status: Int
    var intervalUs: Int?
    var latency: Int?
    var supervisionTimeoutMs: Int?
    var mtu: Int
    var clientRxMTU: Int?
    var serverRxMTU: Int?
    var connectedAt: Int64?
    var disconnectedAt: Int64?
    var disconnectReason: Int?
    var beganBeforeCapture: Bool
    var completePacketID: Int?
    var disconnectPacketID: Int?
    var firstPacketID: Int
    var lastPacketID: Int
    var localDisconnectRequested: Bool
    var encrypted: Bool
}

extension ConnectionFacts {
    /// The facts of the row `s` is on (the columns `CaptureConnections` selects).
    init(row s: SQLiteStatement, captureID: Int64) {
        self.init(
            id: s.int64(0), captureID: captureID, ordinal: s.int(1), handle: s.int(2), controller: s.int(23),
            transport: s.text(3) ?? "le",
            peerAddress: s.text(4), role: s.text(5), status: s.int(6), intervalUs: s.optionalInt(7),
            latency: s.optionalInt(8), supervisionTimeoutMs: s.optionalInt(9), mtu: s.int(10),
            clientRxMTU: s.optionalInt(11), serverRxMTU: s.optionalInt(12),
            connectedAt: s.isNull(13) ? nil : s.int64(13), disconnectedAt: s.isNull(14) ? nil : s.int64(14),
            disconnectReason: s.optionalInt(15), beganBeforeCapture: s.int(16) != 0,
            completePacketID: s.optionalInt(17), disconnectPacketID: s.optionalInt(18),
            firstPacketID: s.int(19), lastPacketID: s.int(20), localDisconnectRequested: s.int(21) != 0,
            encrypted: s.int(22) != 0)
    }
}

/// One capture's connections, read from the timeline row by row on each pass instead of held:
/// a capture of tens of thousands of links (issue 17) cost ~300 bytes of facts a link, all at once.
struct CaptureConnections {
    let captureID: Int64
    let db: SQLiteDatabase

    /// The columns `ConnectionFacts(row:captureID:)` reads, in its order.
    private static let columns = """
        SELECT id, ordinal, handle, transport, peer_address, role, status, interval_us, latency,
               supervision_timeout_ms, mtu, client_rx_mtu, server_rx_mtu, connected_ts_us, disconnected_ts_us,
               disconnect_reason, began_before_capture, complete_packet_id, disconnect_packet_id,
               first_packet_id, last_packet_id, local_disconnect_requested, encrypted, controller_index
        FROM connection
        """

    /// Calls `body` with each connection's facts, in id order.
    func forEach(_ body: (ConnectionFacts) throws -> Void) throws {
        let s = try db.prepare("\(Self.columns) WHERE capture_id = ?1 ORDER BY id")
        try s.bind([.integer(captureID)])
        while try s.step() {
            try body(ConnectionFacts(row: s, captureID: captureID))
        }
    }

    /// Calls `body` with the connections' facts `size` at a time, in id order; no statement is
    /// left running while `body` runs (it may commit, or others may read the file).
    func forEachChunk(of size: Int, _ body: ([ConnectionFacts]) throws -> Void) throws {
        let s = try db.prepare("\(Self.columns) WHERE capture_id = ?1 AND id > ?2 ORDER BY id LIMIT ?3")
        var after = Int64.min
        while true {
            try s.bind([.integer(captureID), .integer(after), .integer(Int64(size))])
            var chunk: [ConnectionFacts] = []
            while try s.step() { chunk.append(ConnectionFacts(row: s, captureID: captureID)) }
            s.reset()
            guard let last = chunk.last else { return }
            after = last.id
            try body(chunk)
        }
    }

    /// The connections `isIncluded` keeps, in id order.
    func filter(_ isIncluded: (ConnectionFacts) -> Bool) throws -> [ConnectionFacts] {
        var out: [ConnectionFacts] = []
        try forEach { if isIncluded($0) { out.append($0) } }
        return out
    }
}
