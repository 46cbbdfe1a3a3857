import Foundation
import Testing
import TestSupport

/// The per-connection findings read a link's ATT transactions a row at a time (issue 12: memory
/// flat however large the capture): `import`'s peak memory does not grow with the number of
/// Read Request / Read Response pairs on one link. Before, `attFindings` loaded every
/// transaction of the link as rows of values, about 250 bytes each (47 MB for 190,000 reads).
@Suite("memory against the number of transactions on a link", .serialized)
struct TransactionMemoryCLITests {
    static let directory = CLI.temporaryDirectory()

    /// One LE link, `pairs` Read Requests (Vol 3 Part F 3.4.4.3) each answered by a 20-byte Read
    /// Response 30 ms later, then the disconnection.
    /// With `refused`, each Read Request is answered by an Error Response (3.4.1.1) with Read Not
    /// Permitted (0x02) instead.
    static func reads(_ pairs: Int, refused: Bool = false) throws -> String {
        var capture = SpecCapture()
        capture.connectionComplete(0, handle: 0x0040, role: 0, peer: [0xC0, 0x01, 0x02, 0x03, 0x04, 0x05])
        var t: Int64 = 100
        for i in 0..<pairs {
            let handle = UInt16(3 + i % 50)
            let le = [UInt8(handle & 0xFF), UInt8(handle >> 8)]
            capture.exchange(&t, handle: 0x0040, [0x0A] + le,
                             refused ? [0x01, 0x0A] + le + [0x02] : [0x0B] + (0..<20).map { UInt8((i + $0) & 0xFF) })
        }
        capture.disconnectionComplete(t, handle: 0x0040, reason: 0x13)
        let path = directory.appendingPathComponent("\(refused ? "refused" : "reads")-\(pairs).btsnoop").path
        try capture.write(to: path)
        return path
    }

    /// 20,000 against 200,000 read pairs on one link (40,000 and 400,000 records). Measured with
    /// the debug build: the old findings took 57.4 MB more for the larger file (50.1 -> 107.6 MB:
    /// the rows, about 250 bytes a transaction, and their copies filtered per rule); now 17.6 MB
    /// more (44.4 -> 62.1 MB), all of it before the analysis: SQLite's page cache and the index
    /// build's sorter, 16 MB each at most, filling as the timeline grows from 8 to 80 MB (the
    /// peak is the index build's; the analysis of the larger file stays under it). Held to 24 MB,
    /// which any state kept per transaction (40 bytes or more) breaks.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
                   && FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
    func importPeakMemoryIsFlatInTransactions() throws {
        func peak(_ pairs: Int) throws -> Int {
            let capture = try Self.reads(pairs)
            defer { try? FileManager.default.removeItem(atPath: capture) }
            let db = capture + ".db"
            try? FileManager.default.removeItem(atPath: db)
            defer { try? FileManager.default.removeItem(atPath: db) }
            let kib = try LinkMemoryCLITests.peakKiB(["import", capture, "--db", db, "--quiet"])
            // Every pair was matched into a transaction of the one link.
            #expect(try LinkMemoryCLITests.count(db, "SELECT count(*) FROM att_transaction WHERE outcome = 'ok'") == String(pairs))
            return kib
        }
        let few = try peak(20_000), many = try peak(200_000)
        #expect(many - few < 24 * 1024, "import: \(few) KiB at 20,000 read pairs on one link, \(many) KiB at 200,000")
    }

    /// The same with every read refused: 20,000 against 200,000 ATT errors on one link. The
    /// Android status columns (`Analyzer.applyAndroidRule`) loaded every error row whole (74 MB for
    /// 190,000); they are read a row at a time now. Measured with the debug build: 108 MB more for
    /// the larger file before (46.4 -> 154.4 MB), then 38.8 MB (41.0 -> 79.9 MB), of which the
    /// status kept per error packet for the findings' Android column (about 120 bytes an error)
    /// and each error group's `group_concat` of every packet; both are looked up in the rows now
    /// (`Analyzer.AndroidStatusByPacket`, index `error_packet`; a group's first 10 packets): 8.9 MB
    /// (44.1 -> 52.9 MB), SQLite's caches as above. Held to 20 MB.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
                   && FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
    func importPeakMemoryOfRefusedReads() throws {
        func peak(_ pairs: Int) throws -> Int {
            let capture = try Self.reads(pairs, refused: true)
            defer { try? FileManager.default.removeItem(atPath: capture) }
            let db = capture + ".db"
            try? FileManager.default.removeItem(atPath: db)
            defer { try? FileManager.default.removeItem(atPath: db) }
            let kib = try LinkMemoryCLITests.peakKiB(["import", capture, "--db", db, "--quiet"])
            #expect(try LinkMemoryCLITests.count(db, "SELECT count(*) FROM error WHERE layer = 'att'") == String(pairs))
            return kib
        }
        let few = try peak(20_000), many = try peak(200_000)
        #expect(many - few < 20 * 1024, "import: \(few) KiB at 20,000 refused reads on one link, \(many) KiB at 200,000")
    }
}
