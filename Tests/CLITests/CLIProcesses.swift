import Foundation

/// Several `blereplay` processes at once, and shell commands around one (ulimit, setpriv).
enum CLIProcesses {
    /// A started `blereplay` (or other program) with stdout and stderr going to files.
    final class Running {
        let process = Process()
        let dir: URL
        let arguments: [String]

        init(_ arguments: [String], executable: URL = CLI.executable, environment: [String: String] = [:],
             stdin: String? = nil) throws {
            self.arguments = arguments
            dir = CLI.temporaryDirectory()
            process.executableURL = executable
            process.arguments = arguments
            if !environment.isEmpty {
                process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            }
            FileManager.default.createFile(atPath: dir.appendingPathComponent("stdout").path, contents: nil)
            FileManager.default.createFile(atPath: dir.appendingPathComponent("stderr").path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: dir.appendingPathComponent("stdout"))
            process.standardError = try FileHandle(forWritingTo: dir.appendingPathComponent("stderr"))
            if let stdin {
                process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: stdin))
            } else {
                process.standardInput = FileHandle.nullDevice
            }
            try process.run()
        }

        var pid: Int32 { process.processIdentifier }

        func wait() -> CLI.Result {
            process.waitUntilExit()
            defer { try? FileManager.default.removeItem(at: dir) }
            return CLI.Result(status: process.terminationStatus,
                              stdout: (try? String(contentsOf: dir.appendingPathComponent("stdout"), encoding: .utf8)) ?? "",
                              stderr: (try? String(contentsOf: dir.appendingPathComponent("stderr"), encoding: .utf8)) ?? "",
                              signalled: process.terminationReason == .uncaughtSignal)
        }
    }

    /// `sh -c SCRIPT` with `$BLEREPLAY` set to the built tool.
    static func shell(_ script: String, environment: [String: String] = [:]) throws -> CLI.Result {
        try Running(["-c", script], executable: URL(fileURLWithPath: "/bin/sh"),
                    environment: environment.merging(["BLEREPLAY": CLI.executable.path]) { $1 }).wait()
    }

    /// The entries of a directory, sorted.
    static func names(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }
}
