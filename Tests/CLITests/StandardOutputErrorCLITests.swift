import Foundation
import Testing

/// What a command does when its standard output stops taking what it writes (`Out`): a reader
/// that went away ends it quietly, a full disk ends it with 65 and a message, and neither
/// leaves the capture's scratch timeline in `$TMPDIR` for the next run to clean.
@Suite struct StandardOutputErrorCLITests {
    static let capture = CLI.sharedCapture("android-lock-pairing.btsnoop")

    /// `/dev/full` fails every write with ENOSPC, as a full disk does: the output is incomplete,
    /// so the exit code must not be 0.
    @Test(arguments: [["timeline"], ["diagnose"], ["gatt"], ["diagnose", "--json"]])
    func aFullDiskIsAnErrorNotSuccess(_ command: [String]) throws {
        let scratch = CLI.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let words = ([command[0], Self.capture] + command.dropFirst()).map { "'\($0)'" }.joined(separator: " ")
        let r = try CLIProcesses.shell("\"$BLEREPLAY\" \(words) > /dev/full", environment: ["TMPDIR": scratch])
        #expect(r.status == 65, "\(command): \(r.stderr)")
        #expect(r.stderr.contains("cannot write the standard output: No space left on device"), "\(r.stderr)")
        #expect(CLIProcesses.names(scratch) == [], "the scratch timeline of \(command) was left behind")
    }

    /// A reader that went away before the first line: exit 0, nothing on stderr, no scratch
    /// timeline left behind.
    @Test(arguments: ["timeline", "diagnose"])
    func aReaderThatLeftEndsQuietlyAndCleanly(_ command: String) throws {
        let scratch = CLI.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let p = Process()
        p.executableURL = CLI.executable
        p.arguments = [command, Self.capture]
        p.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": scratch]) { $1 }
        // The pipe's only reader is closed before the tool starts: every write fails with EPIPE.
        let out = Pipe(), err = Pipe()
        try out.fileHandleForReading.close()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        try out.fileHandleForWriting.close()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationReason == .exit && p.terminationStatus == 0, "\(command): \(p.terminationStatus)")
        #expect(stderr.isEmpty, "\(stderr)")
        #expect(CLIProcesses.names(scratch) == [], "the scratch timeline of \(command) was left behind")
    }
}
