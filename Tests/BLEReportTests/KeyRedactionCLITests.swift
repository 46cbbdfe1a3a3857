import Foundation
import Testing
import TestSupport

/// Key material never leaves the tool unless asked for: every command that prints or writes is
/// run on a spec-built capture full of known keys (`KeyMaterialCapture`), and every byte it
/// printed or wrote, and the timeline file itself, is scanned for them.
@Suite(.serialized) struct KeyRedactionCLITests {
    /// One output: what produced it and its bytes.
    struct Output {
        var what: String
        var bytes: [UInt8]
        var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    /// Runs `arguments`, expecting `status`, and keeps stdout and stderr.
    static func run(_ arguments: [String], status: Int32 = 0, into outputs: inout [Output]) throws {
        let r = try Tool.run(arguments)
        #expect(r.status == status, "\(arguments): \(r.stderr)")
        outputs.append(Output(what: arguments.joined(separator: " ") + " (stdout)", bytes: Array(r.stdout.utf8)))
        outputs.append(Output(what: arguments.joined(separator: " ") + " (stderr)", bytes: Array(r.stderr.utf8)))
    }

    static func file(_ path: String, _ outputs: inout [Output]) {
        let data = Support.read(path)
        #expect(!data.isEmpty, "\(path) was not written")
        outputs.append(Output(what: path, bytes: Array(data)))
    }

    /// Every output of every command, for a capture at `capture` imported into `db`.
    static func allOutputs(capture: String, db: String, dir: String) throws -> [Output] {
        var o: [Output] = []
        try run(["import", capture, "--db", db], into: &o)
        file(db, &o)
        for args in [[], ["-v"], ["--json"], ["-v", "--json"], ["--layer", "smp", "-v"], ["--layer", "hci", "-v", "--json"]] {
            try run(["timeline", capture] + args, into: &o)
            try run(["timeline", db] + args, into: &o)
        }
        try run(["diagnose", capture], into: &o)
        try run(["diagnose", db, "--json"], into: &o)
        try run(["gatt", capture], into: &o)
        try run(["gatt", db, "--json"], into: &o)
        let reports = dir + "/reports"
        try run(["report", capture, "-o", reports, "--format", "html,md,json,csv"], into: &o)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: reports)) ?? [] { file(reports + "/" + name, &o) }
        for format in ["btsnoop", "pcap", "trace"] {
            try run(["export", db, "--format", format, "-o", dir + "/export." + format], into: &o)
            file(dir + "/export." + format, &o)
        }
        // Replay: exit 0 or 1 (a diverged replay is still output to scan), never a crash.
        for args in [[], ["--json"], ["--junit", dir + "/junit.xml"], ["--write-capture", dir + "/replay.btsnoop"]] {
            let r = try Tool.run(["replay", db] + args)
            #expect(r.status == 0 || r.status == 1, "replay \(args): \(r.status) \(r.stderr)")
            o.append(Output(what: "replay \(args) (stdout)", bytes: Array(r.stdout.utf8)))
            o.append(Output(what: "replay \(args) (stderr)", bytes: Array(r.stderr.utf8)))
        }
        file(dir + "/junit.xml", &o)
        file(dir + "/replay.btsnoop", &o)
        return o
    }

    /// Names of the secrets found in `outputs`, with where.
    static func leaks(_ secrets: [(String, [UInt8])], in outputs: [Output]) -> [String] {
        var found: [String] = []
        for out in outputs {
            let names = KeyMaterialCapture.runsFound(secrets, in: out.bytes)
                .union(KeyMaterialCapture.hexRunsFound(secrets, in: out.text))
            found += names.sorted().map { "\($0) in \(out.what)" }
        }
        return found
    }

    @Test func noCommandPrintsOrWritesAKey() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let capture = dir + "/keys.btsnoop"
        try KeyMaterialCapture.build().write(to: capture)
        let outputs = try Self.allOutputs(capture: capture, db: dir + "/keys.db", dir: dir)
        let leaks = Self.leaks(KeyMaterialCapture.secrets, in: outputs)
        #expect(leaks.isEmpty, "\(leaks.joined(separator: "\n"))")

        // What is not key material is still there: public keys, DHKey Check, Rand, in the raw bytes.
        let timelineFile = try #require(outputs.first { $0.what.hasSuffix("keys.db") })
        let kept = KeyMaterialCapture.runsFound(KeyMaterialCapture.publicValues, in: timelineFile.bytes)
        #expect(kept == Set(KeyMaterialCapture.publicValues.map(\.0)))
        // Lengths unchanged: the export has as many bytes as the capture, and differs only in zeros.
        let original = Array(Support.read(capture))
        let exported = Array(Support.read(dir + "/export.btsnoop"))
        #expect(original.count > 2000, "the capture was not read back")
        #expect(KeyMaterialCapture.runsFound(KeyMaterialCapture.secrets, in: original).count == KeyMaterialCapture.secrets.count)
        #expect(exported.count == original.count)
        let changed = zip(original, exported).filter { $0 != $1 }
        #expect(!changed.isEmpty)
        #expect(changed.allSatisfy { $0.1 == 0 })
    }

    @Test func keepKeysKeepsThem() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let capture = dir + "/keys.btsnoop"
        try KeyMaterialCapture.build().write(to: capture)
        #expect(try Tool.run(["import", capture, "--db", dir + "/k.db", "--keep-keys"]).status == 0)
        let db = Array(Support.read(dir + "/k.db"))
        #expect(KeyMaterialCapture.runsFound(KeyMaterialCapture.secrets, in: db) == Set(KeyMaterialCapture.secrets.map(\.0)))
        #expect(try Tool.run(["export", dir + "/k.db", "--format", "btsnoop", "-o", dir + "/k.btsnoop"]).status == 0)
        #expect(Support.read(dir + "/k.btsnoop") == Support.read(capture))
        let verbose = try Tool.run(["timeline", capture, "-v", "--keep-keys"])
        #expect(KeyMaterialCapture.hexRunsFound(KeyMaterialCapture.secrets, in: verbose.stdout).contains("peer LTK (fragmented)"))
    }
}
