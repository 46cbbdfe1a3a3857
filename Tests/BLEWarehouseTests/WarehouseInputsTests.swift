import Foundation
import Testing
import BLEWarehouse

/// The Inputs table of `report --warehouse` lists every input the warehouse was given, as `report`
/// over the same files lists them: read, `failed` with the reason, `duplicate` of the capture it is
/// counted in (the same capture, or the longer copy of a log), whatever the order of the ingests.
@Suite(.serialized) struct WarehouseInputsTests {
    func outputs(_ directory: String) -> [String: String] {
        var out: [String: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            out[name] = Fixture.read(directory + "/" + name)
        }
        return out
    }

    /// A folder holding every kind of input: three generated sessions (`gen/`), a copy of one of
    /// them (`zz-same.btsnoop`, the same SHA-256), a log copied while it was written and again
    /// later (`logs/`: the first 40 % of the bytes of the largest of three other sessions, cut
    /// inside a record, and all of them), and a file that is no capture.
    func folder(_ dir: String) throws -> (inputs: [String], same: String) {
        try Fixture.sessions(seed: 4100, count: 3, into: dir + "/gen")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/gen").sorted()
        let files = try names.map { try Data(contentsOf: URL(fileURLWithPath: "\(dir)/gen/\($0)")) }
        try Fixture.sessions(seed: 4200, count: 3, into: dir + "/log")
        let full = try FileManager.default.contentsOfDirectory(atPath: dir + "/log")
            .map { try Data(contentsOf: URL(fileURLWithPath: "\(dir)/log/\($0)")) }.max { $0.count < $1.count }!
        Fixture.remove(dir + "/log")
        try FileManager.default.createDirectory(atPath: dir + "/logs", withIntermediateDirectories: true)
        try full.prefix(full.count * 2 / 5).write(to: URL(fileURLWithPath: dir + "/logs/a-copied-early.log"))
        try full.write(to: URL(fileURLWithPath: dir + "/logs/b-copied-late.log"))
        try files[0].write(to: URL(fileURLWithPath: dir + "/zz-same.btsnoop"))
        try Data(repeating: 0x42, count: 300).write(to: URL(fileURLWithPath: dir + "/not-a-capture.btsnoop"))
        let inputs = names.map { "\(dir)/gen/\($0)" } + [dir + "/logs/a-copied-early.log", dir + "/logs/b-copied-late.log",
                                                          dir + "/not-a-capture.btsnoop", dir + "/zz-same.btsnoop"]
        return (inputs, "\(dir)/gen/\(names[0])")
    }

    /// `report` over `dir` and `report --warehouse` give the same files, the Inputs table included.
    func expectSameReport(_ url: String, folder dir: String, withFailed: Bool = true) throws {
        let filesOut = Fixture.scratch(), warehouseOut = Fixture.scratch()
        defer { Fixture.remove(filesOut); Fixture.remove(warehouseOut) }
        let files = try Tool.run(["report", dir, "-o", filesOut, "--quiet"])
        #expect(files.status == (withFailed ? 65 : 0), "\(files.stderr)")
        let warehouse = try Tool.run(["report", "--warehouse", url, "-o", warehouseOut, "--quiet"])
        #expect(warehouse.status == 0, "\(warehouse.stderr)")
        let a = outputs(filesOut), b = outputs(warehouseOut)
        #expect(a.count > 20 && a.keys.sorted() == b.keys.sorted())
        for (name, text) in a.sorted(by: { $0.key < $1.key }) {
            #expect(text == b[name], "\(name) differs:\n\(text)\n---\n\(b[name] ?? "(missing)")")
        }
        guard withFailed else { return }
        let csv = Fixture.read(warehouseOut + "/inputs.csv")
        #expect(csv.contains("/not-a-capture.btsnoop,capture,failed,,0,"), "\(csv)")
        #expect(csv.contains("/zz-same.btsnoop,capture,duplicate,"), "\(csv)")
        #expect(csv.contains("/logs/a-copied-early.log,capture,duplicate,"), "\(csv)")
    }

