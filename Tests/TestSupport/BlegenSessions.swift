import Foundation

/// Sessions written by the project's generator (`Scripts/blegen/sessions.py`), with the manifest
/// that says what each holds by construction, for test targets that cannot share the replay
/// tests' own reader.
public enum BlegenSessions {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// One generated capture: its path and its manifest entry's links (the generator's JSON).
    public struct Session {
        public var seed: Int
        public var path: String
        public var links: [[String: Any]]
    }

    /// The package root (three levels above this file).
    public static var packageRoot: String {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }

    /// Runs `python3 -m blegen.MODULE ARGUMENTS…` in Scripts/ (a generator writing the files
    /// its arguments name); throws when it fails.
    public static func run(_ module: String, _ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-m", "blegen.\(module)"] + arguments
        p.currentDirectoryURL = URL(fileURLWithPath: "\(packageRoot)/Scripts")
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw Failure(description: "python3 -m blegen.\(module) \(arguments.joined(separator: " ")) exited \(p.terminationStatus)")
        }
    }

    /// Runs `python3 Scripts/NAME ARGUMENTS…` (one of the project's generators that is a script
    /// of its own: make_bench_capture.py, make_fleet_corpus.py, make_bugreport_zip.py); throws
    /// when it fails.
    public static func script(_ name: String, _ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "\(packageRoot)/Scripts/\(name)"] + arguments
        p.currentDirectoryURL = URL(fileURLWithPath: "\(packageRoot)/Scripts")
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw Failure(description: "python3 Scripts/\(name) \(arguments.joined(separator: " ")) exited \(p.terminationStatus)")
        }
    }

    /// Runs `python3 -m blegen.sessions DIR --seed S --count N [--shape NAME]` in Scripts/ and reads
    /// back its `sessions.json`.
    public static func generate(seed: Int, count: Int = 1, shape: String?, into directory: String) throws -> [Session] {
        var arguments = [directory, "--seed", "\(seed)", "--count", "\(count)"]
        if let shape { arguments += ["--shape", shape] }
        try run("sessions", arguments)
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/sessions.json"))
        guard let list = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw Failure(description: "sessions.json is not a list")
        }
        return try list.map { m in
            guard let seed = m["seed"] as? Int, let file = m["file"] as? String, let links = m["links"] as? [[String: Any]] else {
                throw Failure(description: "sessions.json: a session without seed, file or links")
            }
            return Session(seed: seed, path: directory + "/" + file, links: links)
        }
    }
}
