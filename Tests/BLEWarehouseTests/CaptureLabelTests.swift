import Foundation
import Testing
import BLEWarehouse

/// Every capture counted has a label of its own: `by_capture` and the `connections` table group
/// by it, so two captures under one label were one row with `captures` 2.
@Suite(.serialized) struct CaptureLabelTests {
    /// Two blegen sessions (different captures, different connections).
    func twoSessions(_ dir: String) throws -> (String, String) {
        try Fixture.sessions(seed: 1700, count: 2, into: dir + "/gen")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/gen").sorted()
        return ("\(dir)/gen/\(names[0])", "\(dir)/gen/\(names[1])")
    }

    /// `by_capture.csv` rows: label -> captures column.
    func byCapture(_ directory: String) -> [String: String] {
        var out: [String: String] = [:]
        for line in Fixture.read(directory + "/by_capture.csv").split(separator: "\n").dropFirst() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            out[String(fields[0])] = String(fields[1])
        }
        return out
    }

    /// `btsnoop_hci.log` from two phones imported into one timeline: named by their paths.
    @Test func aTimelineHoldingTwoCapturesOfOneFileName() throws {
        let dir = Fixture.scratch(), out = Fixture.scratch()
        defer { Fixture.remove(dir); Fixture.remove(out) }
        let (a, b) = try twoSessions(dir)
        for (phone, session) in [("a", a), ("b", b)] {
            try FileManager.default.createDirectory(atPath: "\(dir)/\(phone)", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: session, toPath: "\(dir)/\(phone)/btsnoop_hci.log")
        }
        #expect(try Tool.run(["import", "\(dir)/a/btsnoop_hci.log", "\(dir)/b/btsnoop_hci.log", "--db", "\(dir)/m.db"]).status == 0)
        #expect(try Tool.run(["report", "\(dir)/m.db", "-o", out, "--format", "csv"]).status == 0)
        #expect(byCapture(out) == ["\(dir)/m.db (\(dir)/a/btsnoop_hci.log)": "1", "\(dir)/m.db (\(dir)/b/btsnoop_hci.log)": "1"],
                "\(byCapture(out))")
    }

    /// A log at one path rotated between two ingests (a new capture, not a longer copy): two
    /// captures in the warehouse, two rows in its report.
    @Test func aLogRotatedBetweenTwoIngests() throws {
        let cluster = try PostgresCluster.get()
        let url = try cluster.createDatabase()
        let dir = Fixture.scratch(), out = Fixture.scratch()
        defer { Fixture.remove(dir); Fixture.remove(out) }
        let (a, b) = try twoSessions(dir)
        let log = dir + "/btsnoop_hci.log"
        for session in [a, b] {
            try? FileManager.default.removeItem(atPath: log)
            try FileManager.default.copyItem(atPath: session, toPath: log)
            #expect(try Tool.run(["ingest", log, "--warehouse", url]).stdout.contains("1 capture(s) stored"))
        }
        #expect(try Tool.run(["report", "--warehouse", url, "-o", out, "--format", "csv"]).status == 0)
        let rows = byCapture(out)
        #expect(rows == ["\(log) #1": "1", "\(log) #2": "1"], "\(rows)")
        let connections = Fixture.read(out + "/connections.csv")
        #expect(connections.contains("\n\(log) #1,") && connections.contains("\n\(log) #2,"))
    }
}
