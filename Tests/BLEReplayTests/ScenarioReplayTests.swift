import TestSupport
import BLECore
import Foundation
import Testing
@testable import BLEReplay

/// Faithful replay of shapes the samples lack, on captures built from spec bytes.
@Suite struct ScenarioReplayTests {
    static let sensor: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]

    func replay(_ capture: SpecCapture) throws -> (FaithfulReplayResult, ReplayWorld) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString).btsnoop").path
        try capture.write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var c = ReplayConfiguration()
        c.unmatched = .strict
        c.keepTrace = true
        let (result, world) = FaithfulReplay.run(try TestCaptures.session(path), configuration: c)
        return (result, world)
    }

    /// The recorded central never confirms an indication (1D 0F 00 06 48, no 1E follows); the
    /// peer ends the link with 0x13 30.02 s later. The replay must not confirm it either, and
    /// must end with 0x13 at the recorded instant.
    @Test func anUnconfirmedIndicationStaysUnconfirmed() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: Self.sensor)
        c.att(150, handle: 0x40, [0x12, 0x10, 0x00, 0x02, 0x00], received: false)   // Write Request CCCD 0x0010 = 02 00
        c.att(180, handle: 0x40, [0x13], received: true)                              // Write Response
        c.att(280, handle: 0x40, [0x1D, 0x0F, 0x00, 0x06, 0x48], received: true)      // Handle Value Indication
        c.att(380, handle: 0x40, [0x0A, 0x03, 0x00], received: false)                 // Read Request 0x0003
        c.att(410, handle: 0x40, [0x0B, 0x41], received: true)
        c.disconnectionComplete(30_300, handle: 0x40, reason: 0x13)
        let (r, world) = try replay(c)
        let v = try #require(r.verdicts.first)
        #expect(v.reproduced, "\(v.divergence.map { "\($0.kind): expected \($0.expected), got \($0.got)" } ?? "")")
        #expect(v.simulatedPDUs == 5)
        let confirmations = world.trace.records.filter { $0.kind == .acl && $0.payload.count > 8 && $0.payload[8] == 0x1E }
        #expect(confirmations.isEmpty)
        #expect(v.simulatedEnd == v.recordedEnd && v.recordedEnd.contains("0x13"))
    }

    /// The local device as peripheral (LE Connection Complete role 0x01, Vol 4 Part E
    /// 7.7.65.1): the replay says what it cannot drive, and its trace keeps role 0x01.
    @Test func aLocalPeripheralLinkKeepsItsRoleAndSaysSo() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x41, role: 1, peer: [0x4F, 0x9A, 0x11, 0x22, 0x33, 0x44])
        c.att(150, handle: 0x41, [0x0A, 0x03, 0x00], received: true)     // the remote central reads
        c.att(152, handle: 0x41, [0x0B, 0x50, 0x68], received: false)    // the phone's server answers
        c.disconnectionComplete(600, handle: 0x41, reason: 0x13)
        let (r, world) = try replay(c)
        let v = try #require(r.verdicts.first)
        #expect(v.reproduced)
        #expect(v.notes.contains { $0.contains("the local device was the peripheral") })
        // LE Meta, subevent 0x01: 3E len 01 status handle(2) role -> payload[6] is the role.
        let complete = try #require(world.trace.records.first { $0.kind == .event && $0.payload.count > 6 && $0.payload[0] == 0x3E && $0.payload[2] == 0x01 })
        #expect(complete.payload[6] == 0x01)
    }

    /// A central script against a capture whose every connection had the local device as
    /// peripheral (role 0x01). By default it plays the remote central against the capture's own
    /// local GATT server (RecordedLocalServer), and the run says so in text, JSON and JUnit; the
    /// remote central's read of 0x0003 without discovery is from a cached database, which the
    /// run names too. With `"server": "remote"` the script meets the remote central itself, a
    /// peripheral with no GATT database, and the run says why discovery finds nothing.
    @Test func aCentralScriptAgainstALocalPeripheralCaptureSaysWhichServerItDrives() throws {
        func run(role: UInt8, server: String? = nil) throws -> ScriptResult {
            var c = SpecCapture()
            c.connectionComplete(100, handle: 0x41, role: role, peer: [0x4F, 0x9A, 0x11, 0x22, 0x33, 0x44])
            c.att(150, handle: 0x41, [0x0A, 0x03, 0x00], received: role == 1)
            c.att(152, handle: 0x41, [0x0B, 0x50, 0x68], received: role == 0)
            c.disconnectionComplete(600, handle: 0x41, reason: 0x13)
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString).btsnoop").path
            try c.write(to: path)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let session = try TestCaptures.session(path)
            let key = server.map { "\"server\": \"\($0)\", " } ?? ""
            let script = try CentralScript(parsing: Array("""
                {"name": "mac", \(key)"steps": [{"scan": {"timeout": "5s"}}, {"connect": {}}, {"discover": {}}, {"read": {"handle": "0x0003", "expect": {"value": "hex:5068"}}}]}
                """.utf8), name: "mac")
            let configuration = ScriptReplay.configuration(script, session: session, base: ReplayConfiguration(), unmatchedGiven: false)
            return ScriptReplay.run(session, script: script, configuration: configuration).0
        }
        let local = try run(role: 1)
        #expect(local.passed, "\(ScriptReport.text(local))")
        #expect(local.notes.first?.hasPrefix("the script plays the remote central against the capture's local GATT server") == true)
        #expect(local.notes.contains { $0.contains("0x0003 from a cached database") })
        #expect(ScriptReport.text(local).contains("  note: the script plays the remote central"))
        #expect(ScriptReport.json(local).serialized(pretty: true).contains("the script plays the remote central"))
        #expect(ScriptReport.junit([local]).xml().contains("<system-out>note: the script plays the remote central"))
        let r = try run(role: 1, server: "remote")
        let note = try #require(r.notes.first)
        #expect(note.contains("local device was the peripheral") && note.contains("4F:9A:11:22:33:44") && note.contains("faithful replay"))
        #expect(r.checks.contains { $0.label.contains("discover") && $0.message.hasPrefix("0 services") })
        #expect(ScriptReport.text(r).contains("  note: the capture's local device was the peripheral"))
        #expect(ScriptReport.json(r).serialized(pretty: true).contains("local device was the peripheral"))
        #expect(ScriptReport.junit([r]).xml().contains("<system-out>note: the capture&apos;s local device was the peripheral"))
        // The same link with the local device as central: a real peripheral, no such note; its read
        // of 0x0003 without discovery is from a cached database (CachedDatabaseNote).
        let central = try run(role: 0).notes
        #expect(central.count == 1 && central.allSatisfy { !$0.contains("local device was the peripheral") && $0.contains("0x0003 from a cached database") })
    }
}
