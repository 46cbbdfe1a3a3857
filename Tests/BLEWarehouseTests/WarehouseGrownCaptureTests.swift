import Foundation
import Testing
import TestSupport
import BLEWarehouse

/// A log ingested while it was still being written (Android's `btsnoop_hci.log`: "the last record
/// may be cut short", REFERENCE.md btsnoop) and again after it grew: the warehouse counts its
/// connections once, from the longer copy, as `report` over the folder does.
@Suite(.serialized) struct WarehouseGrownCaptureTests {
    func outputs(_ directory: String) -> [String: String] {
        var out: [String: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            out[name] = Fixture.read(directory + "/" + name)
        }
        return out
    }

    /// The largest of a few blegen sessions (several connections), and its first 40 % of bytes:
    /// a cut in the middle of a record, as a log copied while it is written.
    func grownLog(in dir: String) throws -> (full: Data, cut: Data) {
        try Fixture.sessions(seed: 1500, count: 6, into: dir + "/gen")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/gen")
        let full = try names.map { try Data(contentsOf: URL(fileURLWithPath: "\(dir)/gen/\($0)")) }.max { $0.count < $1.count }!
        Fixture.remove(dir + "/gen")
        return (full, full.prefix(full.count * 2 / 5))
    }

    func zip(_ capture: String, to path: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", Fixture.packageRoot + "/Scripts/make_bugreport_zip.py", "--layout", "o", "-o", path, capture]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
    }

    /// Compares `report --warehouse` with `report` over the folder as it is at the end: every file,
    /// the Inputs table included (the shorter copy listed as a duplicate of the longer one).
    func expectWarehouseMatchesFolder(_ url: String, folder: String) throws {
        let filesOut = Fixture.scratch(), warehouseOut = Fixture.scratch()
        defer { Fixture.remove(filesOut); Fixture.remove(warehouseOut) }
        #expect(try Tool.run(["report", folder, "-o", filesOut, "--quiet"]).status == 0)
        #expect(try Tool.run(["report", "--warehouse", url, "-o", warehouseOut, "--quiet"]).status == 0)
        let a = outputs(filesOut), b = outputs(warehouseOut)
        #expect(a.count > 20)
        for (name, text) in a.sorted(by: { $0.key < $1.key }) {
            #expect(text == b[name], "\(name) differs")
        }
    }

    @Test func aCaptureThatGrewReplacesItsShorterCopy() throws {
        let cluster = try PostgresCluster.get()
        let url = try cluster.createDatabase()
        let dir = Fixture.scratch()
        defer { Fixture.remove(dir) }
        let (full, cut) = try grownLog(in: dir)
        try FileManager.default.createDirectory(atPath: dir + "/phone", withIntermediateDirectories: true)
        let log = dir + "/phone/btsnoop_hci.log"
        try cut.write(to: URL(fileURLWithPath: log))
        let first = try Tool.run(["ingest", dir + "/phone", "--warehouse", url])
        #expect(first.stdout.contains("1 capture(s) stored"), "\(first.all)")
        try full.write(to: URL(fileURLWithPath: log))
        let second = try Tool.run(["ingest", dir + "/phone", "--warehouse", url])
        #expect(second.status == 0, "\(second.all)")
        #expect(second.stderr.contains("replaces the \(cut.count)-byte copy of this log"), "\(second.stderr)")
        #expect(second.stdout.contains("1 capture(s) stored (1 replacing a shorter copy of their log), 0 already"), "\(second.stdout)")
        let db = try PostgresConnection(WarehouseURL(url))
        #expect(try db.count("SELECT count(*) FROM blereplay.capture") == 1)
        #expect(try db.count("SELECT size_bytes FROM blereplay.capture") == full.count)
        try expectWarehouseMatchesFolder(url, folder: dir + "/phone")
        // Ingesting the grown log again changes nothing.
        #expect(try Tool.run(["ingest", dir + "/phone", "--warehouse", url]).stdout.contains("0 capture(s) stored, 1 already"))
    }

    /// The same inside bugreport zips (the log a zip member, found again as `ZIP!member`).
    @Test func aBugreportLogThatGrewReplacesItsShorterCopy() throws {
        let cluster = try PostgresCluster.get()
        let url = try cluster.createDatabase()
        let dir = Fixture.scratch()
        defer { Fixture.remove(dir) }
        let (full, cut) = try grownLog(in: dir)
        try cut.write(to: URL(fileURLWithPath: dir + "/cut.log"))
        try full.write(to: URL(fileURLWithPath: dir + "/full.log"))
        try FileManager.default.createDirectory(atPath: dir + "/uploads", withIntermediateDirectories: true)
        try zip(dir + "/cut.log", to: dir + "/uploads/bugreport.zip")
        #expect(try Tool.run(["ingest", dir + "/uploads", "--warehouse", url]).stdout.contains("1 capture(s) stored"))
        try zip(dir + "/full.log", to: dir + "/uploads/bugreport.zip")
        let second = try Tool.run(["ingest", dir + "/uploads", "--warehouse", url])
        #expect(second.stderr.contains("which it extends (the log grew)"), "\(second.stderr)")
        let db = try PostgresConnection(WarehouseURL(url))
        #expect(try db.count("SELECT count(*) FROM blereplay.capture") == 1)
        try expectWarehouseMatchesFolder(url, folder: dir + "/uploads")
        #expect(try db.count("SELECT count(*) FROM blereplay.capture WHERE phone_model IS NOT NULL") == 1)
    }

