import Foundation
import Testing
import BLEWarehouse
import TestSupport

/// `ingest` + `report --warehouse` against `report` on the same files: the same figures, computed
/// by the server (a real PostgreSQL cluster, `PostgresCluster`).
@Suite(.serialized) struct WarehouseEquivalenceTests {
    /// Every file the report writes, by name.
    func outputs(_ directory: String) -> [String: String] {
        var out: [String: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            out[name] = Fixture.read(directory + "/" + name)
        }
        return out
    }

    func expectSame(_ files: String, _ warehouse: String) {
        let a = outputs(files), b = outputs(warehouse)
        #expect(a.keys.sorted() == b.keys.sorted())
        #expect(a.count > 20, "\(a.keys.sorted())")
        for (name, text) in a.sorted(by: { $0.key < $1.key }) {
            #expect(text == b[name], "\(name) differs")
        }
    }

    @Test func sameOutputsAsTheReportOnFiles() throws {
        let cluster = try PostgresCluster.get()
        let url = try cluster.createDatabase()
        let dir = Fixture.scratch(), filesOut = Fixture.scratch(), warehouseOut = Fixture.scratch()
        defer { for d in [dir, filesOut, warehouseOut] { Fixture.remove(d) } }
        try Fixture.sessions(seed: 700, count: 16, into: dir + "/generated")
        // A name with every character COPY and SQL treat specially (no NUL: the warehouse stores
        // that as U+2400, see the round-trip test), and bytes that are not UTF-8.
        try Fixture.advertisedName(Array("R'); DROP TABLE x;\t\"\\N\n\\.\r".utf8) + [0xFF, 0xFE],
                                   peer: [0xC0, 0x01, 0x02, 0x03, 0x04, 0x05], into: dir + "/odd-name.btsnoop")
        // An Android bugreport zip (Docs/android.md): its logs are captures with the phone's
        // identity, which the warehouse stores and groups by as the report on files does (by_phone).
        let zipper = Process()
        zipper.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        zipper.arguments = ["python3", Fixture.packageRoot + "/Scripts/make_bugreport_zip.py", "--layout", "o",
                            "-o", dir + "/bugreport.zip", Fixture.shared("android-pongbot.btsnoop"),
                            Fixture.shared("android-lock-pairing.btsnoop")]
        try zipper.run()
        zipper.waitUntilExit()
        #expect(zipper.terminationStatus == 0)
        let inputs = [dir, Fixture.packageRoot + "/Captures", Fixture.shared("android-yeelock.btsnoop"),
                      Fixture.shared("nrf-sniffer-att-deadlock.pcap"), Fixture.shared("ios-glasses.pklg"),
                      Fixture.shared("btmon-monitor.btsnoop")]
        let files = try Tool.run(["report"] + inputs + ["-o", filesOut, "--jobs", "2", "--quiet"])
        #expect(files.status == 0, "\(files.stderr)")
        let ingest = try Tool.run(["ingest"] + inputs + ["--warehouse", url, "--jobs", "2"])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        let stored = try PostgresConnection(WarehouseURL(url)).count("SELECT count(*) FROM blereplay.capture")
        #expect(stored >= 27)
        #expect(ingest.stdout.contains("\(stored) capture(s) stored, 0 already in the warehouse"))
        let report = try Tool.run(["report", "--warehouse", url, "-o", warehouseOut, "--quiet"])
        #expect(report.status == 0, "\(report.stderr)")
        expectSame(filesOut, warehouseOut)
        let json = Fixture.read(warehouseOut + "/report.json")
        #expect(json.contains("\"phone_model\": \"Pixel 7\""))
        #expect(json.contains("\"captures\": \(stored)"))
        #expect(json.contains("\"connection-failed\"") || json.contains("\"att-timeout\""))

        // Ingesting again stores nothing and changes no figure.
        let again = try Tool.run(["ingest"] + inputs + ["--warehouse", url, "--jobs", "1"])
        #expect(again.status == 0)
        #expect(again.stdout.contains("0 capture(s) stored, \(stored) already in the warehouse"))
        let second = Fixture.scratch()
        defer { Fixture.remove(second) }
        #expect(try Tool.run(["report", "--warehouse", url, "-o", second, "--quiet"]).status == 0)
        expectSame(filesOut, second)
    }

