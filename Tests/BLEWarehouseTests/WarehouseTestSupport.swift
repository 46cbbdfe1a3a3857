import Foundation
import BLEWarehouse
import TestSupport

/// Paths, generated captures and the `blereplay` executable for the warehouse tests.
enum Fixture {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    static func sample(_ name: String) -> String { "\(packageRoot)/Captures/\(name)" }
    static func shared(_ name: String) -> String { "\(packageRoot)/../shared/captures/\(name)" }

    static func scratch() -> String {
        let path = NSTemporaryDirectory() + "blereplay-warehouse-test-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func remove(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

    static func read(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? "(missing \(path))"
    }

    /// `count` sessions from Scripts/blegen/sessions.py (seeds `seed`…), written into `directory`:
    /// disconnect reasons, failed and cancelled attempts, ATT errors and timeouts, pairing
    /// failures, each known by construction.
    /// Waits (20 ms polls, `tries` at most) until the warehouse at `url` holds `captures`
    /// captures: the moment the tests that stop a server or kill an ingest mid-way strike.
    static func waitForCaptures(_ captures: Int, in url: String, tries: Int) throws {
        let db = try PostgresConnection(WarehouseURL(url))
        var seen = 0
        for _ in 0..<tries where seen < captures {
            usleep(20_000)
            seen = (try? db.count("SELECT count(*) FROM blereplay.capture")) ?? 0
        }
    }

    static func sessions(seed: Int, count: Int, into directory: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-m", "blegen.sessions", directory, "--seed", "\(seed)", "--count", "\(count)"]
        p.currentDirectoryURL = URL(fileURLWithPath: "\(packageRoot)/Scripts")
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw PostgresCluster.Failure(description: "blegen.sessions exited \(p.terminationStatus)") }
        try? FileManager.default.removeItem(atPath: directory + "/sessions.json")
    }

    /// A capture whose peer advertises `name` (Complete Local Name, CSS Part A 1.2, in an LE
    /// Advertising Report, Core v5.4 Vol 4 Part E 7.7.65.2), then connects and is lost (0x08).
    static func advertisedName(_ name: [UInt8], peer: [UInt8], into path: String) throws {
        var c = SpecCapture()
        let ad = [UInt8(name.count + 1), 0x09] + name
        c.evt(0, 0x3E, [0x02, 0x01, 0x00, 0x00] + peer.reversed() + [UInt8(ad.count)] + ad + [0xC4])
        c.connectionComplete(10, handle: 0x0040, role: 0, peer: peer)
        c.disconnectionComplete(5_000, handle: 0x0040, reason: 0x08)
        try c.write(to: path)
    }
}

/// The `blereplay` executable, run as a user runs it.
struct Tool {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var all: String { stdout + stderr }
    }

    static var executable: URL {
        let exe = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                      ?? CommandLine.arguments[0])
        return exe.deletingLastPathComponent().appendingPathComponent("blereplay")
    }

    let process = Process()
    let directory = Fixture.scratch()

    /// Starts `blereplay ARGS` (with extra environment variables); `wait` collects it.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = Self.executable
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: Fixture.packageRoot)
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: WarehouseURL.environmentVariable)
        for (k, v) in environment { env[k] = v }
        process.environment = env
        _ = FileManager.default.createFile(atPath: directory + "/out", contents: nil)
        _ = FileManager.default.createFile(atPath: directory + "/err", contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + "/out"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + "/err"))
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    func wait() -> Result {
        process.waitUntilExit()
        defer { Fixture.remove(directory) }
        return Result(status: process.terminationStatus, stdout: Fixture.read(directory + "/out"), stderr: Fixture.read(directory + "/err"))
    }

    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        try Tool(arguments, environment: environment).wait()
    }
}

extension PostgresConnection {
    /// One integer from a query.
    func count(_ sql: String, _ parameters: [String?] = []) throws -> Int {
        Int((try execute(sql, parameters).first?.first ?? nil) ?? "") ?? -1
    }
}
