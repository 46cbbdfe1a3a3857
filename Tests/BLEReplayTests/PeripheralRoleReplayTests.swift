import BLECore
import Foundation
import Testing
import TestSupport
@testable import BLEReplay

/// Faithful replay of links on which the local device was the LE peripheral (LE Connection
/// Complete role 0x01, Core v5.4 Vol 4 Part E 7.7.65.1), from the generator's shapes: every link
/// reproduces, the written capture records each link's local role as the recording did, and a
/// capture that mixes both roles replays both.
@Suite struct PeripheralRoleReplayTests {
    /// Replays `s` faithfully, writes the simulated session as btsnoop and reads that back: the
    /// verdicts, and the local role of each connection of the written capture, in order.
    func replayAndReread(_ s: BlegenSessions.Session, dir: String) throws -> (FaithfulReplayResult, [String?]) {
        let session = try #require(try ReplaySource.load(path: s.path).sessions.first)
        var c = ReplayConfiguration()
        c.unmatched = .strict
        c.keepTrace = true
        let (result, world) = FaithfulReplay.run(session, configuration: c)
        let written = dir + "/written.btsnoop"
        try world.trace.writeBtsnoop(to: written)
        let reread = try #require(try ReplaySource.load(path: written).sessions.first)
        return (result, reread.connections.map(\.role))
    }

    /// The local server notifies until the central's link layer stops acknowledging and the link
    /// is lost (0x08): the remote central's requests and the local server's answers and
    /// notifications replay as recorded, to the same end, and the written LE Connection Complete
    /// says role 0x01.
    @Test(arguments: [1, 2, 3, 4])
    func aLostLocalPeripheralLinkReproducesAndKeepsItsRole(_ seed: Int) throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let s = try #require(try BlegenSessions.generate(seed: seed, shape: "peripheral-notify-loss", into: dir).first)
        let (r, roles) = try replayAndReread(s, dir: dir)
        let v = try #require(r.verdicts.first)
        #expect(r.verdicts.count == 1 && v.reproduced, "\(v.divergence.map { "\($0.kind): expected \($0.expected), got \($0.got)" } ?? "")")
        #expect(v.recordedPDUs == s.links.first?["att_pdus"] as? Int)
        #expect(v.simulatedEnd.hasPrefix("disconnected 0x08"), "\(v.simulatedEnd)")
        #expect(roles == ["peripheral"])
    }

    /// Both roles in one capture (central on the first link, peripheral on the second): both
    /// reproduce and the written capture keeps each link's role.
    @Test(arguments: [1, 2, 3])
    func aCaptureMixingBothRolesReplaysBoth(_ seed: Int) throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let s = try #require(try BlegenSessions.generate(seed: seed, shape: "mixed-roles", into: dir).first)
        let built = s.links.map { $0["role"] as? String }
        #expect(Set(built.compactMap { $0 }) == ["central", "peripheral"])
        let (r, roles) = try replayAndReread(s, dir: dir)
        #expect(r.verdicts.count == 2)
        for v in r.verdicts {
            #expect(v.reproduced, "connection \(v.connectionID): \(v.divergence.map { "\($0.kind): expected \($0.expected), got \($0.got)" } ?? "")")
        }
        #expect(roles == built)
    }
}

/// Scratch directories for these tests.
private enum Support {
    static func scratch() -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("blereplay-peripheral-role-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    static func remove(_ path: String) { try? FileManager.default.removeItem(atPath: path) }
}
