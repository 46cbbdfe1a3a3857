import Foundation
import Testing
import BLEWarehouse

/// Several `ingest` processes at once, and one killed half-way: each capture is stored exactly
/// once and never in part (the unique constraint and the per-capture transaction decide).
@Suite(.serialized) struct WarehouseConcurrencyTests {
    /// Per capture (by SHA-256): its rows in every table.
    func rowsPerCapture(_ url: String) throws -> [String: [String]] {
        let db = try PostgresConnection(WarehouseURL(url))
        var out: [String: [String]] = [:]
        for r in try db.execute("""
            SELECT c.sha256,
                   (SELECT count(*) FROM blereplay.connection x WHERE x.capture_id = c.id),
                   (SELECT count(*) FROM blereplay.device x WHERE x.capture_id = c.id),
                   (SELECT count(*) FROM blereplay.error x WHERE x.capture_id = c.id),
                   (SELECT count(*) FROM blereplay.att_transaction x WHERE x.capture_id = c.id),
                   (SELECT count(*) FROM blereplay.finding x WHERE x.capture_id = c.id)
            FROM blereplay.capture c
            """) {
            #expect(out[r[0] ?? ""] == nil, "stored twice: \(r[0] ?? "")")
            out[r[0] ?? ""] = r.dropFirst().map { $0 ?? "" }
        }
        return out
    }

    func storedCount(_ r: Tool.Result) -> Int {
        guard let range = r.stdout.range(of: "blereplay ingest: ") else { return -1 }
        return Int(r.stdout[range.upperBound...].prefix { $0.isNumber }) ?? -1
    }

    @Test func overlappingWorkersStoreEachCaptureOnce() throws {
        let cluster = try PostgresCluster.get()
        let reference = try cluster.createDatabase(), shared = try cluster.createDatabase()
        let dir = Fixture.scratch()
        defer { Fixture.remove(dir) }
        for (i, part) in ["a", "b", "c"].enumerated() {
            try Fixture.sessions(seed: 900 + 10 * i, count: 8, into: "\(dir)/\(part)")
        }
        #expect(try Tool.run(["ingest", dir, "--warehouse", reference, "--jobs", "1"]).status == 0)
        let expected = try rowsPerCapture(reference)
        #expect(expected.count == 24)
        // Three processes, two workers each, every input given to two of them.
        let workers = try [["a", "b"], ["b", "c"], ["c", "a"]].map { parts in
            try Tool(["ingest"] + parts.map { "\(dir)/\($0)" } + ["--warehouse", shared, "--jobs", "2"])
        }
        let results = workers.map { $0.wait() }
        for r in results { #expect(r.status == 0, "\(r.stderr)") }
        #expect(results.map(storedCount).reduce(0, +) == 24, "\(results.map(\.stdout))")
        #expect(try rowsPerCapture(shared) == expected)
    }

    /// The same captures under two paths (a folder and its copy), ingested by two processes at
    /// once: whichever stores a capture first, it is counted from the first path in byte order
    /// and the other input is listed as its duplicate, as `report` over both folders does.
    @Test func copiesIngestedAtOnceAreCountedAsTheReportOnFilesCountsThem() throws {
        let cluster = try PostgresCluster.get()
        let url = try cluster.createDatabase()
        let dir = Fixture.scratch(), filesOut = Fixture.scratch(), warehouseOut = Fixture.scratch()
        defer { for d in [dir, filesOut, warehouseOut] { Fixture.remove(d) } }
        try Fixture.sessions(seed: 5100, count: 10, into: dir + "/b-uploads")
        try FileManager.default.copyItem(atPath: dir + "/b-uploads", toPath: dir + "/a-mirror")
        // Each process walks its folder in an order of its own: the mirror from its last file.
        let first = try Tool(["ingest", dir + "/b-uploads", "--warehouse", url, "--jobs", "2"])
        let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/a-mirror").sorted().reversed()
        let second = try Tool(["ingest"] + names.map { "\(dir)/a-mirror/\($0)" } + ["--warehouse", url, "--jobs", "2"])
        for r in [first.wait(), second.wait()] { #expect(r.status == 0, "\(r.stderr)") }
        #expect(try rowsPerCapture(url).count == 10)
        #expect(try Tool.run(["report", dir, "-o", filesOut, "--quiet"]).status == 0)
        #expect(try Tool.run(["report", "--warehouse", url, "-o", warehouseOut, "--quiet"]).status == 0)
        for name in ["inputs.csv", "connections.csv", "report.json", "report.md"] {
            #expect(Fixture.read(filesOut + "/" + name) == Fixture.read(warehouseOut + "/" + name), "\(name) differs")
        }
        #expect(Fixture.read(warehouseOut + "/inputs.csv").components(separatedBy: ",duplicate,").count == 11)
    }

    @Test func aKilledWorkerLeavesNothingHalfStored() throws {
        let cluster = try PostgresCluster.get()
        let reference = try cluster.createDatabase(), killed = try cluster.createDatabase()
        let dir = Fixture.scratch()
        defer { Fixture.remove(dir) }
        try Fixture.sessions(seed: 1200, count: 40, into: dir)
        #expect(try Tool.run(["ingest", dir, "--warehouse", reference, "--jobs", "2"]).status == 0)
        let expected = try rowsPerCapture(reference)
        #expect(expected.count == 40)

        let worker = try Tool(["ingest", dir, "--warehouse", killed, "--jobs", "2"])
        try Fixture.waitForCaptures(4, in: killed, tries: 600)
        kill(worker.process.processIdentifier, SIGKILL)
        _ = worker.wait()
        // Whatever was committed is whole; the rest is absent.
        let partial = try rowsPerCapture(killed)
        #expect(partial.count < 40, "the worker finished before it was killed")
        for (sha, rows) in partial { #expect(rows == expected[sha], "\(sha) half-stored: \(rows)") }
        // Running again stores the rest, and nothing twice.
        let again = try Tool.run(["ingest", dir, "--warehouse", killed, "--jobs", "2"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(storedCount(again) == 40 - partial.count)
        #expect(try rowsPerCapture(killed) == expected)
    }
}
