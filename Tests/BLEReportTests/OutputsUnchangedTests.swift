import Foundation
import Testing
import BLECore
import BLETimeline

/// The outputs of `import` and `report` are what they were before the speed work of issue 12:
/// every table of the timeline of every sample and shared capture, and every report file byte for
/// byte, against digests recorded from the code as it was (`Tests/OutputGoldens/outputs.txt`,
/// written by `Scripts/record_output_goldens.py`, which documents the rendering).
///
/// A table's digest is over its rows rendered by SQLite's `quote()` of each stored column, joined
/// with `|` and sorted by SQLite, so the comparison is of contents, not of row order or file layout.
@Suite("outputs unchanged by the speed work", .serialized)
struct OutputsUnchangedTests {
    struct Golden {
        var imports: [(capture: String, exit: Int32)] = []
        var tables: [String: [String: (rows: Int, digest: String)]] = [:]
        var reportExit: Int32 = 0
        var reportFiles: [String: String] = [:]
    }

    static func golden() throws -> Golden {
        let url = Support.packageRoot.appendingPathComponent("Tests/OutputGoldens/outputs.txt")
        var g = Golden()
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") where !line.hasPrefix("#") {
            let f = line.split(separator: " ").map(String.init)
            switch f.first {
            case "import": g.imports.append((f[1], Int32(f[2]) ?? -1))
            case "timeline": g.tables[f[1], default: [:]][f[2]] = (Int(f[3]) ?? -1, f[4])
            case "report-exit": g.reportExit = Int32(f[1]) ?? -1
            case "report": g.reportFiles[f[1]] = f[2]
            default: Issue.record("unknown golden line: \(line)")
            }
        }
        return g
    }

    /// (rows, digest) per table, rendered as the recorder renders them.
    static func tableDigests(_ path: String) throws -> [String: (rows: Int, digest: String)] {
        let db = try SQLiteDatabase(path: path, readOnly: true)
        var out: [String: (rows: Int, digest: String)] = [:]
        let tables = try db.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            .compactMap { $0[0].string }
        for table in tables {
            let columns = try db.rows("PRAGMA table_info(\"\(table)\")").compactMap { $0[1].string }
            let line = columns.map { "quote(\"\($0)\")" }.joined(separator: " || '|' || ")
            let rows = try db.rows("SELECT \(line) AS line FROM \"\(table)\" ORDER BY line").map { $0[0].string ?? "" }
            var h = SHA256()
            h.update(Array(rows.joined(separator: "\n").utf8))
            out[table] = (rows.count, hexString(h.finalize()))
        }
        return out
    }

    @Test func timelinesAreUnchanged() throws {
        let g = try Self.golden()
        #expect(g.imports.count >= 20, "the golden lists the sample and shared captures")
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        for (i, (capture, exit)) in g.imports.enumerated() {
            let db = "\(dir)/\(i).db"
            let r = try Tool.run(["import", capture, "--db", db])
            #expect(r.status == exit, "import \(capture): exit \(r.status), was \(exit): \(r.stderr)")
            let want = g.tables[capture] ?? [:]
            guard FileManager.default.fileExists(atPath: db) else {
                #expect(want.isEmpty, "import \(capture) wrote no timeline, it used to")
                continue
            }
            let got = try Self.tableDigests(db)
            #expect(Set(got.keys) == Set(want.keys), "\(capture): tables \(got.keys.sorted())")
            for (table, w) in want.sorted(by: { $0.key < $1.key }) {
                guard let have = got[table] else { continue }
                #expect(have.rows == w.rows && have.digest == w.digest,
                        "\(capture) table \(table): \(have.rows) rows \(have.digest), was \(w.rows) rows \(w.digest)")
            }
        }
    }

    @Test(arguments: [1, 2])
    func reportIsUnchangedByteForByte(jobs: Int) throws {
        let g = try Self.golden()
        let out = Support.scratch()
        defer { Support.remove(out) }
        let r = try Tool.run(["report"] + g.imports.map(\.capture) + ["-o", out, "--jobs", String(jobs), "--quiet"])
        #expect(r.status == g.reportExit, "report exit \(r.status), was \(g.reportExit): \(r.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(files == g.reportFiles.keys.sorted())
        for name in files {
            var h = SHA256()
            h.update(Array(Support.read("\(out)/\(name)")))
            #expect(hexString(h.finalize()) == g.reportFiles[name], "report \(name) differs from the recorded one (--jobs \(jobs))")
        }
    }
}
