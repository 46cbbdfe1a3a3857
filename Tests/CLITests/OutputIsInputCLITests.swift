import Foundation
import Testing

/// An output that is one of the command's inputs under another spelling (`./x`, an absolute
/// path, a symbolic link, a hard link) is refused before anything is written; the input is intact.
@Suite struct OutputIsInputCLITests {
    /// The directory with `cap.btsnoop` (a sample capture), `link.btsnoop` (a symbolic link to
    /// it), `hard.btsnoop` (a hard link to it) and `t.db` (its timeline).
    static func scratch() throws -> URL {
        let dir = CLI.temporaryDirectory()
        let cap = dir.appendingPathComponent("cap.btsnoop").path
        try FileManager.default.copyItem(atPath: CLI.sample("att-timeout.btsnoop"), toPath: cap)
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("link.btsnoop").path, withDestinationPath: "cap.btsnoop")
        try FileManager.default.linkItem(atPath: cap, toPath: dir.appendingPathComponent("hard.btsnoop").path)
        #expect(try CLI.run(["import", "cap.btsnoop", "--db", "t.db"], cwd: dir).status == 0)
        return dir
    }

    static func digest(_ dir: URL, _ name: String) throws -> Data { try Data(contentsOf: dir.appendingPathComponent(name)) }

    /// Before: `export t.db -o ./t.db` replaced the timeline with a btsnoop file (exit 0; the
    /// next `timeline t.db` read it as a capture); `replay cap.btsnoop --write-capture ./cap.btsnoop`
    /// replaced the recording with the simulation; `record --follow link.btsnoop -o cap.btsnoop`
    /// appended the recording to the file it followed, which it then followed again, without end;
    /// `record -o x --db ./x` wrote a btsnoop header and then failed to open it as a timeline.
    @Test(arguments: [
        (["export", "t.db", "--format", "btsnoop", "-o", "./t.db"], "-o ./t.db is the timeline read t.db (the same file): it would be overwritten"),
        (["export", "DIR/t.db", "--format", "pcap", "--output", "t.db"], "--output t.db is the timeline read DIR/t.db (the same file)"),
        (["replay", "cap.btsnoop", "--write-capture", "./cap.btsnoop"], "--write-capture ./cap.btsnoop is the input cap.btsnoop (the same file)"),
        (["replay", "link.btsnoop", "--junit", "hard.btsnoop"], "--junit hard.btsnoop is the input link.btsnoop (the same file)"),
        (["replay", "cap.btsnoop", "--junit", "out.xml", "--write-capture", "./out.xml"], "--junit out.xml and --write-capture ./out.xml name the same file"),
        (["record", "--follow", "link.btsnoop", "-o", "cap.btsnoop", "--until-idle", "1"], "-o cap.btsnoop is the followed file link.btsnoop (the same file)"),
        (["record", "--follow", "cap.btsnoop", "--db", "DIR/hard.btsnoop", "--until-idle", "1"], "--db DIR/hard.btsnoop is the followed file cap.btsnoop (the same file)"),
        (["record", "--stdin", "-o", "new.x", "--db", "./new.x"], "-o new.x and --db ./new.x name the same file"),
    ] as [([String], String)])
    func anOutputThatIsAnInputIsRefused(arguments: [String], message: String) throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        let capture = try Self.digest(dir, "cap.btsnoop"), timeline = try Self.digest(dir, "t.db")
        let line = arguments.map { $0.replacingOccurrences(of: "DIR", with: dir.path) }
        // A recorder that follows its own output never goes idle: stopped after 20 s at most.
        let p = Process()
        p.executableURL = CLI.executable
        p.arguments = line
        p.currentDirectoryURL = dir
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(20)
        while p.isRunning && Date() < deadline { usleep(50_000) }
        let hung = p.isRunning
        if hung { p.terminate() }
        p.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!hung, "\(line) was still running after 20 s")
        #expect(p.terminationStatus == 2, "\(line): \(stderr)")
        #expect(stderr.contains(message.replacingOccurrences(of: "DIR", with: dir.path)), "\(stderr)")
        #expect(try Self.digest(dir, "cap.btsnoop") == capture)
        #expect(try Self.digest(dir, "t.db") == timeline)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == before)
    }

    /// Other files are written as before.
    @Test func distinctOutputsAreWritten() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try CLI.run(["export", "t.db", "--format", "btsnoop", "-o", "back.btsnoop"], cwd: dir).status == 0)
        #expect(try Self.digest(dir, "back.btsnoop") == (try Self.digest(dir, "cap.btsnoop")))
        let replay = try CLI.run(["replay", "cap.btsnoop", "--junit", "r.xml", "--write-capture", "sim.btsnoop"], cwd: dir)
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("sim.btsnoop").path))
    }
}
