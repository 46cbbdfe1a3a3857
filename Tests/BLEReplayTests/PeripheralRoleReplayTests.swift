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
        let (result, reread) = try replayAndRereadSession(s, dir: dir)
        return (result, reread.connections.map(\.role))
    }

    func replayAndRereadSession(_ s: BlegenSessions.Session, dir: String) throws -> (FaithfulReplayResult, RecordedSession) {
        let session = try #require(try ReplaySource.load(path: s.path).sessions.first)
        var c = ReplayConfiguration()
        c.unmatched = .strict
        c.keepTrace = true
        let (result, world) = FaithfulReplay.run(session, configuration: c)
        let written = dir + "/written.btsnoop"
        try world.trace.writeBtsnoop(to: written)
        return (result, try #require(try ReplaySource.load(path: written).sessions.first))
    }

    /// A divergence on a link where the local device was the peripheral names the sides as they
    /// were: the remote central's Write Request expected, the local peripheral's notification got
    /// (they read "peripheral -> Write Request" and "central -> Handle Value Notification").
    @Test func divergencesNameTheRemoteCentralAndTheLocalPeripheral() throws {
        let session = try TestCaptures.session(TestCaptures.sample("heart-rate-peripheral.btsnoop"))
        var c = ReplayConfiguration()
        c.unmatched = .strict
        c.faults = [try FaultSpec(parsing: "stop-reading@after=handle-value-notification#2")]
        let (result, _) = FaithfulReplay.run(session, configuration: c)
        let d = try #require(result.verdicts.first?.divergence)
        #expect(d.expected.hasPrefix("remote central -> Write Request"), "\(d.expected)")
        #expect(d.got.hasPrefix("local peripheral -> Handle Value Notification"), "\(d.got)")
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

    /// A central that stops reading after the local server's first notification
    /// (`stop-reading`): the fault fires, nothing the local host sends on the link from then on
    /// is acknowledged (no Number Of Completed Packets for them in the written capture), and the
    /// link still ends as recorded: 0x08 at the recorded instant.
    @Test(arguments: [1, 2, 3, 4])
    func aCentralThatStopsReadingStillLosesTheLinkAsRecorded(_ seed: Int) throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let s = try #require(try BlegenSessions.generate(seed: seed, shape: "peripheral-notify-loss", into: dir).first)
        let session = try #require(try ReplaySource.load(path: s.path).sessions.first)
        var c = ReplayConfiguration()
        c.unmatched = .strict
        c.faults = [try FaultSpec(parsing: "stop-reading@after=handle-value-notification#1")]
        let (result, world) = FaithfulReplay.run(session, configuration: c)
        #expect(result.unfiredFaults.isEmpty && world.firedFaults.count == 1)
        let v = try #require(result.verdicts.first)
        #expect(v.simulatedEnd == v.recordedEnd, "\(v.simulatedEnd) vs \(v.recordedEnd)")
        let link = try #require(world.host.allLinks.first)
        #expect(link.peerStoppedReading && link.endReason?.rawValue == 0x08)
        let fired = try #require(world.firedFaults.first?.time)
        #expect(link.stuckPackets > 0)
        // The central received nothing after the fault: its session saw no PDU sent later.
        let sentAfter = link.log.filter { $0.fromCentral && link.establishedAt &+ $0.time > fired }
        #expect(sentAfter.count >= link.stuckPackets)
    }

    /// A failed peripheral-role attempt (high duty cycle directed advertising that timed out: LE
    /// Connection Complete status 0x3C, role 0x01, Core v5.4 Vol 4 Part E 7.7.65.1) beside a link
    /// as peripheral: the written capture keeps role 0x01 for both, and writes no LE Create
    /// Connection Cancel (only a central cancels one). It used to write the attempt as a central's.
    @Test(arguments: [1, 2, 3])
    func aFailedPeripheralAttemptIsWrittenAsPeripheral(_ seed: Int) throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let s = try #require(try BlegenSessions.generate(seed: seed, shape: "peripheral-failed-attempt", into: dir).first)
        #expect(s.links.map { $0["role"] as? String } == ["peripheral", "peripheral"])
        #expect(s.links.map { $0["kind"] as? String } == ["connection", "failed attempt"])
        let (r, reread) = try replayAndRereadSession(s, dir: dir)
        for v in r.verdicts {
            #expect(v.reproduced, "connection \(v.connectionID): \(v.divergence.map { "\($0.kind): expected \($0.expected), got \($0.got)" } ?? "")")
        }
        #expect(reread.connections.map(\.status) == [0x00, 0x3C])
        #expect(reread.connections.map(\.role) == ["peripheral", "peripheral"])
        let written = try Data(contentsOf: URL(fileURLWithPath: dir + "/written.btsnoop"))
        // HCI command packet (H4 0x01) LE Create Connection Cancel, opcode 0x200E little-endian.
        #expect(written.range(of: Data([0x01, 0x0E, 0x20, 0x00])) == nil)
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

/// A central script on a capture that mixes both roles: by default it drives the remote
/// peripheral of the link where the local device was central; with `"server": "local"` it plays
/// the remote central of the other link against the local GATT server, whose database is the one
/// that central discovered (RecordedLocalServer), and the run says which.
@Suite struct MixedRoleScriptTests {
    @Test(arguments: [1, 2, 3])
    func theScriptChoosesWhichServerItDrives(_ seed: Int) throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let s = try #require(try BlegenSessions.generate(seed: seed, shape: "mixed-roles", into: dir).first)
        let session = try #require(try ReplaySource.load(path: s.path).sessions.first)
        func run(_ server: String?) throws -> ScriptResult {
            let key = server.map { "\"server\": \"\($0)\", " } ?? ""
            let script = try CentralScript(parsing: Array("""
                {"name": "either", \(key)"steps": [{"connect": {"timeout": "10s"}}, {"discover": {}}, {"disconnect": {}}]}
                """.utf8), name: "either.json")
            let c = ScriptReplay.configuration(script, session: session, base: ReplayConfiguration(), unmatchedGiven: false)
            return ScriptReplay.run(session, script: script, configuration: c).0
        }
        let local = try run("local")
        #expect(local.passed, "\(ScriptReport.text(local))")
        #expect(local.notes.first?.contains("on 1 recorded connection(s)") == true)
        #expect(ScriptReport.text(local).contains("connected to local GATT server"))
        let expected = RecordedLocalServer.database(session).services.count
        #expect(expected > 0)
        #expect(local.checks.contains { $0.label.contains("discover") && $0.message.hasPrefix("\(expected) services") })
        let remote = try run(nil)
        #expect(remote.passed, "\(ScriptReport.text(remote))")
        #expect(!ScriptReport.text(remote).contains("local GATT server"))
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
