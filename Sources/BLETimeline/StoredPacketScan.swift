import BLECore
import BLEDecode

/// What a replay's packet scan (`CapturePacketScan`, BLEReplay) finds in one capture's `packet`
/// rows, worked out by the import as it writes them and kept in `capture_packet_scan` (issue 12:
/// stepping every packet row was nearly half of a replay's instructions). The replay reads this
/// one row; a capture without it (imported before schema version 6, report-only rows, a
/// recording that never finished) is scanned as before.
///
/// The fields mean what the scan's do, to the bit: the span on the capture's clock, the first
/// LE Read Buffer Size Command Complete's raw bytes (Core v5.4 Vol 4 Part E 7.8.2), the largest
/// ACL packet the host sent and the most it had in flight, every Number Of Completed Packets
/// entry (Vol 4 Part E 7.7.19) per controller and handle (`ControllerHandle`: handles are per
/// controller; schema version 7), and the clock (`RecordingClock`) itself.
public struct StoredPacketScan: Sendable {
    public var firstRecord: Int64?
    public var lastRecord: Int64?
    public var firstAny: Int64?
    public var lastAny: Int64?
    public var readBufferSizeEvent: [UInt8]?
    public var largestPacket = 0
    public var mostInFlight = 0
    public var completions: [ControllerHandle: [(time: Int64, count: Int)]] = [:]
    public var clock = RecordingClock(firstPlausible: nil)

    /// The stored row of `captureID`; nil when there is none (or no such table).
    public static func read(_ captureID: Int64, db: SQLiteDatabase) throws(SQLiteError) -> StoredPacketScan? {
        let hasTable = try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'capture_packet_scan'") ?? 0
        guard hasTable > 0 else { return nil }
        let s = try db.prepare("""
            SELECT first_record_us, last_record_us, first_any_us, last_any_us, read_buffer_size_found, read_buffer_size,
                   largest_acl, most_in_flight, clock_runs, clock_steps_back, clock_largest_step_frame,
                   clock_largest_step_us, clock_absurd, completions
            FROM capture_packet_scan WHERE capture_id = ?1
            """)
        try s.bind([.integer(captureID)])
        guard try s.step() else { return nil }
        var scan = StoredPacketScan()
        func optional(_ i: Int32) -> Int64? { s.isNull(i) ? nil : s.int64(i) }
        scan.firstRecord = optional(0)
        scan.lastRecord = optional(1)
        scan.firstAny = optional(2)
        scan.lastAny = optional(3)
        if s.int(4) != 0 { scan.readBufferSizeEvent = s.blob(5) ?? [] }
        scan.largestPacket = s.int(6)
        scan.mostInFlight = s.int(7)
        var step: (frame: Int, by: Int64)?
        if let frame = s.optionalInt(10), let by = optional(11) { step = (frame, by) }
        scan.clock = RecordingClock(storedRuns: s.blob(8) ?? [], stepsBack: s.int(9), largestStep: step, absurd: s.int(12))
        scan.completions = Self.completions(s.blob(13) ?? [])
        return scan
    }

    /// Writes the row of `captureID` (replacing one there).
    func write(_ captureID: Int64, db: SQLiteDatabase) throws(SQLiteError) {
        func value(_ v: Int64?) -> SQLiteValue { v.map { .integer($0) } ?? .null }
        func blob(_ b: [UInt8]) -> SQLiteValue { b.isEmpty ? .null : .blob(b) }
        try db.run("""
            INSERT OR REPLACE INTO capture_packet_scan (capture_id, first_record_us, last_record_us, first_any_us, last_any_us,
                read_buffer_size_found, read_buffer_size, largest_acl, most_in_flight, clock_runs, clock_steps_back,
                clock_largest_step_frame, clock_largest_step_us, clock_absurd, completions)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
            """, [.integer(captureID), value(firstRecord), value(lastRecord), value(firstAny), value(lastAny),
                  .integer(readBufferSizeEvent == nil ? 0 : 1), blob(readBufferSizeEvent ?? []),
                  .integer(Int64(largestPacket)), .integer(Int64(mostInFlight)), blob(clock.storedRuns),
                  .integer(Int64(clock.stepsBack)), value(clock.largestStep.map { Int64($0.frame) }), value(clock.largestStep?.by),
                  .integer(Int64(clock.absurd)), blob(Self.completionsBlob(completions))])
    }

    /// `completions` as stored (schema version 7): per entry, in controller, handle, then frame
    /// order, the controller index (u16), the handle (u16), the count (u16) and the time (Int64),
    /// little-endian.
    static func completionsBlob(_ c: [ControllerHandle: [(time: Int64, count: Int)]]) -> [UInt8] {
        var out: [UInt8] = []
        for key in c.keys.sorted() {
            for e in c[key] ?? [] {
                let count = UInt16(clamping: e.count)
                for v in [key.controller, key.handle, count] { out.append(contentsOf: [UInt8(v & 0xFF), UInt8(v >> 8)]) }
                withUnsafeBytes(of: e.time.littleEndian) { out.append(contentsOf: $0) }
            }
        }
        return out
    }

    static func completions(_ b: [UInt8]) -> [ControllerHandle: [(time: Int64, count: Int)]] {
        var out: [ControllerHandle: [(time: Int64, count: Int)]] = [:]
        var i = 0
        while i + 14 <= b.count {
            let key = ControllerHandle(controller: u16(b, i), handle: u16(b, i + 2))
            out[key, default: []].append((int64(b, i + 6), Int(u16(b, i + 4))))
            i += 14
        }
        return out
    }

