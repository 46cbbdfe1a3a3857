import Foundation
import Testing
import TestSupport
import BLEReport
@testable import BLEWarehouse

/// Storing a capture looks for the shorter copies of its log it replaces (`GrownCaptures`): only
/// real candidates come back from the server, not every capture that begins alike. The fleet
/// corpus begins every capture with the same 64 bytes (one header, one first record), as one
/// phone's logs do; before, each capture stored fetched every smaller capture stored before and
/// read its own bytes again to compare them.
@Suite(.serialized) struct ShorterCandidatesTests {
    @Test func onlyCopiesOfTheLogAreCandidates() throws {
        let cluster = try PostgresCluster.get()
        let url = try cluster.createDatabase()
        let dir = Fixture.scratch()
        defer { Fixture.remove(dir) }
        try BlegenSessions.script("make_fleet_corpus.py", [dir + "/fleet", "--count", "6",
                       "--min-records", "100", "--max-records", "400"])
        try? FileManager.default.removeItem(atPath: dir + "/fleet/corpus.txt")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/fleet").sorted()
        let sizes = try names.map { try Data(contentsOf: URL(fileURLWithPath: "\(dir)/fleet/\($0)")).count }
        let largest = names[sizes.firstIndex(of: sizes.max()!)!]
        // The first half of the largest capture, cut inside a record: a copy taken while it was written.
        let full = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/fleet/\(largest)"))
        try full.prefix(full.count / 2).write(to: URL(fileURLWithPath: dir + "/early-copy.log"))
        for n in names where n != largest {
            #expect(try Tool.run(["ingest", "\(dir)/fleet/\(n)", "--warehouse", url]).status == 0)
        }
        #expect(try Tool.run(["ingest", dir + "/early-copy.log", "--warehouse", url]).status == 0)

        let db = try PostgresConnection(WarehouseURL(url))
        #expect(try db.count("SELECT count(DISTINCT head_sha256) FROM blereplay.capture") == 1)
        let smaller = try db.count("SELECT count(*) FROM blereplay.capture WHERE size_bytes < $1::bigint", [String(full.count)])
        #expect(smaller == names.count, "every capture stored begins as the largest and is smaller")
        let (_, facts) = FleetReader.readOne("\(dir)/fleet/\(largest)", scratch: dir + "/scratch.db", timelines: ScratchTimelines())
        let bytes = try #require(facts.first.flatMap(CaptureBytes.locate))
        let candidates = try GrownCaptures.shorterCandidates(bytes, id: "0", in: db)
        #expect(candidates.map { $0[3] ?? "" } == [dir + "/early-copy.log"])

        // And storing the largest replaces that copy alone.
        let r = try Tool.run(["ingest", "\(dir)/fleet/\(largest)", "--warehouse", url])
        #expect(r.stdout.contains("1 capture(s) stored (1 replacing a shorter copy of their log)"), "\(r.all)")
        #expect(try db.count("SELECT count(*) FROM blereplay.capture") == names.count)
    }
}
