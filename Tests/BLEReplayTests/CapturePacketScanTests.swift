@testable import BLEReplay
import BLECapture
import BLECore
@testable import BLETimeline
import Foundation
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
                   CASE WHEN kind = 'evt' AND \(CompletedPacketsEvent.storedRow) THEN raw END,
                   rowid & 4294967295, controller_index
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
                scan.completions[ControllerHandle(controller: UInt16(s.int(5)), handle: e.handle), default: []].append((t, e.count))
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
        try Self.expectStoredEqualsScan(db: db)
        if keepRaw, path.hasSuffix("heart-rate-healthy.btsnoop") {
            // Something to compare: the sample's host sent ACL and its controller returned buffers.
            #expect(scan.largestPacket > 0 && !scan.completions.isEmpty)
        }
    }

    /// The events the scans count (Number Of Completed Packets, LE Read Buffer Size's Command
    /// Complete) are recognised by their bytes, never by the summaries, which are display text: a
    /// timeline whose summaries all read otherwise scans the same.
    @Test func rewordedSummariesScanTheSame() throws {
        let source = try TimelineSource(path: TestCaptures.sample("heart-rate-healthy.btsnoop"), options: ImportOptions())
        let db = source.store.database
        try db.execute("UPDATE packet SET summary = 'packet ' || frame")
        let scan = try CapturePacketScan.run(1, db: db)
        #expect(!scan.completions.isEmpty && scan.readBufferSize != nil)
        try Self.expectStoredEqualsScan(db: db)
    }

    // MARK: - The stored scan (issue 12)

    /// The row the import stored (`StoredPacketScan`) holds what `CapturePacketScan.run` finds
    /// on the same timeline, field by field, the clock's runs included.
    static func expectStoredEqualsScan(db: SQLiteDatabase, capture: Int64 = 1,
                                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let stored = try #require(try StoredPacketScan.read(capture, db: db), sourceLocation: sourceLocation)
        let want = try CapturePacketScan.run(capture, db: db)
        #expect(stored.firstRecord == want.firstRecord && stored.lastRecord == want.lastRecord, sourceLocation: sourceLocation)
        #expect(stored.firstAny == want.firstAny && stored.lastAny == want.lastAny, sourceLocation: sourceLocation)
        #expect(stored.readBufferSizeEvent == want.readBufferSizeEvent, sourceLocation: sourceLocation)
        #expect(stored.largestPacket == want.largestPacket && stored.mostInFlight == want.mostInFlight, sourceLocation: sourceLocation)
        #expect(stored.completions.mapValues { $0.map { "\($0.time):\($0.count)" } }
                == want.completions.mapValues { $0.map { "\($0.time):\($0.count)" } }, sourceLocation: sourceLocation)
        #expect(stored.clock.storedRuns == want.clock.storedRuns, sourceLocation: sourceLocation)
        #expect(stored.clock.stepsBack == want.clock.stepsBack && stored.clock.absurd == want.clock.absurd, sourceLocation: sourceLocation)
        #expect(stored.clock.largestStep?.frame == want.clock.largestStep?.frame
                && stored.clock.largestStep?.by == want.clock.largestStep?.by, sourceLocation: sourceLocation)
        #expect(stored.clock.note == want.clock.note, sourceLocation: sourceLocation)
        // The replay takes the stored row.
        let loaded = try CapturePacketScan.load(capture, db: db)
        #expect(loaded.firstAny == stored.firstAny && loaded.completions.count == stored.completions.count, sourceLocation: sourceLocation)
    }

    static let plausible: Int64 = 1_700_000_000_000_000
    static let absurd: Int64 = .max
    /// Number Of Completed Packets, handle 0x0040, `n` packets (Core v5.4 Vol 4 Part E 7.7.19).
    static func completed(_ n: UInt8) -> [UInt8] { [0x13, 5, 1, 0x40, 0x00, n, 0] }
    /// LE Read Buffer Size Command Complete: 251 bytes, 15 buffers (Vol 4 Part E 7.8.2).
    static let readBufferSize: [UInt8] = [0x0E, 7, 1, 0x02, 0x20, 0x00, 0xFB, 0x00, 0x0F]
    /// An ACL packet the host sent on handle 0x0040 (ATT Read Request, handle 3).
    static let aclSent: [UInt8] = [0x40, 0x00, 7, 0, 3, 0, 4, 0, 0x0A, 3, 0]

    /// Shapes of clock and content a capture file can have: absurd records before the first
    /// plausible one, steps back, absurd records between, none plausible at all (equal and
    /// unequal times), only notes, nothing.
    static let shapes: [(name: String, records: [(ts: Int64, kind: PacketKind, direction: Direction, payload: [UInt8])])] = [
        ("absurd first, then steps back", [
            (absurd, .note, .unknown, Array("start".utf8)), (-absurd, .event, .received, readBufferSize),
            (plausible, .acl, .sent, aclSent), (plausible - 10, .acl, .sent, aclSent), (absurd, .event, .received, completed(1)),
            (plausible + 100, .acl, .sent, aclSent + [1, 2, 3]), (plausible + 50, .event, .received, completed(2)),
            (0, .event, .received, completed(1)), (plausible + 200, .note, .unknown, Array("end".utf8))]),
        ("none plausible", [
            (absurd, .acl, .sent, aclSent), (absurd, .event, .received, completed(1)), (-absurd, .acl, .sent, aclSent),
            (absurd, .note, .unknown, []), (.min, .event, .received, completed(1))]),
        ("notes only", [(plausible + 5, .note, .unknown, Array("a".utf8)), (plausible, .note, .unknown, Array("b".utf8)),
                        (absurd, .note, .unknown, Array("c".utf8))]),
        ("absurd notes, then plausible", [(absurd, .note, .unknown, []), (absurd, .note, .unknown, []),
                                          (plausible, .event, .received, completed(3)), (plausible, .acl, .sent, [])]),
        ("nothing", []),
    ]

    /// Records each shape live (`TimelineRecorder`, the `record` command's writer) and compares.
    @Test(arguments: shapes.indices, [true, false])
    func aRecordingStoresWhatTheScanFinds(_ index: Int, keepRaw: Bool) throws {
        let shape = Self.shapes[index]
        let db = FileManager.default.temporaryDirectory.appendingPathComponent("stored-scan-\(getpid())-\(index)-\(keepRaw).db").path
        defer { for s in ["", "-wal", "-shm"] { unlink(db + s) } }
        var options = ImportOptions()
        options.keepRaw = keepRaw
        let recorder = try TimelineRecorder(databasePath: db, source: "stdin", identity: "stored-scan-\(getpid())-\(index)",
                                            format: .btsnoop, linkType: 1002, formatDescription: "btsnoop", options: options,
                                            commitEvery: 2)
        for (i, r) in shape.records.enumerated() {
            try recorder.append(CaptureRecord(frameNumber: i + 1, timestamp: r.ts, direction: r.direction, kind: r.kind,
                                              payload: r.payload, fileOffset: i * 32))
        }
        #expect(try StoredPacketScan.read(recorder.captureID, db: recorder.store.database) == nil, "\(shape.name): before finish()")
        try recorder.finish()
        try Self.expectStoredEqualsScan(db: recorder.store.database, capture: recorder.captureID)
    }

    /// The adversarial corpus (Scripts/blegen/adversarial.py: extreme timestamps, many links,
    /// reassemblies that never complete), imported.
    @Test func theAdversarialCorpusStoresWhatTheScanFinds() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stored-scan-corpus-\(getpid())")
        defer { try? FileManager.default.removeItem(at: dir) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-m", "blegen.adversarial", dir.path]
        p.currentDirectoryURL = URL(fileURLWithPath: TestCaptures.packageRoot).appendingPathComponent("Scripts")
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let listing = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let paths = listing.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(paths.count >= 10, "\(listing)")
        for path in paths {
            let source = try TimelineSource(path: path, options: ImportOptions())
            try Self.expectStoredEqualsScan(db: source.store.database)
        }
    }
}
