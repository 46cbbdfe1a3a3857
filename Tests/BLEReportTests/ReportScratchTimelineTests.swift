import Foundation
import Testing
@testable import BLEReport
import BLEAnalysis
@testable import BLETimeline

/// The fleet report's scratch timelines (`FleetReader.readCapture`) keep only the packet rows the
/// report reads (`TimelineWriter+ReferencedPackets`), only the advertising reports (and so the
/// `device` rows) of connection peers (`TimelineWriter+PeerAdvertising`), store no findings, and
/// hold every other row exactly as a full import of the same capture does: the analysis reads the
/// same input for every connection.
@Suite struct ReportScratchTimelineTests {
    static let captures = Support.samples.map(Support.sample) + [
        "android-lock-pairing.btsnoop", "android-yeelock.btsnoop", "ios-glasses.pklg", "btmon-monitor.btsnoop",
        "nrf-sniffer-att-deadlock.pcap", "smartwatch-h4-phdr.pcapng",
    ].map(Support.shared)

    /// Imports and analyses `path` into an in-memory scratch timeline, as the report does when
    /// `reportOnly`, as `import` does otherwise (without raw bytes, as the report reads).
    static func scratch(_ path: String, reportOnly: Bool, advertisingHoldLimit: Int? = nil) throws -> TimelineStore {
        let store = try TimelineStore(path: ":memory:")
        var options = ImportOptions(keepRaw: false)
        options.referencedPacketRowsOnly = reportOnly
        if let advertisingHoldLimit { options.advertisingHoldLimit = advertisingHoldLimit }
        let results = try Importer.importCaptures([path], intoScratchStore: store, name: path, options: options) { store in
            try Analyzer.analyze(store, findings: !reportOnly)
        }
        #expect(results.allSatisfy { $0.status == .imported || $0.status == .partial }, "\(path): \(results.map { $0.error ?? "" })")
        return store
    }

    static func rows(_ store: TimelineStore, _ table: String) throws -> [[SQLiteValue]] {
        try store.database.rows("SELECT * FROM \"\(table)\" ORDER BY rowid")
    }

    /// `table`'s rows whose `address` a connection row names, in rowid order.
    static func peerRows(_ store: TimelineStore, _ table: String) throws -> [[SQLiteValue]] {
        try store.database.rows("""
            SELECT * FROM "\(table)" WHERE address IN (SELECT peer_address FROM connection) ORDER BY rowid
            """)
    }

    /// Tables whose rows are kept only for connection peers (`TimelineWriter+PeerAdvertising`).
    static let peerTables: Set<String> = ["adv_report", "device"]