    /// The completions blob as schema version 6 stored it, without the controller: per entry the
    /// handle (u16), the count (u16) and the time (Int64), little-endian; every entry filed under
    /// `controller` (`TimelineMigration` rewrites a capture's blob so only when the capture's
    /// packets all carry that one controller index).
    static func version6Completions(_ b: [UInt8], controller: UInt16) -> [ControllerHandle: [(time: Int64, count: Int)]] {
        var out: [ControllerHandle: [(time: Int64, count: Int)]] = [:]
        var i = 0
        while i + 12 <= b.count {
            out[ControllerHandle(controller: controller, handle: u16(b, i)), default: []].append((int64(b, i + 4), Int(u16(b, i + 2))))
            i += 12
        }
        return out
    }

    private static func u16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }

    private static func int64(_ b: [UInt8], _ i: Int) -> Int64 {
        var t: UInt64 = 0
        for k in 0..<8 { t |= UInt64(b[i + k]) << (8 * UInt64(k)) }
        return Int64(bitPattern: t)
    }
}

/// Works `StoredPacketScan` out from the rows the writer inserts, in frame order (issue 12),
/// choosing the rows as `CapturePacketScan`'s SQL does: kind `acl` sent (`tx`) with raw bytes
/// (their length), kind `evt` whose summary is `LIKE` Number Of Completed Packets (its raw
/// bytes) or, the first, `LIKE '%(LE Read Buffer Size%'` (ASCII case-insensitive, as SQLite's
/// `LIKE`), kind `note` apart.
///
/// The clock needs the capture's first plausible timestamp before its first record, which a
/// stream does not know: the records before it are all absurd and all take that one time, so
/// their frames are kept (as ranges) and given to the clock when it comes. Until then a clock
/// without a plausible time runs beside, which is the capture's when none ever comes. Times are
/// read off the finished clock (`time(frame:raw:)` is what `next` returned for the record).
struct PacketScanAccumulator {
    private var clock: RecordingClock?
    private var noPlausibleClock = RecordingClock(firstPlausible: nil)
    private var absurdPrefix: [ClosedRange<Int>] = []
    private var first: (frame: Int, raw: Int64)?
    private var last: (frame: Int, raw: Int64)?
    private var firstRecord: (frame: Int, raw: Int64)?
    private var lastRecord: (frame: Int, raw: Int64)?
    private var completions: [(frame: Int, raw: Int64, link: ControllerHandle, count: Int)] = []
    private var readBufferSizeEvent: [UInt8]?
    private var largestPacket = 0
    private var mostInFlight = 0
    private var inFlight = 0

    /// One packet row as inserted: `key` its rowid, `kind`, `direction` and `controller` (its
    /// `controller_index`) its columns, `raw` its bytes (nil: not kept). Events are recognised by
    /// their bytes (`CompletedPacketsEvent`, `ReadBufferSizeComplete`), as `CapturePacketScan` does.
    mutating func add(key: Int64, ts: Int64, kind: PacketKind, direction: Direction, controller: UInt16, raw: [UInt8]?) {
        let frame = Int(key & 0xFFFF_FFFF)
        tick(frame: frame, raw: ts)
        if first == nil { first = (frame, ts) }
        last = (frame, ts)
        if kind == .note { return }
        if firstRecord == nil { firstRecord = (frame, ts) }
        lastRecord = (frame, ts)
        if kind == .acl {
            guard direction == .sent, let raw else { return }
            largestPacket = max(largestPacket, raw.count - 4)
            inFlight += 1
            mostInFlight = max(mostInFlight, inFlight)
        } else if kind == .event, let raw {
            if readBufferSizeEvent == nil, ReadBufferSizeComplete.isEvent(raw) { readBufferSizeEvent = raw }
            guard CompletedPacketsEvent.isEvent(raw) else { return }
            for e in CompletedPacketsEvent.entries(raw) {
                inFlight = max(0, inFlight - e.count)
                completions.append((frame, ts, ControllerHandle(controller: controller, handle: e.handle), e.count))
            }
        }
    }

    private mutating func tick(frame: Int, raw: Int64) {
        if clock != nil {
            _ = clock?.next(frame: frame, raw: raw)
            return
        }
        guard Timestamp.isPlausible(raw) else {
            _ = noPlausibleClock.next(frame: frame, raw: raw)
            if let r = absurdPrefix.last, r.upperBound == frame - 1 {
                absurdPrefix[absurdPrefix.count - 1] = r.lowerBound...frame
            } else {
                absurdPrefix.append(frame...frame)
            }
            return
        }
        var c = RecordingClock(firstPlausible: raw)
        for r in absurdPrefix {
            for f in r { _ = c.next(frame: f, raw: Int64.min) }
        }
        absurdPrefix = []
        _ = c.next(frame: frame, raw: raw)
        clock = c
    }

    /// The scan's result, once every row is in.
    func result() -> StoredPacketScan {
        let clock = self.clock ?? noPlausibleClock
        func time(_ r: (frame: Int, raw: Int64)?) -> Int64? { r.map { clock.time(frame: $0.frame, raw: $0.raw) } }
        var scan = StoredPacketScan()
        scan.clock = clock
        scan.firstAny = time(first)
        scan.lastAny = time(last)
        scan.firstRecord = time(firstRecord)
        scan.lastRecord = time(lastRecord)
        scan.readBufferSizeEvent = readBufferSizeEvent
        scan.largestPacket = largestPacket
        scan.mostInFlight = mostInFlight
        for e in completions {
            scan.completions[e.link, default: []].append((clock.time(frame: e.frame, raw: e.raw), e.count))
        }
        return scan
    }
}
