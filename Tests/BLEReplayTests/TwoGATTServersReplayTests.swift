import BLEAnalysis
import BLECore
import Foundation
import TestSupport
import Testing
@testable import BLEReplay

/// Replay of a central-role link on which both sides are GATT servers with the same handles
/// (SpecCapture.twoServers): the simulated peer serves only its own database and its own answers;
/// the requests it sent the phone are its client behaviour; and an indication of the phone's
/// server that the peer never confirmed stays unconfirmed (issue 11, class 2).
@Suite struct TwoGATTServersReplayTests {
    static func session(confirmed: Bool) throws -> RecordedSession {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("two-servers-\(UUID().uuidString).btsnoop").path
        try SpecCapture.twoServers(confirmed: confirmed).write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try TestCaptures.session(path)
    }

    static let serviceChanged: [UInt8] = [0x1D, 0x06, 0x00, 0x08, 0x00, 0x0B, 0x00]

    @Test func thePeripheralModelIsTheBikesDatabaseOnly() throws {
        let session = try Self.session(confirmed: true)
        let model = try #require(ModelBuilder.build(session).peripherals.first)
        #expect(model.gatt.services.map(\.uuid.uuidString) == ["FFE0"])
        #expect(model.gatt.characteristics.map(\.uuid.uuidString) == ["FFE1"])
        // The phone's Service Changed (0x0006) is not the bike's; the bike's CCCD 0x0009 configures FFE1.
        #expect(model.extractor.serviceChangedHandles.isEmpty)
        #expect(model.extractor.cccdOwners == [0x0009: 0x0008])
        // No name from the phone's Device Name, which the bike read.
        #expect(model.name == nil)
        let peer = try #require(model.behaviours.first)
        // The bike's discovery of the phone is its own client behaviour (requests it sends) ...
        #expect(peer.actions.contains { $0.pdu == [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28] })
        // ... and the phone's answers to it are the recorded central's, never the bike's.
        let central = try #require(ModelBuilder.build(session).centrals.values.first)
        #expect(central.answers.answer(to: [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], occurrence: 1)?.response?.first == 0x11)
        #expect(peer.answers.answer(to: [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], occurrence: 1) == nil)
        #expect(peer.answers.answer(to: Self.serviceChanged, occurrence: 1)?.response == [0x1E])
    }

    @Test(arguments: [true, false])
    func faithfulReplayReproducesTheLink(confirmed: Bool) throws {
        var c = ReplayConfiguration()
        c.keepTrace = true
        let (r, world) = FaithfulReplay.run(try Self.session(confirmed: confirmed), configuration: c)
        let v = try #require(r.verdicts.first)
        #expect(r.verdicts.count == 1)
        #expect(v.reproduced, "\(v.divergence.map { "\($0.kind): expected \($0.expected), got \($0.got)" } ?? "")")
        // A Handle Value Confirmation from the peer only when the recording has one.
        let confirmations = world.trace.records.filter { $0.kind == .acl && $0.payload.count == 9 && $0.payload[8] == 0x1E }
        #expect(confirmations.count == (confirmed ? 1 : 0))
    }

    @Test func anIndicationThePeerNeverConfirmedIsRecordedAsUnanswered() throws {
        let session = try Self.session(confirmed: false)
        let peer = try #require(ModelBuilder.build(session).peripherals.first?.behaviours.first)
        let answer = try #require(peer.answers.answer(to: Self.serviceChanged, occurrence: 1))
        #expect(answer.response == nil)
    }

    /// Two local indications of the same bytes: the first never confirmed (the phone sent the
    /// second anyway), the second confirmed. Each occurrence gets its own answer.
    @Test func eachLocalIndicationKeepsItsOwnOutcome() throws {
        let extractor = BehaviourExtractor(gatt: nil)
        var c = try Self.session(confirmed: false).connections[0]
        let first = Self.serviceChanged
        c.pdus = [RecordedPDU(packetID: 1, time: 1_000, fromCentral: true, bytes: first),
                  RecordedPDU(packetID: 2, time: 40_000_000, fromCentral: true, bytes: first),
                  RecordedPDU(packetID: 3, time: 40_020_000, fromCentral: false, bytes: [0x1E])]
        c.localDisconnect = nil
        let (peer, _) = extractor.extract(c)
        #expect(peer.answers.answer(to: first, occurrence: 1)?.response == nil)
        #expect(peer.answers.answer(to: first, occurrence: 2)?.response == [0x1E])
        #expect(peer.answers.answer(to: first, occurrence: 2)?.latency == 20_000)
    }

