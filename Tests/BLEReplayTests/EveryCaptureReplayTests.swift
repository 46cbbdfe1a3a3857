import Foundation
import Testing
@testable import BLEReplay

/// Every capture the project has is replayed (issue 11 "Run on every build"): the samples and
/// the shared captures by FaithfulReplayTests' lists, which must name every file there (a capture
/// added and never replayed fails here), and the fixtures Scripts/blegen/scenarios.py writes.
@Suite struct EveryCaptureReplayTests {
    static let captureSuffixes = [".btsnoop", ".pcap", ".pcapng", ".pklg", ".log", ".cfa"]

    static func captures(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { name in captureSuffixes.contains { name.hasSuffix($0) } }.sorted()
    }

    @Test func theReplayListsNameEveryCaptureOnDisk() throws {
        let samples = try Self.captures(in: "\(TestCaptures.packageRoot)/Captures")
        #expect(Set(samples) == Set(TestCaptures.samples), "Captures/ holds \(samples)")
        let shared = try Self.captures(in: "\(TestCaptures.packageRoot)/../shared/captures")
        #expect(!shared.isEmpty)
        #expect(Set(shared) == Set(TestCaptures.sharedHCI + TestCaptures.sharedAir), "../shared/captures holds \(shared)")
    }

    /// The scenario fixtures (the phone as peripheral, interleaved links, encryption failure,
    /// rejected parameter update, ATT timeout and retry, a PacketLogger capture that begins
    /// mid-connection, a capture that ends mid-transaction, firmware revisions): every connection
    /// reproduces.
    @Test func theScenarioFixturesReproduce() throws {
        let dir = try GeneratedSession.temporaryDirectory("scenarios")
        defer { try? FileManager.default.removeItem(at: dir) }
        try GeneratedSession.runPython(["python3", "-m", "blegen.scenarios", dir.path])
        let files = try Self.captures(in: dir.path)
        #expect(files.count >= 10, "scenarios.py wrote \(files)")
        var connections = 0
        for name in files {
            let loaded = try ReplaySource.load(path: dir.appendingPathComponent(name).path)
            let session = try #require(loaded.sessions.first)
            let (r, _) = FaithfulReplay.run(session, configuration: GeneratedSession.configuration)
            connections += r.verdicts.count
            for v in r.verdicts {
                #expect(v.reproduced, "\(name) connection \(v.connectionID): \(v.divergence.map { "\($0.kind): expected \($0.expected), got \($0.got)" } ?? "")")
            }
        }
        #expect(connections >= 19)
    }
}
