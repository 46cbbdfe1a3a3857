import BLECore
import Foundation
import TestSupport
import Testing
@testable import BLEReplay

/// Replay of links that ended with their local controller (`ControllerClosing`): a successful HCI
/// Reset (Core v5.4 Vol 4 Part E 7.3.2) or btmon's Close Index / Delete Index with the link up.
/// The import ends such a link at that record with no Disconnection Complete and no reason
/// (`ControllerClosed` in BLEDecode), and the handle's next Connection Complete is a new link.
/// The replay must end the link at the same instant, say so as `diagnose` does, write a capture
/// that imports the same way, and replay the link that reused the handle as its own.
@Suite struct ControllerClosedReplayTests {
    static let sensor = SpecCapture.controllerResetPeer
    static let other: [UInt8] = [0xE1, 0x22, 0x33, 0x44, 0x55, 0x77]

    /// `SpecCapture.controllerReset` (TestSupport): the link ends at frame 6, 1.5 s into it.
    static func resetCapture() -> SpecCapture { SpecCapture.controllerReset() }

    /// BLEReportTests' ControllerClosedTests shape: btsnoop datalink 2001 (flags = index << 16 |
    /// opcode), records 10 ms apart. 1 LE Connection Complete on hci1 (handle 0x0040), 2 Read
    /// Request, 3 Read Response, 4 Close Index hci1 (the link ends here), 5 Delete Index hci1,
    /// 6 LE Connection Complete on handle 0x0040 again (another peer), 7 Read Request,
    /// 8 Read Response, 9 Disconnection Complete 0x13.
    /// Without `closeFirst`, no Close Index: the Delete Index (an adapter unplugged) is packet 4
    /// and ends the link, and every later record is one frame earlier.
    static func closeIndexCapture(closeFirst: Bool = true) -> [UInt8] {
        var c = MonitorCapture()
        func record(_ index: UInt32, _ opcode: UInt32, _ body: [UInt8]) { c.record(index, opcode, body) }
        let complete = MonitorCapture.connectionComplete
        let read: [UInt8] = [0x40, 0x00, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0A, 0x03, 0x00]
        let response: [UInt8] = [0x40, 0x20, 0x06, 0x00, 0x02, 0x00, 0x04, 0x00, 0x0B, 0x41]
        record(1, 3, complete(sensor))                          // 1 (monitor opcode 3: event)
        record(1, 4, read)                                      // 2 (4: ACL from the host)
        record(1, 5, response)                                  // 3 (5: ACL to the host)
        if closeFirst { record(1, 9, []) }                      // 4 Close Index
        record(1, 1, [])                                        // 5 Delete Index
        record(1, 3, complete(other))                           // 6
        record(1, 4, read)                                      // 7
        record(1, 5, response)                                  // 8
        record(1, 3, [0x05, 0x04, 0x00, 0x40, 0x00, 0x13])     // 9 Disconnection Complete 0x13
        return c.bytes
    }

