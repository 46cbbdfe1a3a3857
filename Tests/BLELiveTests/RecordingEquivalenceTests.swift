import Foundation
import Testing
import BLECore
import BLECapture
import BLETimeline
@testable import BLELive

/// "The timeline of a recording equals the timeline of importing its btsnoop file afterwards":
/// real captures are streamed through a pipe into the recorder (as `--stdin` would get them),
/// then the btsnoop output is imported and the two timelines are compared view by view.
@Suite struct RecordingEquivalenceTests {
    /// Writes `bytes` into a pipe from another thread; returns the read end.
    static func pipe(_ bytes: [UInt8]) throws -> Int32 {
        var fds: [Int32] = [0, 0]
        try #require(Glibc.pipe(&fds) == 0)
        let writer = fds[1]
        Thread {
            var i = 0
            while i < bytes.count {
                let n = bytes[i..<min(bytes.count, i + 50_000)].withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                i += n
            }
            close(writer)
        }.start()
        return fds[0]
    }

    /// Records `capture` from a pipe with `options` pointing into `dir`; returns the summary.
    static func recordFromPipe(_ capture: String, dir: String, filter: RecordFilter = RecordFilter(),
                               rotation: RotationPolicy? = nil, output: String = "rec.btsnoop") throws -> RecordingSummary {
        let fd = try pipe([UInt8](try Data(contentsOf: URL(fileURLWithPath: Live.capture(capture)))))
        defer { close(fd) }
        let options = RecordingOptions(outputPath: dir + "/" + output, databasePath: dir + "/rec.db", rotation: rotation,
                                       filter: filter)
        let summary = try Live.record(StreamSource(fileDescriptor: fd, name: "pipe"), options)
        #expect(summary.stopReason == .endOfInput)
        #expect(summary.failure == nil)
        return summary
    }

    /// Every compared query gives the same rows in both timelines.
    static func expectSameTimeline(_ recorded: String, _ imported: String) throws {
        for sql in Live.comparedQueries {
            let a = try Live.rows(recorded, sql), b = try Live.rows(imported, sql)
            #expect(a.count == b.count, "\(sql)")
            #expect(a == b, "\(sql)")
        }
    }

