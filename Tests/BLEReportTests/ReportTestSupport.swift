import Foundation
import Testing
@testable import BLEReport
import BLEAnalysis
import BLETimeline
import TestSupport

/// Paths, scratch directories and helpers shared by the report and export tests.
enum Support {
    /// The package root (two levels above this file's directory).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared/captures/NAME` beside the project (real captures made by other people).
    static func shared(_ name: String) -> String {
        packageRoot.deletingLastPathComponent().appendingPathComponent("shared/captures/\(name)").path
    }

    /// `Captures/NAME`: the project's own samples.
    static func sample(_ name: String) -> String {
        packageRoot.appendingPathComponent("Captures/\(name)").path
    }

    static let samples = ["att-timeout.btsnoop", "auth-errors.btsnoop", "failed-to-establish.btsnoop",
                          "heart-rate-healthy.btsnoop", "heart-rate-supervision-timeout.btsnoop", "pairing-failed.btsnoop"]

    /// A fresh scratch directory.
    static func scratch() -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("blereplay-report-test-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    static func remove(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

    /// Imports captures into a new timeline (analysed, as the CLI does) and opens it.
    static func timeline(_ captures: [String], at path: String, keepRaw: Bool = true, keepKeys: Bool = false) throws -> TimelineStore {
        let results = try Importer.importCaptures(captures, into: path, options: ImportOptions(keepRaw: keepRaw, keepKeys: keepKeys)) { store in
            try Analyzer.analyze(store)
        }
        #expect(results.allSatisfy { $0.status == .imported }, "\(results.map { $0.error ?? "" })")
        return try TimelineStore(path: path)
    }

    /// A capture built in code (`SpecCapture`), written to a scratch directory and imported into
    /// a timeline there, analysed; remove the directory when done.
    static func timeline(of capture: SpecCapture) throws -> (directory: String, store: TimelineStore) {
        let directory = scratch()
        try capture.write(to: directory + "/capture.btsnoop")
        return (directory, try timeline([directory + "/capture.btsnoop"], at: directory + "/capture.db"))
    }

    /// Reads inputs and computes the statistics, as `blereplay report` does.
    static func statistics(_ inputs: [String], jobs: Int = 2) throws -> FleetStatistics {
        let read = try FleetReader.read(inputs, options: .init(jobs: jobs))
        return FleetStatistics.build(inputs: read.outcomes, captures: read.captures)
    }

    static func read(_ path: String) -> Data { FileManager.default.contents(atPath: path) ?? Data() }

    static func json(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: read(path)) as? [String: Any])
    }
}

/// Runs the built `blereplay` executable as a user would.
enum Tool {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The executable built beside the test bundle.
    static var executable: URL {
        let exe = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                      ?? CommandLine.arguments[0])
        return exe.deletingLastPathComponent().appendingPathComponent("blereplay")
    }

    static func run(_ arguments: [String]) throws -> Result {
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        p.currentDirectoryURL = Support.packageRoot
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let outPath = dir + "/stdout", errPath = dir + "/stderr"
        FileManager.default.createFile(atPath: outPath, contents: nil)
        FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        try? out.close()
        try? err.close()
        return Result(status: p.terminationStatus,
                      stdout: String(decoding: Support.read(outPath), as: UTF8.self),
                      stderr: String(decoding: Support.read(errPath), as: UTF8.self))
    }
}
