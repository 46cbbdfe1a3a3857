import Foundation
import Testing
@testable import BLEReport
import BLECore

/// Small pieces: CSV and Markdown escaping, histograms, periods, identity resolution, inputs.
@Suite struct ReportPartsTests {
    @Test func csvQuotesOnlyWhatNeedsIt() {
        let t = ReportTable(id: "t", title: "T", note: "", columns: [.init("A", "a"), .init("Code", "code", .code), .init("D", "d", .duration)],
                            rows: [[.text("plain"), .code(0x3E, digits: 2), .duration(1500)],
                                   [.text("a, \"b\""), .empty, .duration(0)]])
        #expect(t.csv() == "a,code,code_hex,d_us\nplain,62,0x3E,1500\n\"a, \"\"b\"\"\",,,0\n")
    }

    @Test func markdownEscapesPipesAndSaysWhatWasLeftOut() {
        let t = ReportTable(id: "t", title: "T", note: "", columns: [.init("A", "a"), .init("N", "n", .number)],
                            rows: (0..<3).map { [.text("x|\($0)"), .int($0)] })
        let md = t.markdown(limit: 2)
        #expect(md.contains("| x\\|0 | 0 |"))
        #expect(md.contains("|---|---:|"))
        #expect(md.contains("1 more rows in `t.csv`."))
        #expect(!md.contains("x\\|2"))
    }

    @Test func histogramBuckets() {
        #expect(Histogram.counts([0, 999, 1_000, 29_999_999, 30_000_000, 90_000_000], bounds: Histogram.latencyBounds)
                == [2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2])
        #expect(Histogram.latencyLabels.count == Histogram.latencyBounds.count + 1)
        #expect(DurationStats.bucketLabels.count == DurationStats.bucketBounds.count + 1)
    }

    @Test func periods() {
        let t: Int64 = 1_772_366_401_395_694   // 2026-03-01T12:00:01.395694Z, a Sunday
        #expect(FleetStatistics.periodLabel(FleetStatistics.periodStart(t, period: "hour"), period: "hour") == "2026-03-01 12:00")
        #expect(FleetStatistics.periodLabel(FleetStatistics.periodStart(t, period: "day"), period: "day") == "2026-03-01")
        #expect(FleetStatistics.periodLabel(FleetStatistics.periodStart(t, period: "week"), period: "week") == "week of 2026-02-23")
        #expect(FleetStatistics.periodStart(-1, period: "day") == -86_400_000_000)
    }

    static func capture(_ label: String, firmware: String?, devicesFirmware: String? = nil) -> CaptureFacts {
        let conn = ConnectionFact(id: 1, handle: 0x40, peerAddress: "AA:BB:CC:DD:EE:FF", status: 0, completedAt: 0, start: 0,
                                  end: 3_600_000_000, beganBeforeCapture: false, openAtEnd: false, disconnectReason: 0x08,
                                  disconnectCBError: "CBError.connectionTimeout",
                                  identity: DeviceIdentity(firmwareRevision: firmware))
        return CaptureFacts(input: label, label: label, captureName: label, capturePath: label, sha256: label, formatDescription: "",
                            records: 1, firstTimestamp: 0, lastTimestamp: 3_600_000_000, status: "complete", malformedPackets: 0,
                            connections: [conn], bredrLinks: 0,
                            events: [ErrorEvent(kind: .disconnect, timestamp: 3_600_000_000, packetID: 9, connectionID: 1, code: 0x08,
                                                name: "Connection Timeout", cbError: "CBError.connectionTimeout", opcode: nil,
                                                opcodeName: nil, handle: nil, characteristic: nil, descriptor: nil, detail: nil)],
                            latencies: [:], outcomes: [:], attOpcodeNames: [:],
                            devices: ["AA:BB:CC:DD:EE:FF": DeviceIdentity(name: "Lock", firmwareRevision: devicesFirmware)])
    }

    /// A capture without a Device Information read takes the firmware the fleet agrees on,
    /// and stays unknown when the fleet saw two.
    @Test func identityFromTheFleetOnlyWhenUnambiguous() {
        let agreed = FleetStatistics.build(inputs: [], captures: [Self.capture("a", firmware: "1.0"), Self.capture("b", firmware: nil)])
        #expect(agreed.identities.map { $0[1]?.firmwareRevision } == ["1.0", "1.0"])
        #expect(agreed.identities.map { $0[1]?.name } == ["Lock", "Lock"])
        let split = FleetStatistics.build(inputs: [], captures: [Self.capture("a", firmware: "1.0"), Self.capture("b", firmware: "2.0"),
                                                                 Self.capture("c", firmware: nil)])
        #expect(split.identities.map { $0[1]?.firmwareRevision } == ["1.0", "2.0", nil])
        let rows = split.groups[.firmware] ?? []
        #expect(rows.map { $0.key[2] } == ["1.0", "2.0", "?"])
        #expect(rows.allSatisfy { $0.events[EventKey(kind: .disconnect, code: 0x08)] == 1 && $0.connectionHours == 1 })
    }

    @Test func inputsSkipHiddenAndDocumentationFilesInDirectoriesOnly() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        for name in [".hidden", "b.btsnoop", "a.log", "notes.md", "report.json"] {
            try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/" + name))
        }
        let e = ReportInputs.expand([dir, dir + "/notes.md", dir + "/missing"])
        #expect(e.files == [dir + "/a.log", dir + "/b.btsnoop", dir + "/notes.md"])
        #expect(e.problems.map(\.path) == [dir + "/missing"])
    }

    /// A symbolic link back up the tree (`sub/up -> ..`) made the walk read the same file 40
    /// levels deep and then fail the report with "Too many levels of symbolic links". Each
    /// directory is walked once; a second link to one is not a second walk.
    @Test func inputsWalkEachDirectoryOnceThroughLinks() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/sub/a.btsnoop"))
        try FileManager.default.createSymbolicLink(atPath: dir + "/sub/up", withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: dir + "/again", withDestinationPath: "sub")
        let e = ReportInputs.expand([dir])
        #expect(e.files == [dir + "/again/a.btsnoop"])
        #expect(e.problems.isEmpty)
    }

    @Test func workerPoolKeepsOrder() {
        #expect(WorkerPool.map(count: 100, jobs: 7) { $0 * $0 } == (0..<100).map { $0 * $0 })
        #expect(WorkerPool.map(count: 0, jobs: 3) { $0 }.isEmpty)
    }
}
