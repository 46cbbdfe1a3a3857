import Foundation
import Testing

/// `replay DB` reads the timeline in one read transaction (issue 17): outside one, SQLite took
/// and dropped its file lock around each of the loader's statements, about twenty file-lock
/// calls (fcntl) per connection, a third of the replay's CPU time at 61,440 links. Counted with
/// `strace -c` on the many-links timelines of `LinkMemoryCLITests` (512 and 6,144 links).
@Suite("system calls against the number of links", .serialized)
struct LinkSystemCallCLITests {
    static let strace = ["/usr/bin/strace", "/bin/strace"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The fcntl(2) calls `blereplay ARGS` makes.
    static func fileLockCalls(_ arguments: [String]) throws -> Int {
        let report = LinkMemoryCLITests.directory.appendingPathComponent("strace-\(UUID().uuidString)").path
        let r = try CLIProcesses.Running(["-f", "-c", "-e", "trace=fcntl", "-o", report, CLI.executable.path] + arguments,
                                         executable: URL(fileURLWithPath: strace ?? "")).wait()
        #expect(r.status == 0, "\(arguments): \(r.stderr.suffix(400))")
        let line = try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n").first { $0.hasSuffix(" fcntl") }
        let fields = line?.split(separator: " ") ?? []
        return fields.count >= 4 ? Int(fields[3]) ?? 0 : 0
    }

    @Test(.enabled(if: strace != nil, "needs strace"))
    func replayFileLockCallsDoNotGrowWithTheLinks() throws {
        let few = try Self.fileLockCalls(["replay", try LinkMemoryCLITests.small])
        let many = try Self.fileLockCalls(["replay", try LinkMemoryCLITests.large])
        // 5,632 more links: within 1,000 calls, where a lock per statement cost ~110,000 more.
        #expect(many - few < 1_000, "replay: \(few) fcntl calls at 512 links, \(many) at 6,144")
    }
}
