import Foundation
import Testing

/// `diagnose` and `gatt` hold one connection (one GATT server) at a time, not every link's, and
/// `export --format trace` one event (issue 17): their peak memory does not grow with the number
/// of links. Measured as the kernel's peak RSS of the process (`/usr/bin/time -f %M`) on two
/// many-links files (`blegen.adversarial --links`, one ATT Write Command per link, inferred
/// connections).
/// Before the streaming they held ~4 KiB (diagnose) and ~1.7 KiB (gatt) per link: 5,632 more
/// links cost them ~23 MB and ~9 MB.
@Suite("memory against the number of links", .serialized)
struct LinkMemoryCLITests {
    static let directory = CLI.temporaryDirectory()

    /// A timeline of `controllers` x `handles` links.
    static func timeline(controllers: Int, handles: Int) throws -> String {
        let capture = directory.appendingPathComponent("links-\(controllers)x\(handles).btsnoop").path
        _ = try AdversarialCorpusTests.python(["-m", "blegen.adversarial", "--links", String(controllers), String(handles), capture])
        let db = capture + ".db"
        let r = try CLI.run(["import", capture, "--db", db, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        return db
    }

    /// Peak resident memory in KiB of `blereplay ARGS`, with its output discarded; `statuses` are
    /// the exit statuses the run may end with (`replay` exits 1 when a connection diverged).
    static func peakKiB(_ arguments: [String], statuses: Set<Int32> = [0]) throws -> Int {
        let report = directory.appendingPathComponent("time-\(UUID().uuidString)").path
        let r = try CLIProcesses.Running(["-f", "%M", "-o", report, CLI.executable.path] + arguments,
                                         executable: URL(fileURLWithPath: "/usr/bin/time")).wait()
        #expect(statuses.contains(r.status) && !r.signalled, "\(arguments): \(r.stderr.suffix(400))")
        let text = try String(contentsOfFile: report, encoding: .utf8)
        return Int(text.split(separator: "\n").last.map(String.init) ?? "") ?? 0
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time")),
          arguments: [["diagnose"], ["diagnose", "--json"], ["gatt"], ["gatt", "--json"]])
    func peakMemoryIsFlat(_ command: [String]) throws {
        let small = try Self.small, large = try Self.large
        let few = try Self.peakKiB([command[0], small] + command.dropFirst())
        let many = try Self.peakKiB([command[0], large] + command.dropFirst())
        // 5,632 more links (6,144 against 512): within 4 MB, where holding them cost 9-23 MB.
        #expect(many - few < 4 * 1024, "\(command.joined(separator: " ")): \(few) KiB at 512 links, \(many) KiB at 6,144")
    }

    /// `export --format trace` writes each event as it is made: before, it held every event as
    /// a JSON value and then the whole text, ~3.5 KiB per link (5,632 more links cost ~19 MB).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time")))
    func traceExportPeakMemoryIsFlat() throws {
        let small = try Self.small, large = try Self.large
        let output = Self.directory.appendingPathComponent("links.trace.json").path
        let few = try Self.peakKiB(["export", small, "--format", "trace", "-o", output])
        let many = try Self.peakKiB(["export", large, "--format", "trace", "-o", output])
        // The larger trace was written whole: its last connection's track, then the closing line.
        let text = try String(contentsOfFile: output, encoding: .utf8)
        #expect(text.hasSuffix("\n],\"displayTimeUnit\":\"ms\"}\n"))
        #expect(text.components(separatedBy: "\"name\":\"thread_name\"").count - 1 == 2 + 6_144)
        #expect(many - few < 4 * 1024, "export --format trace: \(few) KiB at 512 links, \(many) KiB at 6,144")
    }

    static let smallTimeline = Result { try timeline(controllers: 2, handles: 256) }
    static let largeTimeline = Result { try timeline(controllers: 2, handles: 3072) }
    static var small: String { get throws { try smallTimeline.get() } }
    static var large: String { get throws { try largeTimeline.get() } }
}