    @Test func oneIngestOfTheFolder() throws {
        let cluster = try PostgresCluster.get()
        let dir = Fixture.scratch()
        defer { Fixture.remove(dir) }
        _ = try folder(dir)
        for jobs in ["1", "2"] {
            let url = try cluster.createDatabase()
            let ingest = try Tool.run(["ingest", dir, "--warehouse", url, "--jobs", jobs])
            #expect(ingest.status == 65, "\(ingest.stderr)")
            #expect(ingest.stderr.contains("not-a-capture.btsnoop"), "\(ingest.stderr)")
            try expectSameReport(url, folder: dir)
        }
    }

    /// One ingest per input, in either order: what the warehouse lists does not depend on which
    /// copy of a capture came first.
    @Test(arguments: [false, true])
    func oneIngestPerInput(reversed: Bool) throws {
        let cluster = try PostgresCluster.get()
        let dir = Fixture.scratch()
        defer { Fixture.remove(dir) }
        let (inputs, _) = try folder(dir)
        let url = try cluster.createDatabase()
        for input in reversed ? inputs.reversed() : inputs {
            let r = try Tool.run(["ingest", input, "--warehouse", url])
            #expect(r.status == (input.hasSuffix("not-a-capture.btsnoop") ? 65 : 0), "\(input): \(r.stderr)")
        }
        try expectSameReport(url, folder: dir)
    }

    /// An Android bugreport's logs (Docs/android.md) also given bare, before and after the zip in
    /// path order: the notes of the Inputs table say which copy brought the phone's identity, as
    /// `report` says it.
    @Test(arguments: [false, true])
    func bugreportLogsAlsoGivenBare(reversed: Bool) throws {
        let cluster = try PostgresCluster.get()
        let dir = Fixture.scratch()
        defer { Fixture.remove(dir) }
        let zipper = Process()
        zipper.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        zipper.arguments = ["python3", Fixture.packageRoot + "/Scripts/make_bugreport_zip.py", "--layout", "o", "-o", dir + "/bugreport.zip",
                            Fixture.shared("android-yeelock.btsnoop"), Fixture.shared("android-lock-pairing.btsnoop")]
        try zipper.run()
        zipper.waitUntilExit()
        #expect(zipper.terminationStatus == 0)
        try FileManager.default.copyItem(atPath: Fixture.shared("android-lock-pairing.btsnoop"), toPath: dir + "/a-pairing.btsnoop")
        try FileManager.default.copyItem(atPath: Fixture.shared("android-yeelock.btsnoop"), toPath: dir + "/zz-yeelock.btsnoop")
        let url = try cluster.createDatabase()
        let inputs = [dir + "/a-pairing.btsnoop", dir + "/bugreport.zip", dir + "/zz-yeelock.btsnoop"]
        for input in reversed ? inputs.reversed() : inputs {
            let r = try Tool.run(["ingest", input, "--warehouse", url])
            #expect(r.status == 0, "\(input): \(r.stderr)")
        }
        try expectSameReport(url, folder: dir, withFailed: false)
    }

    /// A window leaves out the inputs whose captures are outside it, and the unreadable ones
    /// (they have no time); a duplicate is listed with the capture it is counted in.
    @Test func aWindowListsTheDuplicatesOfItsCaptures() throws {
        let cluster = try PostgresCluster.get()
        let dir = Fixture.scratch(), out = Fixture.scratch()
        defer { Fixture.remove(dir); Fixture.remove(out) }
        let (_, same) = try folder(dir)
        let url = try cluster.createDatabase()
        _ = try Tool.run(["ingest", dir, "--warehouse", url, "--jobs", "1"])
        let r = try Tool.run(["report", "--warehouse", url, "--since", "2000-01-01T00:00:00Z", "-o", out, "--format", "csv", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let csv = Fixture.read(out + "/inputs.csv")
        #expect(!csv.contains("not-a-capture"), "\(csv)")
        #expect(csv.contains("/zz-same.btsnoop,capture,duplicate,"), "\(csv)")
        #expect(csv.contains("already counted from \(same)"), "\(csv)")
    }
}
