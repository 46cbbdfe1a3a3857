import Foundation
import Testing
import TestSupport
import BLETimeline
@testable import BLEAnalysis

/// The local host ends a link with HCI Disconnect reason 0x05 Authentication Failure (Core v5.4
/// Vol 4 Part E 7.1.6, as a host does after a failed pairing) and the controller reports that
/// reason back in Disconnection Complete instead of 0x16 (7.7.5), as Bumble's controller does for
/// every reason. It was told as a failure the controller reported ("disconnected", an error,
/// with the peer's last packet as if the peer had caused it); the local host ended the link.
///
/// The capture comes from the generator (`blegen.sessions`, shape `local-disconnect-echoed`).
@Suite("a local Disconnect whose reason the controller reports back")
struct EchoedDisconnectReasonTests {
    @Test(arguments: [1, 2, 3])
    func theLocalHostEndedTheLink(_ seed: Int) throws {
        let dir = scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try #require(try BlegenSessions.generate(seed: seed, shape: "local-disconnect-echoed", into: dir).first)
        let db = dir + "/t.db"
        _ = try Importer.importCaptures([s.path], into: db)
        let store = try TimelineStore(path: db)
        _ = try Analyzer.analyze(store)
        let rows = try store.database.rows("SELECT code, severity, title, detail, evidence_packet_ids FROM finding")
        let codes = rows.map { $0[0].string ?? "" }
        #expect(!codes.contains("disconnected"), "\(codes)")
        let f = try #require(rows.first { $0[0].string == "local-terminated" })
        #expect(f[1].string == "info")
        #expect((f[2].string ?? "").hasSuffix("closed by the local host (Authentication Failure)"))
        let disconnect = try #require(try store.database.rows(
            "SELECT packet_id FROM command WHERE opcode = 0x0406").first?[0].int)
        #expect((f[3].string ?? "").hasPrefix("The local host asked for the disconnect (HCI Disconnect with reason 0x05 Authentication Failure, packet \(disconnect)); the controller reported that reason back."))
        #expect((f[4].string ?? "").contains("\(disconnect)"))
    }

    /// The local device was the peripheral and its host sent Disconnect 0x13, reported back as
    /// 0x13: the remote central got 0x13 from the local peripheral (CBError.peripheralDisconnected
    /// in an iOS central), its own host did not end the link.
    @Test(arguments: [1, 2])
    func theRemoteCentralGotTheLocalPeripheralsReason(_ seed: Int) throws {
        let dir = scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try #require(try BlegenSessions.generate(seed: seed, shape: "peripheral-local-disconnect-echoed", into: dir).first)
        let db = dir + "/t.db"
        _ = try Importer.importCaptures([s.path], into: db)
        let store = try TimelineStore(path: db)
        _ = try Analyzer.analyze(store)
        let f = try #require(try store.database.rows("SELECT detail FROM finding WHERE code = 'local-terminated'").first?[0].string)
        #expect(f.contains("The remote central's app (a CBCentralManager) sees centralManager(_:didDisconnectPeripheral:error:) with CBError.peripheralDisconnected (the local host's Disconnect reached it with reason 0x13)"), "\(f)")
        #expect(!f.contains("its own host ended the link"))
    }
}

private func scratchDirectory() -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("blereplay-bumble-qa-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url.path
}
