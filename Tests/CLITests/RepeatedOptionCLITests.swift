import Foundation
import Testing

/// Options given more than once.
@Suite struct RepeatedOptionCLITests {
    /// An option of one value given twice with different values used to keep the last silently
    /// (`--connection 1 --connection 2` showed connection 2 only), and of `-o a --output b` the
    /// one spelt `-o`, whichever came last. Now it is a usage error naming both; the same value
    /// twice is still accepted, and `replay --inject` keeps every value.
    @Test(arguments: [
        (["timeline", "SAMPLE", "--connection", "1", "--connection", "2"], "--connection '1' and --connection '2': --connection takes one value"),
        (["timeline", "SAMPLE", "--limit=1", "--limit", "3"], "--limit '1' and --limit '3': --limit takes one value"),
        (["diagnose", "SAMPLE", "--fail-on", "warning", "--fail-on", "error"], "--fail-on 'warning' and --fail-on 'error'"),
        (["export", "DB", "--format", "pcap", "-o", "a.pcap", "--output", "b.pcap"], "-o 'a.pcap' and --output 'b.pcap': -o, --output takes one value"),
        (["export", "DB", "--format", "pcap", "--output", "b.pcap", "-o", "a.pcap"], "--output 'b.pcap' and -o 'a.pcap': -o, --output takes one value"),
        (["import", "SAMPLE", "--db", "a.db", "--db", "b.db"], "--db 'a.db' and --db 'b.db'"),
        (["record", "--stdin", "-o", "a.btsnoop", "-o", "b.btsnoop"], "-o 'a.btsnoop' and -o 'b.btsnoop'"),
    ])
    func anOptionGivenTwiceWithDifferentValuesIsAUsageError(arguments: [String], message: String) throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sample = CLI.sample("heart-rate-supervision-timeout.btsnoop")
        let line = arguments.map { $0 == "SAMPLE" ? sample : $0 == "DB" ? dir.path + "/t.db" : $0 }
        if line.contains(dir.path + "/t.db") {
            #expect(try CLI.run(["import", sample, "--db", dir.path + "/t.db"]).status == 0)
        }
        let r = try CLI.run(line, cwd: dir)
        #expect(r.status == 2, "\(line): \(r.stderr)")
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(r.stdout == "")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { !$0.hasPrefix("t.db") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func theSameValueTwiceAndRepeatableOptionsStillWork() throws {
        let sample = CLI.sample("heart-rate-supervision-timeout.btsnoop")
        let twice = try CLI.run(["timeline", sample, "--connection", "1", "--connection=1", "--limit", "1"])
        #expect(twice.status == 0, "\(twice.stderr)")
        #expect(twice.stdout.contains("[conn 1]"))
        // `--inject` is repeatable: two faults, both kept, both fire.
        let replay = try CLI.run(["replay", sample, "--inject", "att-error:0x0E@read-by-type-request#1",
                                  "--inject", "att-error:0x0E@read-request#1"])
        #expect(replay.stderr == "", "\(replay.stderr)")
        #expect(replay.stdout.contains("fault fired: t+1.468445 s (capture) att-error:0x0E@read-by-type-request#1"), "\(replay.stdout)")
        #expect(replay.stdout.contains("att-error:0x0E@read-request#1"), "\(replay.stdout)")
    }
}
