import BLECore
import BLETimeline

/// What a replay reads from a capture's `packet` rows, in one pass over them in frame order
/// (issue 12: the loader used to scan the capture's packets four times, raw bytes included):
///
/// - the capture's span: the earliest and latest timestamps of records that are not notes
///   (of all records when there are only notes);
/// - the controller's LE ACL buffers from the first LE Read Buffer Size Command Complete (Core
///   v5.4 Vol 4 Part E 7.8.2);
/// - the flow control the host showed (`RecordingLoader.observedFlowControl`): the largest ACL
///   packet it sent and the most packets it had in flight;
/// - every Number Of Completed Packets (Vol 4 Part E 7.7.19) per controller and handle
///   (`ControllerHandle`, `RecordedCompletions`): handles are per controller.
///
/// The host's packets in flight are counted across controllers: the replay's host has one pool of
/// buffers for all its links, which must hold every packet the recording had in flight at once.
///
/// The rows are selected as the earlier separate queries selected them (the same `LIKE`s on
/// the summary, evaluated by SQLite), and only the raw bytes of Number Of Completed Packets are read: of
/// an ACL packet the host sent, its length is enough.
struct CapturePacketScan {
    var firstRecord: Int64?
    var lastRecord: Int64?
    var firstAny: Int64?
    var lastAny: Int64?
    /// The first LE Read Buffer Size Command Complete's raw event bytes (nil: none in the capture).
    var readBufferSizeEvent: [UInt8]?
    var largestPacket = 0
    var mostInFlight = 0
    /// Number Of Completed Packets per controller and handle: (timestamp, packets), in frame order.
    var completions: [ControllerHandle: [(time: Int64, count: Int)]] = [:]
    var clock = RecordingClock(firstPlausible: nil)

    var start: Int64 { firstRecord ?? firstAny ?? 0 }
    var last: Int64 { lastRecord ?? lastAny ?? start }

    /// The scan the import stored (`StoredPacketScan`, issue 12), or, for a capture without
    /// one (an older timeline, report-only rows, an unfinished recording), `run`.
    static func load(_ captureID: Int64, db: SQLiteDatabase) throws -> CapturePacketScan {
        guard let s = try StoredPacketScan.read(captureID, db: db) else { return try run(captureID, db: db) }
        var scan = CapturePacketScan()
        scan.firstRecord = s.firstRecord
        scan.lastRecord = s.lastRecord
        scan.firstAny = s.firstAny
        scan.lastAny = s.lastAny
        scan.readBufferSizeEvent = s.readBufferSizeEvent
        scan.largestPacket = s.largestPacket
        scan.mostInFlight = s.mostInFlight
        scan.completions = s.completions
        scan.clock = s.clock
        return scan
    }

    /// The scan itself, over every `packet` row of the capture.
    static func run(_ captureID: Int64, db: SQLiteDatabase) throws -> CapturePacketScan {
        let plausible = try db.rows("""
            SELECT ts_us FROM packet WHERE \(PacketKey.inCapture("?1")) AND ts_us BETWEEN ?2 AND ?3 ORDER BY rowid LIMIT 1
            """, [.integer(captureID), .integer(Timestamp.plausible.lowerBound), .integer(Timestamp.plausible.upperBound)])
        // The first LE Read Buffer Size is near the start of a capture that has one: a query of
        // its own stops there, where a search in the scan would run on every event.
        let bufferSize = try db.rows("""
            SELECT raw FROM packet WHERE \(PacketKey.inCapture("?1")) AND kind = 'evt' AND \(ReadBufferSizeComplete.storedRow) ORDER BY rowid LIMIT 1
            """, [.integer(captureID)])
        // One column says what the row is, `kind` read once (issue 12: four text comparisons and
        // five result columns per row were most of the loading time): -1 a note; an integer the
        // length of an ACL packet the host sent; a blob the raw Number Of Completed Packets event;
        // NULL any other record. The controller index is read only for the events.
        let s = try db.prepare("""
            SELECT rowid, ts_us,
                   CASE kind WHEN 'acl' THEN CASE WHEN direction = 'tx' THEN length(raw) END
                             WHEN 'evt' THEN CASE WHEN \(CompletedPacketsEvent.storedRow) THEN raw END
                             WHEN 'note' THEN -1 END,
                   controller_index
            FROM packet WHERE \(PacketKey.inCapture("?1")) ORDER BY rowid
            """)
        try s.bind([.integer(captureID)])
        var scan = CapturePacketScan()
        if let row = bufferSize.first { scan.readBufferSizeEvent = row[0].blob ?? [] }
        scan.clock = RecordingClock(firstPlausible: plausible.first?[0].int64)
        var inFlight = 0
        while try s.step() {
            let t = scan.clock.next(frame: Int(s.int64(0) & 0xFFFF_FFFF), raw: s.int64(1))
            scan.firstAny = min(scan.firstAny ?? t, t)
            scan.lastAny = max(scan.lastAny ?? t, t)
            let other = s.isNull(2), nocp = !other && s.isBlob(2)
            let length = other || nocp ? 0 : s.int(2)
            if length == -1 { continue }  // a note
            scan.firstRecord = min(scan.firstRecord ?? t, t)
            scan.lastRecord = max(scan.lastRecord ?? t, t)
            if !other && !nocp {
                scan.largestPacket = max(scan.largestPacket, length - 4)
                inFlight += 1
                scan.mostInFlight = max(scan.mostInFlight, inFlight)
                continue
            }
            guard nocp, let raw = s.blob(2) else { continue }
            let controller = UInt16(truncatingIfNeeded: s.int(3))
            for e in CompletedPacketsEvent.entries(raw) {
                inFlight = max(0, inFlight - e.count)
                scan.completions[ControllerHandle(controller: controller, handle: e.handle), default: []].append((t, e.count))
            }
        }
        return scan
    }

    /// The buffers LE Read Buffer Size reported (`HC_LE_ACL_Data_Packet_Length`,
    /// `HC_Total_Num_LE_ACL_Data_Packets`), when it succeeded and reported a length.
    var readBufferSize: (size: Int, count: Int)? {
        guard let raw = readBufferSizeEvent, raw.count >= 9, raw[0] == 0x0E, raw[5] == 0 else { return nil }
        let size = Int(raw[6]) | Int(raw[7]) << 8
        return size > 0 ? (size, Int(raw[8])) : nil
    }
}
