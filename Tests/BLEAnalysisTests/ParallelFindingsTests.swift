import Foundation
import Testing
import TestSupport
@testable import BLETimeline
@testable import BLEAnalysis

/// `ParallelFindings` makes the connections' findings on several threads, each through its own
/// read-only connection, in chunks written one transaction each, and `StoredPDUPipeline` reads
/// the ATT PDUs back on another thread. The `finding` table (every row, in rowid order) and the
/// rest of the analysis must be what one thread makes in one transaction, with chunks that cut
/// the connections anywhere and threads that take them in any order.
@Suite("findings made on several threads")
struct ParallelFindingsTests {
    /// The analysis's tables, each dumped in rowid order.
    static let tables = ["finding", "att_transaction", "gatt_service", "gatt_characteristic", "gatt_descriptor",
                         "gatt_value", "device", "analysis_state", "connection"]

    @Test func severalThreadsMakeTheFindingsOfOne() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parallel-findings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // The generator's link endings and ATT shapes (findings of most families), a gateway whose
        // 40 links are lost at once (`LinkLossOnsets` across chunks), and real captures.
        try BlegenSessions.run("linkloss", [directory.path])
        let lost = directory.appendingPathComponent("lost-at-end.btsnoop").path
        try BlegenSessions.script("make_bench_capture.py", [lost, "--profile", "att-heavy", "--records", "20000", "--lost-at-end"])
        try Self.repeatedAttempts.write(to: directory.appendingPathComponent("repeated-attempts.btsnoop").path)
        var captures = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".btsnoop") }.sorted().map { directory.appendingPathComponent($0).path }
        captures += ["android-lock-pairing.btsnoop", "android-pongbot.btsnoop", "android-yeelock.btsnoop",
                     "nrf-sniffer-psoc6-crash.pcapng", "nrf-sniffer-invalid-control.pcapng",
                     "smartwatch-h4-phdr.pcapng"].map(CompletionEventsTests.shared)

        var findings = 0, connections = 0
        for (n, capture) in captures.enumerated() {
            func analysed(_ readers: (TimelineStore) -> ParallelFindings?) throws -> [String: [String]] {
                let db = directory.appendingPathComponent("\(n)-\(UUID().uuidString).db").path
                _ = try Importer.importCaptures([capture], intoScratch: db) { store in
                    _ = try Analyzer.analyze(store, force: false, findings: true, readers: readers(store))
                }
                let store = try TimelineStore(path: db)
                var dump: [String: [String]] = [:]
                for table in Self.tables {
                    dump[table] = try store.database.rows("SELECT * FROM \(table) ORDER BY rowid").map { "\($0)" }
                }
                return dump
            }
            let one = try analysed { _ in nil }
            // Chunks of 3 connections on 3 threads, and one chunk of all on 2.
            for (chunk, jobs) in [(3, 3), (2_048, 2)] {
                let several = try analysed { store in
                    ParallelFindings(path: store.path, jobs: jobs, writing: { try store.database.transaction($0) },
                                     chunkSize: chunk)
                }
                for table in Self.tables {
                    let (a, b) = (several[table] ?? [], one[table] ?? [])
                    let first = a.indices.first { $0 >= b.count || a[$0] != b[$0] } ?? (a.count < b.count ? a.count : nil)
                    #expect(first == nil, """
                        \(capture): \(table), chunks of \(chunk) on \(jobs) threads: \(a.count) rows against \(b.count), \
                        first difference at row \(first ?? 0): \(first.flatMap { a.indices.contains($0) ? a[$0] : nil } ?? "none") \
                        instead of \(first.flatMap { b.indices.contains($0) ? b[$0] : nil } ?? "none")
                        """)
                }
            }
            findings += one["finding"]?.count ?? 0
            connections += one["connection"]?.count ?? 0
        }
        // The comparison saw many connections and findings.
        #expect(connections >= 100)
        #expect(findings >= 100)
    }

    /// Seven attempts to connect to one peer, each failed with 0x3E (LE Create Connection, Core
    /// v5.4 Vol 4 Part E 7.8.12, then LE Connection Complete, 7.7.65.1, status 0x3E Connection
    /// Failed to be Established): each finding counts the attempts before it
    /// (`EarlierConnections`), across and within chunks.
    static var repeatedAttempts: SpecCapture {
        var c = SpecCapture()
        let peer: [UInt8] = [0xC0, 0x11, 0x22, 0x33, 0x44, 0x55]
        for i in 0..<7 {
            let t = Int64(i) * 1_000
            // LE Create Connection: scan interval/window 0x0060/0x0030, no filter, public peer, own
            // public, interval 24-24, latency 0, timeout 400, CE lengths 0.
            c.cmd(t, 0x200D, c.le16(0x60) + c.le16(0x30) + [0x00, 0x00] + peer.reversed() + [0x00]
                    + c.le16(24) + c.le16(24) + c.le16(0) + c.le16(400) + c.le16(0) + c.le16(0))
            c.commandStatus(t + 1, 0x200D)
            c.evt(t + 500, 0x3E, [0x01, 0x3E] + c.le16(0x0040) + [0x00, 0x00] + peer.reversed()
                    + c.le16(24) + c.le16(0) + c.le16(400) + [0x00])
        }
        return c
    }

    /// A pass that stops early (a write failed) lets the reader go: `finish` returns, the file
    /// can be written again, and a second pipeline reads it whole.
    @Test func aPipelineLeftEarlyLetsTheFileGo() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pdu-pipeline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let capture = directory.appendingPathComponent("gateway.btsnoop").path
        try BlegenSessions.script("make_bench_capture.py", [capture, "--profile", "att-heavy", "--records", "20000"])
        let db = directory.appendingPathComponent("t.db").path
        _ = try Importer.importCaptures([capture], intoScratch: db)
        let store = try TimelineStore(path: db)
        let readers = ParallelFindings(path: db, jobs: 2, writing: { try store.database.transaction($0) })
        let ids = try store.database.rows("SELECT id FROM connection ORDER BY id").compactMap { $0[0].int64 }
        #expect(ids.count >= 10)
        let early = try #require(try StoredPDUPipeline.start(captureID: 1, readers: readers, db: store.database))
        var seen = 0
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try early.forEach(connection: ids[0]) { _ in
                seen += 1
                if seen == 1 { throw Stop() }
            }
        }
        try early.finish()
        try store.database.execute("BEGIN IMMEDIATE; DELETE FROM finding; COMMIT")
        let whole = try #require(try StoredPDUPipeline.start(captureID: 1, readers: readers, db: store.database))
        for id in ids {
            var read: [Int] = []
            try whole.forEach(connection: id) { read.append($0.packetID) }
            let direct = try StoredATTPDU.load(connection: id, from: store.database).map(\.packetID)
            #expect(read == direct, "connection \(id)")
        }
        try whole.finish()
    }

    /// While the PDUs are read ahead the writer's pages cannot go to the file (the reader holds
    /// its read transaction, and a spill needs the file to itself): SQLite would wait for the
    /// reader, which waits for the writer to take its next batch, for the busy timeout (30 s) at
    /// every page. The pass must never wait for its reader, however small the writer's cache
    /// and however much the pass writes: 6,000 Read Request / Read Response pairs (Core v5.4
    /// Vol 3 Part F 3.4.4.3-4), one transaction each, against a cache of 10 pages.
    @Test func thePassNeverWaitsForItsReader() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pdu-pipeline-spill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var c = SpecCapture()
        c.connectionComplete(0, handle: 0x0040, role: 0, peer: [0xC0, 0x01, 0x02, 0x03, 0x04, 0x05])
        var t: Int64 = 100
        for i in 0..<6_000 {
            let value = (0..<20).map { UInt8(truncatingIfNeeded: i &+ $0) }
            c.exchange(&t, handle: 0x0040, [0x0A] + c.le16(0x0003), [0x0B] + value)
        }
        c.disconnectionComplete(t, handle: 0x0040, reason: 0x13)
        let capture = directory.appendingPathComponent("reads.btsnoop").path
        try c.write(to: capture)

        func analysed(waits: UnsafeMutablePointer<Int32>?) throws -> [String] {
            let db = directory.appendingPathComponent("\(UUID().uuidString).db").path
            _ = try Importer.importCaptures([capture], intoScratch: db) { store in
                var readers: ParallelFindings?
                if let waits {
                    try store.database.execute("PRAGMA cache_size = 10")
                    store.database.countLockWaits(in: waits)
                    readers = ParallelFindings(path: store.path, jobs: 2, writing: { try store.database.transaction($0) })
                }
                _ = try Analyzer.analyze(store, force: false, findings: true, readers: readers)
            }
            return try TimelineStore(path: db).database.rows("SELECT * FROM att_transaction ORDER BY rowid").map { "\($0)" }
        }
        let waits = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        defer { waits.deallocate() }
        waits.pointee = 0
        let ahead = try analysed(waits: waits)
        #expect(waits.pointee == 0, "the writer waited \(waits.pointee) time(s) for a lock")
        #expect(ahead.count == 6_000)
        #expect(ahead == (try analysed(waits: nil)))
    }

    /// Only a file this process alone uses, with more than one job allowed, is read on other
    /// threads: not a timeline opened as it is (another process may read it), not one in memory.
    @Test func onlyAnImportsOwnFileIsReadOnOtherThreads() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parallel-readers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("t.db").path
        var options = ImportOptions()
        options.analysisJobs = 2
        var during: ParallelFindings?
        _ = try Importer.importCaptures([CompletionEventsTests.shared("android-yeelock.btsnoop")], intoScratch: db,
                                        options: options) { store in during = ParallelFindings.forStore(store) }
        #expect(during?.jobs == 2)
        #expect(ParallelFindings.forStore(try TimelineStore(path: db)) == nil)
        let memory = try TimelineStore(path: ":memory:")
        memory.analysisJobs = 2
        #expect(ParallelFindings.forStore(memory) == nil)
    }
}