    static func session(_ bytes: [UInt8], _ name: String) throws -> RecordedSession {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString).btsnoop").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try TestCaptures.session(path)
    }

    static func run(_ session: RecordedSession) -> (FaithfulReplayResult, ReplayWorld) {
        var c = ReplayConfiguration()
        c.keepTrace = true
        return FaithfulReplay.run(session, configuration: c)
    }

    /// The written trace, imported again.
    static func reimport(_ world: ReplayWorld) throws -> RecordedSession {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("replayed-\(UUID().uuidString).btsnoop").path
        try world.trace.writeBtsnoop(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try TestCaptures.session(path)
    }

    static func why(_ v: ConnectionVerdict) -> String {
        v.divergence.map { "\($0.kind): expected \($0.expected), got \($0.got)" } ?? ""
    }

    @Test func theLoaderKeepsTheEndingWithNoReason() throws {
        let session = try Self.session(Self.resetCapture().bytes, "reset")
        #expect(session.connections.count == 2)
        let first = session.connections[0]
        #expect(first.disconnect == nil)
        #expect(first.controllerClosing == ControllerClosing(note: "HCI Reset", time: 1_500_000, packetID: 6))
        #expect(first.end == 1_500_000)
        #expect(session.connections[1].controllerClosing == nil && session.connections[1].disconnect?.reason.rawValue == 0x13)
    }

    /// Before: the first link was "still connected" in the replay and its verdict said so, where
    /// `diagnose` says the controller was reset at packet 6.
    @Test func aResetEndsTheReplayedLinkAtTheRecordedInstant() throws {
        let (r, world) = Self.run(try Self.session(Self.resetCapture().bytes, "reset"))
        #expect(r.verdicts.count == 2)
        for v in r.verdicts { #expect(v.reproduced, "\(v.connectionID): \(Self.why(v))") }
        let first = try #require(r.verdicts.first)
        #expect(first.recordedEnd.contains("the controller was reset at packet 6 (HCI Reset completed with the link up)"))
        #expect(first.recordedEnd.hasSuffix("no Disconnection Complete, so no HCI reason"))
        #expect(first.simulatedEnd.hasPrefix("ended with its controller: the controller was reset at simulated frame"))
        #expect(first.endingRule?.contains("reset at packet 6") == true)
        #expect(!first.endedOtherwise)
        #expect(first.duration == 1_500_000)
        let text = FaithfulReport.text(r)
        #expect(!text.contains("still connected"))
        // The replayed link went at 1.5 s into it, with no reason, and no Disconnection Complete
        // was traced for it; the link that reused handle 0x0040 is a link of its own.
        let links = world.host.allLinks
        #expect(links.count == 2 && links.map(\.handle) == [0x40, 0x40])
        #expect(links[0].endReason == nil && links[0].controllerClosed?.note == "HCI Reset")
        #expect(links[0].endedAt.map(links[0].relative) == 1_500_000)
        #expect(links[1].endReason?.rawValue == 0x13)
        let disconnections = world.trace.records.filter { $0.kind == .event && $0.payload.first == 0x05 }
        #expect(disconnections.count == 1)
        let resets = world.trace.records.filter { $0.kind == .command && $0.payload.prefix(2) == [0x03, 0x0C] }
        #expect(resets.count == 2)   // the one at power-on and the one that ended the link
    }

    /// `--write-capture` writes the HCI Reset and its Command Complete: imported again, the first
    /// link ends there with no reason, and replaying the written capture reproduces both links.
    @Test func theWrittenCaptureImportsTheSameWay() throws {
        let (_, world) = Self.run(try Self.session(Self.resetCapture().bytes, "reset"))
        let again = try Self.reimport(world)
        #expect(again.connections.count == 2)
        #expect(again.connections[0].disconnect == nil)
        #expect(again.connections[0].controllerClosing?.note == "HCI Reset")
        #expect(again.connections[0].controllerClosing?.time == 1_500_000)
        #expect(again.connections[1].disconnect?.reason.rawValue == 0x13)
        let (r, _) = Self.run(again)
        #expect(r.allReproduced && r.verdicts.count == 2)
    }

    /// btmon's Close Index on hci1, then the adapter back with handle 0x0040 for another peer:
    /// two connections, each reproduced; the written trace is a monitor capture (datalink 2001)
    /// carrying the Close Index, which a re-import ends the link at.
    @Test(arguments: [(true, "Close Index", "closed"), (false, "Delete Index", "removed")])
    func aCloseIndexEndsTheLinkAndTheReusedHandleIsAnotherLink(closeFirst: Bool, note: String, verb: String) throws {
        let session = try Self.session(Self.closeIndexCapture(closeFirst: closeFirst), "btmon")
        #expect(session.connections.count == 2)
        #expect(session.connections[0].controllerClosing?.note == note)
        #expect(session.connections[0].controllerClosing?.packetID == 4)
        let (r, world) = Self.run(session)
        #expect(r.verdicts.count == 2)
        for v in r.verdicts { #expect(v.reproduced, "\(v.connectionID): \(Self.why(v))") }
        #expect(r.verdicts[0].recordedEnd.contains("the controller was \(verb) at packet 4 (btmon \(note) with the link up)"))
        #expect(r.verdicts[1].recordedEnd.contains("0x13"))
        #expect(world.trace.datalink == 2001)
        let again = try Self.reimport(world)
        #expect(again.connections.count == 2)
        #expect(again.connections[0].controllerClosing?.note == note)
        #expect(again.connections[0].controllerClosing?.time == session.connections[0].controllerClosing?.time)
        #expect(again.connections[0].controller == 1)
        #expect(again.connections[1].disconnect?.reason.rawValue == 0x13)
    }

    /// JSON and JUnit stay valid and say the same: no failure, the ending in `recorded_end`.
    @Test func jsonAndJUnitCarryTheEnding() throws {
        let (r, _) = Self.run(try Self.session(Self.resetCapture().bytes, "reset"))
        let json = FaithfulReport.json(r).serialized(pretty: true)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let connections = try #require(object["connections"] as? [[String: Any]])
        #expect((connections.first?["recorded_end"] as? String)?.contains("no HCI reason") == true)
        #expect(object["passed"] as? Bool == true)
        let xml = FaithfulReport.junit([r]).xml()
        #expect(xml.contains("tests=\"2\"") && xml.contains("failures=\"0\""))
        #expect(xml.components(separatedBy: "<testcase ").count == 3 && !xml.contains("<failure"))
    }

    /// A `--central` script is the central: the recorded host's reset is the local side's doing,
    /// not the peripheral's (Docs/replay.md "Anchoring rules", rule 6), so the script's link is
    /// not ended by it.
    @Test func aScriptsLinkIsNotEndedByTheRecordedReset() throws {
        let session = try Self.session(Self.resetCapture().bytes, "reset")
        let script = try CentralScript(parsing: Array("""
            {"steps": [{"scan": {"timeout": "5s"}}, {"connect": {"timeout": "5s"}},
                       {"read": {"handle": "0x0003"}}, {"wait": "4s"}]}
            """.utf8), name: "reset.json")
        let c = ScriptReplay.configuration(script, session: session, base: ReplayConfiguration(), unmatchedGiven: false)
        let (result, world) = ScriptReplay.run(session, script: script, configuration: c)
        let failed = result.checks.filter { !$0.passed }.map(\.message)
        #expect(failed.isEmpty, "\(failed)")
        let link = try #require(world.host.allLinks.first)
        #expect(link.isUp || (link.endedAt.map(link.relative) ?? 0) > 4_000_000)
        #expect(link.controllerClosed == nil)
    }
}