    @Test(arguments: captures)
    func sameRowsButPacketsAndFindings(path: String) throws {
        let full = try Self.scratch(path, reportOnly: false)
        let report = try Self.scratch(path, reportOnly: true)
        let tables = try full.database.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            .compactMap { $0[0].string }
        #expect(tables.contains("packet") && tables.contains("att_transaction"))
        let air = try full.database.scalarInt("SELECT count(*) FROM capture WHERE link_type IN (251, 255, 256, 272)") ?? 0 > 0
        // An air capture's report keeps the raw bytes (the endings inferred on air read the PDUs'
        // headers: `terminate-encrypted-on-air`), and its capture row says so; no other does.
        #expect(try report.database.scalarInt("SELECT count(*) FROM capture WHERE raw_kept = ?1", [.integer(air ? 1 : 0)])
                == full.database.scalarInt("SELECT count(*) FROM capture"))
        try report.database.execute("UPDATE capture SET raw_kept = 0")
        for table in tables where table != "packet" && table != "finding" && table != "capture_packet_scan"
            && !Self.peerTables.contains(table) {
            #expect(try Self.rows(report, table) == Self.rows(full, table), "\(path): table \(table) differs")
        }
        // Report-only rows are a part of the packets: no stored replay scan (issue 12).
        #expect(try Self.rows(report, "capture_packet_scan").isEmpty)
        // An air capture's report keeps the endings diagnose infers on air (`InferredAirEndings`),
        // the findings of `lostFromViewFindings`, and no other.
        let airEndings = "('connection-lost-from-view', 'connection-timeout-on-air', 'terminate-encrypted-on-air')"
        #expect(try report.database.scalarInt("SELECT count(*) FROM finding WHERE code NOT IN \(airEndings)") == 0)
        if !air { #expect(try Self.rows(report, "finding").isEmpty) }
        // Advertising and devices: the peers' rows whole, no other device's.
        for table in Self.peerTables.sorted() {
            #expect(try Self.rows(report, table) == Self.peerRows(full, table), "\(path): table \(table) differs")
        }

        // The packet rows kept are rows of the full import, whole but for their summary, which the
        // decoder does not make (`DecoderOptions.summaries`) and nothing the report runs reads, and
        // an air capture's raw bytes; they are the rows the report reads: each connection's first,
        // completing and last packet, and the capture's last record.
        let summary = 6, raw = 12
        let all = Dictionary(uniqueKeysWithValues: try Self.rows(full, "packet").map { row in
            var row = row
            row[summary] = .text("")
            return (row[0].int64 ?? -1, row)
        })
        let kept = try Self.rows(report, "packet").map { row in
            var row = row
            if air {
                #expect(row[raw].blob != nil, "\(path): packet row \(row[0]) has no raw bytes")
                row[raw] = .null
            }
            return row
        }
        for row in kept { #expect(all[row[0].int64 ?? -1] == row, "\(path): packet row \(row[0]) differs") }
        let named = try full.database.rows("""
            SELECT first_packet_id FROM connection UNION SELECT complete_packet_id FROM connection WHERE complete_packet_id IS NOT NULL
            UNION SELECT last_packet_id FROM connection UNION SELECT max(frame) FROM packet
            """).compactMap { $0[0].int }
        let keptFrames = Set(try report.database.rows("SELECT frame FROM packet").compactMap { $0[0].int })
        #expect(Set(named).isSubset(of: keptFrames), "\(path): a packet the report reads is missing")
        let connections = try full.database.scalarInt("SELECT count(*) FROM connection") ?? 0
        if air {
            // An air capture keeps every packet row: the endings inferred on air read them.
            #expect(kept.count == all.count, "\(path): \(kept.count) of \(all.count) packet rows kept")
        } else {
            #expect(kept.count <= 2 * Int(connections) + 1, "\(path): \(kept.count) packet rows kept")
            #expect(kept.count < all.count, "\(path): every packet row was written")
        }
    }

    /// Captures with advertising reports of devices that are not connection peers.
    static let advertising = [
        "android-lock-long-session.btsnoop", "android-yeelock.btsnoop", "android-lock-pairing.btsnoop",
    ].map(Support.shared)

    /// Past the hold limit the reports are written as they come, every one, as `import` writes them:
    /// memory stays bounded however many a large capture holds.
    @Test(arguments: advertising)
    func pastTheHoldLimitEveryReportIsKept(path: String) throws {
        let full = try Self.scratch(path, reportOnly: false)
        let trimmed = try Self.scratch(path, reportOnly: true)
        #expect(try Self.rows(trimmed, "adv_report").count < Self.rows(full, "adv_report").count,
                "\(path): holds no report of a device that is not a peer")
        let overflowed = try Self.scratch(path, reportOnly: true, advertisingHoldLimit: 1000)
        for table in Self.peerTables.sorted() {
            #expect(try Self.rows(overflowed, table) == Self.rows(full, table), "\(path): table \(table) differs")
        }
    }

    /// The logs of a bugreport zip share one timeline, where a device may advertise in one log and
    /// be connected in the other: every advertising report is kept.
    @Test func bugreportLogsKeepEveryReport() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let zip = dir + "/bugreport.zip"
        let script = Support.packageRoot.appendingPathComponent("Scripts/make_bugreport_zip.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "-o", zip, "--layout", "o"] + Self.advertising.prefix(2)
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        let full = try Self.scratch(zip, reportOnly: false)
        let report = try Self.scratch(zip, reportOnly: true)
        #expect(try full.database.scalarInt("SELECT count(*) FROM capture") == 2)
        #expect(try !Self.rows(full, "adv_report").isEmpty)
        for table in Self.peerTables.sorted() {
            #expect(try Self.rows(report, table) == Self.rows(full, table), "table \(table) differs")
        }
    }

    /// The fleet report over the same captures is the same as one computed from full timelines.
    @Test func factsEqualThoseOfFullTimelines() throws {
        for path in Self.captures {
            let full = try CaptureFactsLoader.load(Self.scratch(path, reportOnly: false), input: path)
            let report = try CaptureFactsLoader.load(Self.scratch(path, reportOnly: true), input: path)
            let a = FleetStatistics.build(inputs: [], captures: full)
            let b = FleetStatistics.build(inputs: [], captures: report)
            let dir = Support.scratch()
            defer { Support.remove(dir) }
            _ = try ReportWriter.write(a, to: dir + "/full", formats: [.json, .md])
            _ = try ReportWriter.write(b, to: dir + "/report", formats: [.json, .md])
            for name in ["report.json", "report.md"] {
                #expect(Support.read("\(dir)/full/\(name)") == Support.read("\(dir)/report/\(name)"), "\(path): \(name) differs")
            }
        }
    }
}