    @Test func aCentralScriptDiscoversOnlyTheBikesServices() throws {
        let session = try Self.session(confirmed: true)
        let script = try CentralScript(parsing: Array("""
            {"name": "discover", "steps": [{"scan": {}}, {"connect": {}}, {"discover": {}}, {"disconnect": {}}]}
            """.utf8), name: "discover.json")
        let c = ScriptReplay.configuration(script, session: session, base: ReplayConfiguration(), unmatchedGiven: false)
        let (r, _) = ScriptReplay.run(session, script: script, configuration: c)
        let discovered = try #require(r.checks.first { $0.label.contains("discover") })
        #expect(discovered.passed)
        #expect(discovered.message == "1 services, 1 characteristics: FFE0")
    }

    /// The local device as peripheral (role 0x01) that discovers the remote central's own server
    /// (as a watch reads an iPhone's Current Time): that database is the central's, so the model
    /// of the central serves it, and no note says it has none. Its reads of the local server stay
    /// the local server's.
    //  rx 0A 03 00                        the central reads the local 0x0003
    //  tx 0B 57 61 74 63 68               "Watch"
    //  tx 10 01 00 FF FF 00 28            the local device asks the central for primary services
    //  rx 11 06 01 00 04 00 05 18         0x0001-0x0004 1805 Current Time
    //  tx 10 05 00 FF FF 00 28 / rx 01 10 05 00 0A   Attribute Not Found
    @Test func aRemoteCentralsOwnServerIsServed() throws {
        var c = SpecCapture()
        let h: UInt16 = 0x41
        c.connectionComplete(100, handle: h, role: 1, peer: SpecCapture.twoServersPeer)
        c.att(150, handle: h, [0x0A, 0x03, 0x00], received: true)
        c.att(160, handle: h, [0x0B] + Array("Watch".utf8), received: false)
        c.att(200, handle: h, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], received: false)
        c.att(230, handle: h, [0x11, 0x06, 0x01, 0x00, 0x04, 0x00, 0x05, 0x18], received: true)
        c.att(240, handle: h, [0x10, 0x05, 0x00, 0xFF, 0xFF, 0x00, 0x28], received: false)
        c.att(270, handle: h, [0x01, 0x10, 0x05, 0x00, 0x0A], received: true)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("remote-central-\(UUID().uuidString).btsnoop").path
        try c.write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let session = try TestCaptures.session(path)
        #expect(LocalPeripheralRole.remoteCentrals(session).isEmpty)
        let model = try #require(ModelBuilder.build(session).peripherals.first)
        #expect(model.gatt.services.map(\.uuid.uuidString) == ["1805"])
        #expect(model.gatt.values.isEmpty)
        let (r, _) = FaithfulReplay.run(session, configuration: ReplayConfiguration())
        #expect(r.verdicts.first?.reproduced == true)
    }

    /// The phone uses the bike's handles from its cache (no discovery of the bike) while the bike
    /// discovers the phone: a script's discovery finds no service, and a note says why.
    //  rx 10 01 00 FF FF 00 28 / tx 11 06 01 00 05 00 05 18   the bike finds the phone's 1805
    //  tx 12 09 00 01 00 / rx 13                               the phone enables FFE1 (CCCD 0x0009)
    //  rx 1B 08 00 01                                          the bike notifies 0x0008
    @Test func aScriptAgainstACachedDatabaseIsToldWhy() throws {
        var c = SpecCapture()
        let h: UInt16 = 0x40
        c.connectionComplete(100, handle: h, role: 0, peer: SpecCapture.twoServersPeer)
        c.att(150, handle: h, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], received: true)
        c.att(160, handle: h, [0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x05, 0x18], received: false)
        c.att(200, handle: h, [0x12, 0x09, 0x00, 0x01, 0x00], received: false)
        c.att(230, handle: h, [0x13], received: true)
        c.att(300, handle: h, [0x1B, 0x08, 0x00, 0x01], received: true)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cached-\(UUID().uuidString).btsnoop").path
        try c.write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let session = try TestCaptures.session(path)
        let script = try CentralScript(parsing: Array("""
            {"name": "discover", "steps": [{"scan": {}}, {"connect": {}}, {"discover": {}}]}
            """.utf8), name: "discover.json")
        let configuration = ScriptReplay.configuration(script, session: session, base: ReplayConfiguration(), unmatchedGiven: false)
        let (r, _) = ScriptReplay.run(session, script: script, configuration: configuration)
        #expect(r.checks.first { $0.label.contains("discover") }?.message == "0 services")
        #expect(r.notes == ["the capture never shows the GATT services of F1:B1:6E:20:00:42 being discovered: the local host used its handles "
                            + "0x0008, 0x0009 from a cached database, so a discovery against its simulation finds only what the recording answered"])
        // With a discovered service there is no such note.
        #expect(ScriptReplay.run(try Self.session(confirmed: true), script: script, configuration: configuration).0.notes.isEmpty)
    }
}
