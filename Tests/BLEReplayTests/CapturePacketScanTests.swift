@testable import BLEReplay
import BLECore
import BLETimeline
import Testing

/// The packet scan reads each row's kind once, in one result column (issue 12): it must find what
/// the scan it replaced found, the span, the host's flow control and every Number Of Completed
/// Packets, on every capture the project has, with raw bytes kept and without (`--no-raw`: the
/// ACL packets' lengths and the events' bytes are then unknown).
@Suite("Capture packet scan")
struct CapturePacketScanTests {
    /// The scan as it was before issue 12: five result columns, the kind compared four times.
    static func reference(_ captureID: Int64, db: SQLiteDatabase) throws -> CapturePacketScan {
        let plausible = try db.rows("""
            SELECT ts_us FROM packet WHERE \(PacketKey.inCapture("?1")) AND ts_us BETWEEN ?2 AND ?3 ORDER BY rowid LIMIT 1
            """, [.integer(captureID), .integer(Timestamp.plausible.lowerBound), .integer(Timestamp.plausible.upperBound)])
        let s = try db.prepare("""
            SELECT ts_us, kind <> 'note',
                   CASE WHEN kind = 'acl' AND direction = 'tx' THEN length(raw) END,
                   CASE WHEN kind = 'evt' AND summary LIKE '\(CompletedPacketsEvent.summaryPattern)' THEN raw END,
                   rowid & 4294967295
            FROM packet WHERE \(PacketKey.inCapture("?1")) ORDER BY rowid
            """)
        try s.bind([.integer(captureID)])
        var scan = CapturePacketScan()
        scan.clock = RecordingClock(firstPlausible: plausible.first?[0].int64)
        var inFlight = 0
        while try s.step() {
            let t = scan.clock.next(frame: s.int(4), raw: s.int64(0))
            scan.firstAny = min(scan.firstAny ?? t, t)
            scan.lastAny = max(scan.lastAny ?? t, t)
            if s.int(1) != 0 {
                scan.firstRecord = min(scan.firstRecord ?? t, t)
                scan.lastRecord = max(scan.lastRecord ?? t, t)
            }
            if !s.isNull(2) {
                scan.largestPacket = max(scan.largestPacket, s.int(2) - 4)
                inFlight += 1
                scan.mostInFlight = max(scan.mostInFlight, inFlight)
                continue
            }
            guard let raw = s.blob(3) else { continue }
            for e in CompletedPacketsEvent.entries(raw) {
                inFlight = max(0, inFlight - e.count)
                scan.completions[e.handle, default: []].append((t, e.count))
            }
        }
        return scan
    }

    static var captures: [String] {
        TestCaptures.samples.map(TestCaptures.sample) + TestCaptures.sharedHCI.map(TestCaptures.shared)
    }

    @Test(arguments: captures, [true, false])
    func findsWhatTheEarlierScanFound(_ path: String, keepRaw: Bool) throws {
        var options = ImportOptions()
        options.keepRaw = keepRaw
        let source = try TimelineSource(path: path, options: options)
        let db = source.store.database
        let scan = try CapturePacketScan.run(1, db: db)
        let want = try Self.reference(1, db: db)
        #expect(scan.firstRecord == want.firstRecord && scan.lastRecord == want.lastRecord)
        #expect(scan.firstAny == want.firstAny && scan.lastAny == want.lastAny)
        #expect(scan.largestPacket == want.largestPacket && scan.mostInFlight == want.mostInFlight)
        #expect(scan.completions.mapValues { $0.map { "\($0.time):\($0.count)" } } == want.completions.mapValues { $0.map { "\($0.time):\($0.count)" } })
        #expect(scan.clock.note == want.clock.note)
        #expect(scan.clock.stepsBack == want.clock.stepsBack && scan.clock.absurd == want.clock.absurd)
        if keepRaw, path.hasSuffix("heart-rate-healthy.btsnoop") {
            // Something to compare: the sample's host sent ACL and its controller returned buffers.
            #expect(scan.largestPacket > 0 && !scan.completions.isEmpty)
        }
    }
}
