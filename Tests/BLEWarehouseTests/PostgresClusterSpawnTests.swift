import Foundation
import Testing

/// The cluster's server and watchdog live as long as the test process; a descriptor of another
/// test's they inherited (a pipe or socket some test reads to end-of-file) made that test wait for
/// ever. A command `PostgresCluster` spawns inherits nothing but its standard streams.
@Suite struct PostgresClusterSpawnTests {
    @Test func aSpawnedCommandInheritsNoOtherDescriptor() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)   // no O_CLOEXEC, as a concurrent spawn's pipe is for a moment
        defer { close(ends[0]); close(ends[1]) }
        let listing = NSTemporaryDirectory() + "spawned-fds-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: listing) }
        try PostgresCluster.run(["/bin/sh", "-c", "ls /proc/$$/fd > '\(listing)'"])
        let open = try String(contentsOfFile: listing, encoding: .utf8).split(separator: "\n").compactMap { Int32($0) }
        #expect(!open.contains(ends[0]) && !open.contains(ends[1]), "inherited: \(open)")
        #expect(open.allSatisfy { $0 <= 2 || $0 >= 10 }, "inherited: \(open)")   // sh may keep its own at 10+
    }
}
