import Foundation
import Testing
import TestSupport
import BLETimeline
@testable import BLEAnalysis

/// An LE Audio session as a phone's HCI log shows it (`blegen.leaudio`): a CIS set up on the ACL
/// (Core v5.4 Vol 4 Part E 7.8.97-99, 7.7.65.25), ISO data both ways (5.4.5), a broadcast BIG
/// (7.8.103, 7.7.65.27-28), then the ACL's end. A new-user pass found the BIS handles counted
/// as two links begun before the capture (from Number Of Completed Packets, 7.7.19), a failed
/// CIS (LE CIS Established with a status) in no error count, and the link-loss account blind to
/// the peer's ISO data when the earbud went out of range while streaming.
@Suite("LE Audio sessions")
struct LEAudioSessionTests {
    static let directory: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("leaudio-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    static func timeline(_ name: String, _ arguments: [String]) throws -> TimelineStore {
        let capture = directory.appendingPathComponent("\(name).btsnoop").path
        try BlegenSessions.run("leaudio", [capture] + arguments)
        let db = directory.appendingPathComponent("\(name)-\(UUID().uuidString).db").path
        _ = try Importer.importCaptures([capture], into: db)
        let store = try TimelineStore(path: db)
        _ = try Analyzer.analyze(store)
        return store
    }

    @Test func theBIGAndTheCISAreNoConnectionsAndAFailedCISIsAnError() throws {
        let store = try Self.timeline("big", ["--big", "--cis-failure", "established"])
        let db = store.database
        #expect(try db.scalarInt("SELECT count(*) FROM connection") == 1)
        #expect(try db.scalarInt("SELECT count(*) FROM packet WHERE kind = 'iso' AND connection_id IS NULL") ?? 0 > 0)
        let errors = try db.rows("SELECT layer, context, code FROM error WHERE layer = 'hci' AND context = 'link'")
        #expect(errors.map { [$0[0].string, $0[1].string] } == [["hci", "link"]])
        #expect(errors.first?[2].int == 0x3E)
        // The ACL's own end, not the CIS's (Disconnection Complete on the CIS handle came first)
        #expect(try db.scalarInt("SELECT disconnect_packet_id FROM connection") == db.scalarInt("SELECT max(frame) FROM packet"))
    }

    @Test func aLinkLostWhileStreamingNamesThePeersLastISOData() throws {
        let store = try Self.timeline("lost", ["--ending", "timeout-streaming", "--iso-packets", "600"])
        let db = store.database
        let f = try #require(try db.rows("SELECT detail, evidence_packet_ids FROM finding WHERE code = 'supervision-timeout'").first)
        let lastISO = try #require(try db.scalarInt("""
            SELECT max(frame) FROM packet WHERE kind = 'iso' AND direction = 'rx'
            """))
        let detail = f[0].string ?? ""
        #expect(detail.contains("the peer's last isochronous data on a CIS of this link was packet \(lastISO)"))
        #expect((f[1].string ?? "").split(whereSeparator: { "[], ".contains($0) }).contains { $0 == "\(lastISO)" })
    }
}
