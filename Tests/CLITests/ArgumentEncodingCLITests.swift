import Foundation
import Testing

/// Arguments whose bytes are not UTF-8 (file names from another system's encoding).
@Suite struct ArgumentEncodingCLITests {
    /// Runs `blereplay` through `/bin/sh`, so that arguments can carry bytes a Swift string
    /// cannot (`printf '\377'`): `script` sees the tool as `"$0"`, in `dir`.
    static func shell(_ script: String, in dir: URL) throws -> CLI.Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", script, CLI.executable.path]
        p.currentDirectoryURL = dir
        let out = dir.appendingPathComponent("stdout.txt"), err = dir.appendingPathComponent("stderr.txt")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: out)
        p.standardError = try FileHandle(forWritingTo: err)
        try p.run()
        p.waitUntilExit()
        return CLI.Result(status: p.terminationStatus, stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                          stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }

    /// A capture named `bad\xFF.btsnoop` (Latin-1 byte, not UTF-8) exists, yet Swift would read the
    /// name as `bad\u{FFFD}.btsnoop`: import said "No such file or directory" (exit 65), and
    /// `--db caf\xE9.db` wrote `caf\u{FFFD}.db`, a file the user never named. Both are refused,
    /// naming the argument and its byte, before anything is read or written.
    @Test func argumentsThatAreNotUTF8AreRefusedByName() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(atPath: CLI.sample("heart-rate-healthy.btsnoop"), toPath: dir.path + "/in.btsnoop")
        _ = try Self.shell(#"cp in.btsnoop "$(printf 'bad\377.btsnoop')""#, in: dir)

        let input = try Self.shell(#""$0" import "$(printf 'bad\377.btsnoop')" --db t.db"#, in: dir)
        #expect(input.status == 2)
        #expect(input.stderr.hasPrefix(#"blereplay: argument 2 'bad\xFF.btsnoop' (byte 0xFF at offset 3) is not valid UTF-8"#), "\(input.stderr)")
        #expect(!input.stderr.contains("No such file"))

        let output = try Self.shell(#""$0" import in.btsnoop --db "$(printf 'caf\351.db')""#, in: dir)
        #expect(output.status == 2)
        #expect(output.stderr.hasPrefix(#"blereplay: argument 4 'caf\xE9.db' (byte 0xE9 at offset 3) is not valid UTF-8"#), "\(output.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".db") }
        #expect(written.isEmpty, "a timeline was written under another name: \(written)")

        // UTF-8 names beyond ASCII work as they are.
        try FileManager.default.copyItem(atPath: dir.path + "/in.btsnoop", toPath: dir.path + "/café ✓.btsnoop")
        let fine = try CLI.run(["import", "café ✓.btsnoop", "--db", "café.db"], cwd: dir)
        #expect(fine.status == 0, "\(fine.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.path + "/café.db"))
    }
}