    @Test(arguments: Live.btsnoopCaptures)
    func recordingEqualsImportOfItsOutput(name: String) throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let summary = try Self.recordFromPipe(name, dir: dir)
        let expected = try Live.records(Live.capture(name))
        #expect(summary.records == expected.count)
        try Live.importTimeline(dir + "/rec.btsnoop", into: dir + "/imported.db")
        try Self.expectSameTimeline(dir + "/rec.db", dir + "/imported.db")
        // Something to compare: the counts the issue names.
        let counts = try Live.rows(dir + "/rec.db", "SELECT (SELECT count(*) FROM packets), (SELECT count(*) FROM att_pdus), (SELECT count(*) FROM connections), (SELECT count(*) FROM errors)")
        #expect(counts.first?.first == .integer(Int64(expected.count)))
        // The recording's capture row says it was recorded live and is complete.
        let capture = try Live.rows(dir + "/rec.db", "SELECT path, status, format_description FROM capture")
        #expect(capture.first?[0] == .text("pipe") && capture.first?[1] == .text("complete"))
    }

    /// The status line's counts agree with the timeline they were counted beside.
    @Test(arguments: ["android-lock-long-session.btsnoop", "android-pongbot.btsnoop"])
    func statusCountsMatchTheTimeline(name: String) throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let stats = try #require(try Self.recordFromPipe(name, dir: dir).stats)
        let db = dir + "/rec.db"
        func count(_ sql: String) throws -> Int { try Live.rows(db, sql).first?.first?.int ?? -1 }
        #expect(stats.packets == (try count("SELECT count(*) FROM packets")))
        #expect(stats.attErrors == (try count("SELECT count(*) FROM att_pdus WHERE opcode = 1")))
        #expect(stats.advertisers.count == (try count("SELECT count(DISTINCT address) FROM adv_reports")))
        #expect(stats.disconnects == (try count("SELECT count(*) FROM connections WHERE disconnected_ts_us IS NOT NULL")))
        #expect(stats.openConnections.count == (try count("SELECT count(*) FROM connection WHERE status = 0 AND disconnected_ts_us IS NULL")))
        let last = try Live.rows(db, "SELECT disconnect_reason FROM connections WHERE disconnected_ts_us IS NOT NULL ORDER BY disconnected_ts_us DESC LIMIT 1")
        #expect(stats.lastDisconnectReason.map { Int($0.rawValue) } == last.first?.first?.int)
        if name == "android-lock-long-session.btsnoop" {
            #expect(stats.summary.hasSuffix(", 2 connected, 18 advertisers, 19 ATT errors, 3 disconnects (last 0x16 Connection Terminated By Local Host)"))
        }
    }

    @Test func addressFilterKeepsOneDevice() throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The LE peripheral of the capture (its other peer, 30:95:E3:B8:69:8C, is BR/EDR).
        let peer = try #require(BluetoothAddress("5C:B2:60:06:49:73"))
        let summary = try Self.recordFromPipe("android-pongbot.btsnoop", dir: dir, filter: RecordFilter(address: peer))
        #expect(summary.filtered > 0 && summary.records > 0)
        #expect(summary.records + summary.filtered == (try Live.records(Live.capture("android-pongbot.btsnoop")).count))
        let peers = try Live.rows(dir + "/rec.db", "SELECT DISTINCT peer_address FROM connections")
        #expect(peers == [[.text("5C:B2:60:06:49:73")]])
        #expect(try Live.rows(dir + "/rec.db", "SELECT count(*) FROM adv_reports WHERE address <> '5C:B2:60:06:49:73'") == [[.integer(0)]])
        // Every ATT PDU of that device's connections survives.
        let all = dir + "/all"
        try FileManager.default.createDirectory(atPath: all, withIntermediateDirectories: true)
        _ = try Self.recordFromPipe("android-pongbot.btsnoop", dir: all)
        let attOfPeer = "SELECT count(*) FROM att_pdus a JOIN connections c ON c.id = a.connection_id WHERE c.peer_address = '5C:B2:60:06:49:73'"
        #expect(try Live.rows(dir + "/rec.db", attOfPeer) == (try Live.rows(all + "/rec.db", attOfPeer)))
        try Live.importTimeline(dir + "/rec.btsnoop", into: dir + "/imported.db")
        try Self.expectSameTimeline(dir + "/rec.db", dir + "/imported.db")
        // The capture's only advertiser: all its reports and its connection, nothing else.
        let advertiser = dir + "/advertiser"
        try FileManager.default.createDirectory(atPath: advertiser, withIntermediateDirectories: true)
        _ = try Self.recordFromPipe("android-pongbot.btsnoop", dir: advertiser,
                                    filter: RecordFilter(address: BluetoothAddress("C5:34:18:42:4C:43")))
        let reports = "SELECT count(*) FROM adv_reports WHERE address = 'C5:34:18:42:4C:43'"
        #expect(try Live.rows(advertiser + "/rec.db", reports) == (try Live.rows(all + "/rec.db", reports)))
        #expect(try Live.rows(advertiser + "/rec.db", "SELECT DISTINCT peer_address FROM connections") == [[.text("C5:34:18:42:4C:43")]])
    }

    @Test func leOnlyDropsClassicTraffic() throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let summary = try Self.recordFromPipe("android-classic-spp.btsnoop", dir: dir, filter: RecordFilter(leOnly: true))
        #expect(summary.filtered > 10_000)
        #expect(try Live.rows(dir + "/rec.db", "SELECT count(*) FROM connection WHERE transport = 'br/edr'") == [[.integer(0)]])
        let classic = "SELECT count(*) FROM packet p JOIN connection c ON c.id = p.connection_id WHERE c.transport = 'br/edr'"
        #expect(try Live.rows(dir + "/rec.db", classic) == [[.integer(0)]])
        #expect(try Live.rows(dir + "/rec.db", "SELECT count(*) FROM packet WHERE kind = 'sco'") == [[.integer(0)]])
        // What stays is LE and controller traffic, and the vendor diagnostics on reserved handle 0x0FF1.
        #expect(try Live.rows(dir + "/rec.db", "SELECT count(*) FROM packet WHERE kind = 'acl' AND summary NOT LIKE '%vendor diagnostics%'")
                == [[.integer(0)]])
        try Live.importTimeline(dir + "/rec.btsnoop", into: dir + "/imported.db")
        try Self.expectSameTimeline(dir + "/rec.db", dir + "/imported.db")
    }

    @Test func rotationBySizeSplitsIntoCompleteFiles() throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let summary = try Self.recordFromPipe("android-pongbot.btsnoop", dir: dir, rotation: .size(bytes: 16 << 10))
        let chunks = try Live.btsnoopChunks(Live.capture("android-pongbot.btsnoop"))
        #expect(summary.outputPaths.count > 3)
        #expect(summary.outputPaths.first == dir + "/rec.1.btsnoop")
        var all: [[UInt8]] = []
        var frame = 0
        for path in summary.outputPaths {
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            #expect(size <= 16 << 10)
            let segment = try Live.btsnoopChunks(path)
            #expect(segment.header == chunks.header)
            // The timeline keeps the frame number across segments and the offset within the segment.
            let first = try Live.rows(dir + "/rec.db", "SELECT file_offset FROM packet WHERE frame = \(frame + 1)")
            #expect(first == [[.integer(16)]])
            frame += segment.records.count
            all += segment.records
        }
        #expect(all == chunks.records)
    }
}