    /// Sniffer's captures whose endings diagnose infers (`blegen.air --silent N`: 0x08, and 0x3E
    /// when the peripheral never answered; Core v5.4 Vol 6 Part B 4.5.2) and one ended by an
    /// LL_TERMINATE_IND: the warehouse counts them, marked inferred, as the report on files does.
    @Test func inferredAirEndingsAsTheReportOnFiles() throws {
        let cluster = try PostgresCluster.get()
        let url = try cluster.createDatabase()
        let dir = Fixture.scratch(), filesOut = Fixture.scratch(), warehouseOut = Fixture.scratch()
        defer { for d in [dir, filesOut, warehouseOut] { Fixture.remove(d) } }
        try BlegenSessions.run("air", ["--silent", "100", dir + "/silent.pcap"])
        try BlegenSessions.run("air", ["--silent", "0", dir + "/never.pcap"])
        try BlegenSessions.run("air", [dir + "/air"])
        #expect(try Tool.run(["report", dir, "-o", filesOut, "--quiet"]).status == 0)
        #expect(try Tool.run(["ingest", dir, "--warehouse", url]).status == 0)
        #expect(try Tool.run(["report", "--warehouse", url, "-o", warehouseOut, "--quiet"]).status == 0)
        expectSame(filesOut, warehouseOut)
        let csv = Fixture.read(warehouseOut + "/disconnect_reasons.csv")
        #expect(csv.contains("8,0x08,Connection Timeout (inferred),"), "\(csv)")
        #expect(csv.contains("62,0x3E,Connection Failed to be Established (inferred),"), "\(csv)")
        #expect(csv.contains("19,0x13,Remote User Terminated Connection,"), "\(csv)")
    }

    /// A capture ingested bare, then inside a bugreport: the bugreport's phone identity is added
    /// to the stored capture, so the warehouse holds what ingesting them the other way round holds.
    @Test func aBugreportAddsItsPhoneToACaptureIngestedBare() throws {
        let cluster = try PostgresCluster.get()
        let dir = Fixture.scratch()
        defer { Fixture.remove(dir) }
        let zipper = Process()
        zipper.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        zipper.arguments = ["python3", Fixture.packageRoot + "/Scripts/make_bugreport_zip.py", "--layout", "o",
                            "-o", dir + "/o.zip", Fixture.shared("android-yeelock.btsnoop")]
        try zipper.run()
        zipper.waitUntilExit()
        #expect(zipper.terminationStatus == 0)
        var phones: [String] = []
        for order in [[Fixture.shared("android-yeelock.btsnoop"), dir + "/o.zip"], [dir + "/o.zip", Fixture.shared("android-yeelock.btsnoop")]] {
            let url = try cluster.createDatabase()
            for input in order {
                let r = try Tool.run(["ingest", input, "--warehouse", url])
                #expect(r.status == 0, "\(r.stderr)")
            }
            let db = try PostgresConnection(WarehouseURL(url))
            #expect(try db.count("SELECT count(*) FROM blereplay.capture") == 1)
            phones.append(try db.execute("SELECT phone_manufacturer || '|' || phone_model || '|' || android_version FROM blereplay.capture")
                .first?.first.flatMap { $0 } ?? "")
        }
        #expect(phones == ["Google|Pixel 7|14", "Google|Pixel 7|14"])
    }

    @Test func sinceAndUntilSelectByFirstTimestamp() throws {
        let cluster = try PostgresCluster.get()
        let url = try cluster.createDatabase()
        let dir = Fixture.scratch(), filesOut = Fixture.scratch(), warehouseOut = Fixture.scratch()
        defer { for d in [dir, filesOut, warehouseOut] { Fixture.remove(d) } }
        // SpecCapture starts at 2026-05-04T08:00:00Z; these begin 0, 3 and 9 days later.
        for (day, name) in [(0, "a"), (3, "b"), (9, "c")] {
            var c = SpecCaptureDays(day: day)
            try c.write(peer: [0xD0, 0, 0, 0, 0, UInt8(day)], reason: day == 3 ? 0x3E : 0x13, to: "\(dir)/\(name).btsnoop")
        }
        #expect(try Tool.run(["ingest", dir, "--warehouse", url]).status == 0)
        let window = try Tool.run(["report", "--warehouse", url, "--since", "2026-05-06T00:00:00Z", "--until", "2026-05-08T00:00:00Z",
                                   "-o", warehouseOut, "--quiet"])
        #expect(window.status == 0, "\(window.stderr)")
        #expect(try Tool.run(["report", "\(dir)/b.btsnoop", "-o", filesOut, "--quiet"]).status == 0)
        expectSame(filesOut, warehouseOut)
        let none = try Tool.run(["report", "--warehouse", url, "--since", "2027-01-01T00:00:00Z", "-o", warehouseOut + "/none"])
        #expect(none.status == 65)
        #expect(none.stderr.contains("no capture in that window"))
        #expect(try Tool.run(["report", "--warehouse", url, "--since", "12.5"]).status == 2)
    }
}

/// Captures that begin `day` days after SpecCapture's epoch, with one connection.
struct SpecCaptureDays {
    var day: Int

    mutating func write(peer: [UInt8], reason: UInt8, to path: String) throws {
        var c = SpecCapture()
        let t = Int64(day) * 86_400_000
        c.connectionComplete(t + 10, handle: 0x0041, role: 0, peer: peer)
        c.disconnectionComplete(t + 2_000, handle: 0x0041, reason: reason)
        try c.write(to: path)
    }
}
