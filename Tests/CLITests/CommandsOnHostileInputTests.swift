import Foundation
import Testing

/// The `make test` sample of `make fuzz`'s second stage (Scripts/fuzz_commands.py, issue 17): a
/// handful of hostile inputs through every command line of `Fuzz/commands.txt`, each in its own
/// directory with an empty TMPDIR. No run may die of a signal, exit outside the table's
/// documented codes, print a trap or backtrace, or leave a temporary file behind.
@Suite("every command on hostile input")
struct CommandsOnHostileInputTests {
    /// `Fuzz/commands.txt`: the exit codes allowed, the stderr markers of a crash, the command lines.
    struct Table {
        var codes: Set<Int32> = []
        var markers: [String] = []
        var commands: [String] = []

        init(_ text: String) {
            for line in text.split(separator: "\n").map(String.init) where !line.hasPrefix("#") && !line.isEmpty {
                if line.hasPrefix("exit ") {
                    codes.formUnion(line.split(separator: " ").dropFirst().compactMap { Int32($0) })
                } else if line.hasPrefix("marker ") {
                    markers.append(String(line.dropFirst("marker ".count)))
                } else {
                    commands.append(line)
                }
            }
        }
    }

    static let table = Table((try? String(contentsOf: CLI.packageRoot.appendingPathComponent("Fuzz/commands.txt"),
                                          encoding: .utf8)) ?? "")
    static let directory = CLI.temporaryDirectory()

    /// Three adversarial shapes at their `make test` scale (many links with never-completing
    /// reassemblies, 64 KiB records and extreme timestamps in one file; 64-bit pcapng ticks past
    /// any time_t; 64 KiB PacketLogger records), a sample capture cut inside a record, and a
    /// file that is no capture at all.
    static let inputs: [String] = {
        let shapes = ["mix.btsnoop", "ts-int64-max.pcapng", "huge-att.pklg"]
        _ = try? AdversarialCorpusTests.python(["-m", "blegen.adversarial", directory.path] + shapes.flatMap { ["--only", $0] })
        var out = shapes.map { directory.appendingPathComponent($0).path }
        if let sample = FileManager.default.contents(atPath: CLI.sample("heart-rate-supervision-timeout.btsnoop")) {
            let cut = directory.appendingPathComponent("cut-in-a-record.btsnoop")
            try? sample.prefix(sample.count * 3 / 5 + 7).write(to: cut)
            out.append(cut.path)
        }
        let text = directory.appendingPathComponent("not-a-capture.btsnoop")
        try? Data("this is not a capture\n".utf8).write(to: text)
        return out + [text.path]
    }()

    @Test func theTableNamesEveryCommand() throws {
        let reference = try String(contentsOf: CLI.packageRoot.appendingPathComponent("Docs/cli.md"), encoding: .utf8)
        let documented = reference.split(separator: "\n").filter { $0.hasPrefix("## ") }.map { String($0.dropFirst(3)) }
        let tabled = Set(Self.table.commands.compactMap { $0.split(separator: " ").first.map(String.init) })
        #expect(documented.count >= 9)
        // `ingest` needs a PostgreSQL warehouse (its own tests start one).
        for command in documented where command != "ingest" {
            #expect(tabled.contains(command), "Fuzz/commands.txt has no `\(command)` line")
        }
        #expect(Self.table.codes == [0, 1, 65])
        #expect(Self.table.markers.contains("Fatal error"))
    }

    @Test(arguments: inputs)
    func everyCommand(_ input: String) throws {
        #expect(FileManager.default.fileExists(atPath: input), "the generator did not write \(input)")
        let work = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let tmp = work.appendingPathComponent("tmp"), out = work.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let name = URL(fileURLWithPath: input).lastPathComponent
        for line in Self.table.commands {
            var line = line
            var stdin: String?
            if line.hasSuffix("< {input}") {
                line = String(line.dropLast("< {input}".count)).trimmingCharacters(in: .whitespaces)
                stdin = input
            }
            let arguments = line.split(separator: " ").map {
                $0.replacingOccurrences(of: "{input}", with: input).replacingOccurrences(of: "{db}", with: work.appendingPathComponent("t.db").path)
                    .replacingOccurrences(of: "{out}", with: out.path)
            }
            let r = try CLIProcesses.Running(arguments, environment: ["TMPDIR": tmp.path], stdin: stdin).wait()
            let what = "\(name): \(line)"
            #expect(!r.signalled, "\(what) died of signal \(r.status): \(r.stderr.suffix(600))")
            #expect(r.signalled || Self.table.codes.contains(r.status), "\(what) exited \(r.status): \(r.stderr.suffix(600))")
            for marker in Self.table.markers {
                #expect(!r.stderr.contains(marker), "\(what) printed \(marker): \(r.stderr.suffix(600))")
            }
            #expect(CLIProcesses.names(tmp.path).isEmpty, "\(what) left \(CLIProcesses.names(tmp.path)) in TMPDIR")
            let beside = (FileManager.default.enumerator(atPath: work.path)?.allObjects as? [String] ?? [])
                .filter { !$0.hasPrefix("tmp/") && ($0.contains(".tmp-") || $0.hasSuffix("-journal") || $0.hasSuffix("-wal") || $0.hasSuffix("-shm")) }
            #expect(beside.isEmpty, "\(what) left \(beside)")
            // What one command left is not blamed on the next.
            for name in CLIProcesses.names(tmp.path) { try? FileManager.default.removeItem(at: tmp.appendingPathComponent(name)) }
            for path in beside { try? FileManager.default.removeItem(at: work.appendingPathComponent(path)) }
        }
    }
}