    /// Captures that only begin alike (the fleet corpus starts every capture with the same first
    /// record) are different captures: neither replaces the other.
    @Test func capturesThatOnlyBeginAlikeAreBothKept() throws {
        let cluster = try PostgresCluster.get()
        let dir = Fixture.scratch()
        defer { Fixture.remove(dir) }
        try BlegenSessions.script("make_fleet_corpus.py", [dir + "/fleet", "--count", "2",
                       "--min-records", "300", "--max-records", "600"])
        try? FileManager.default.removeItem(atPath: dir + "/fleet/corpus.txt")
        let a = try Data(contentsOf: URL(fileURLWithPath: dir + "/fleet/c0000.btsnoop"))
        let b = try Data(contentsOf: URL(fileURLWithPath: dir + "/fleet/c0001.btsnoop"))
        #expect(a.prefix(64) == b.prefix(64))
        #expect(a != b)
        let (short, long) = a.count < b.count ? ("c0000", "c0001") : ("c0001", "c0000")
        for (order, database) in [[short, long], [long, short]].map({ ($0, try? cluster.createDatabase()) }) {
            let url = try #require(database)
            #expect(try Tool.run(["ingest", "\(dir)/fleet/\(order[0]).btsnoop", "--warehouse", url]).status == 0)
            let second = try Tool.run(["ingest", "\(dir)/fleet/\(order[1]).btsnoop", "--warehouse", url])
            #expect(second.status == 0)
            #expect(!second.stderr.contains("replaces") && !second.stderr.contains("counted twice"), "\(second.stderr)")
            #expect(try PostgresConnection(WarehouseURL(url)).count("SELECT count(*) FROM blereplay.capture") == 2)
            try expectWarehouseMatchesFolder(url, folder: dir + "/fleet")
        }
    }

    /// An older copy ingested after the longer one: counted from the longer one when its bytes are
    /// still where it was ingested from; otherwise stored, with a warning that it may be counted
    /// twice (the warehouse keeps no bytes).
    @Test func anOlderCopyIngestedAfterTheLongerOne() throws {
        let cluster = try PostgresCluster.get()
        let url = try cluster.createDatabase()
        let dir = Fixture.scratch()
        defer { Fixture.remove(dir) }
        let (full, cut) = try grownLog(in: dir)
        try full.write(to: URL(fileURLWithPath: dir + "/full.log"))
        try cut.write(to: URL(fileURLWithPath: dir + "/cut.log"))
        #expect(try Tool.run(["ingest", dir + "/full.log", "--warehouse", url]).status == 0)
        let older = try Tool.run(["ingest", dir + "/cut.log", "--warehouse", url])
        #expect(older.stdout.contains("0 capture(s) stored, 1 already in the warehouse"), "\(older.all)")
        #expect(older.stderr.contains("/cut.log: an earlier copy of the log stored from \(dir)/full.log"), "\(older.stderr)")
        let db = try PostgresConnection(WarehouseURL(url))
        #expect(try db.count("SELECT count(*) FROM blereplay.capture") == 1)

        // The longer copy's file gone: nothing to compare the rest with.
        try FileManager.default.removeItem(atPath: dir + "/full.log")
        try FileManager.default.moveItem(atPath: dir + "/cut.log", toPath: dir + "/moved.log")
        let unverified = try Tool.run(["ingest", dir + "/moved.log", "--warehouse", url])
        #expect(unverified.stderr.contains("/moved.log: its first "), "\(unverified.stderr)")
        #expect(unverified.stderr.contains("of \(cut.count) bytes are those of \(dir)/full.log (\(full.count) bytes, already stored)"),
                "\(unverified.stderr)")
        #expect(try db.count("SELECT count(*) FROM blereplay.capture") == 2)
    }

    /// Both copies in one folder: `report` counts the longer one and lists the shorter as a
    /// duplicate; `ingest` of the folder, whichever copy its workers store first, holds the same.
    @Test func bothCopiesInOneFolder() throws {
        let cluster = try PostgresCluster.get()
        let dir = Fixture.scratch(), out = Fixture.scratch()
        defer { Fixture.remove(dir); Fixture.remove(out) }
        let (full, cut) = try grownLog(in: dir)
        try FileManager.default.createDirectory(atPath: dir + "/logs", withIntermediateDirectories: true)
        try cut.write(to: URL(fileURLWithPath: dir + "/logs/a-copied-early.log"))
        try full.write(to: URL(fileURLWithPath: dir + "/logs/b-copied-late.log"))
        let report = try Tool.run(["report", dir + "/logs", "-o", out, "--format", "csv"])
        #expect(report.stdout.contains("1 capture(s) from 1 file(s)"), "\(report.all)")
        #expect(Fixture.read(out + "/inputs.csv").contains("/logs/a-copied-early.log,capture,duplicate,"), "\(Fixture.read(out + "/inputs.csv"))")
        for jobs in ["1", "2"] {
            let url = try cluster.createDatabase()
            #expect(try Tool.run(["ingest", dir + "/logs", "--warehouse", url, "--jobs", jobs]).status == 0)
            #expect(try PostgresConnection(WarehouseURL(url)).count("SELECT size_bytes FROM blereplay.capture") == full.count)
            try expectWarehouseMatchesFolder(url, folder: dir + "/logs")
        }
    }
}
