import Foundation
import Testing

/// Runs the built `blereplay` executable as a user would and captures what it prints.
enum CLI {
    /// The package root (three levels above this file).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared/captures/NAME` beside the project.
    static func sharedCapture(_ name: String) -> String {
        packageRoot.deletingLastPathComponent().appendingPathComponent("shared/captures/\(name)").path
    }

    static func sample(_ name: String) -> String {
        packageRoot.appendingPathComponent("Captures/\(name)").path
    }

    /// The executable built beside the test bundle.
    static var executable: URL {
        let exe = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                      ?? CommandLine.arguments[0])
        return exe.deletingLastPathComponent().appendingPathComponent("blereplay")
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        /// The process died of a signal (`status` is then the signal: 4 SIGILL for a Swift trap).
        var signalled = false
    }

    static func run(_ arguments: [String], cwd: URL? = nil, stdin: Data? = nil) throws -> Result {
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        if let cwd { p.currentDirectoryURL = cwd }
        // Output goes to files: no pipe can fill up and block the child.
        let dir = temporaryDirectory()
        let outURL = dir.appendingPathComponent("stdout"), errURL = dir.appendingPathComponent("stderr")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        p.standardOutput = out
        p.standardError = err
        let input = Pipe()
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try? input.fileHandleForWriting.close()
        p.waitUntilExit()
        try? out.close()
        try? err.close()
        defer { try? FileManager.default.removeItem(at: dir) }
        return Result(status: p.terminationStatus,
                      stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "",
                      signalled: p.terminationReason == .uncaughtSignal)
    }

    /// A fresh temporary directory.
    static func temporaryDirectory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("blereplay-test-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
