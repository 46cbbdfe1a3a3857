import Foundation
import Testing
import TestSupport
import BLETimeline
@testable import BLEAnalysis

/// A sniffer shows a connection only while it follows it (`AirObservation`): when a followed
/// connection's packets stop and the capture goes on, its end is not in the capture. A request
/// unanswered when the packets stopped was not seen unanswered for 30 s (Core v5.4 Vol 3 Part F
/// 3.3.3): wave 1 called it an ATT timeout, and the link "still open when the capture ended", on
/// nRF Sniffer captures whose peer was seen advertising again a second later.
///
/// The captures come from the generator (`blegen.air --lost SECONDS`): an MTU exchange, a Read
/// Request never answered, SECONDS of Empty PDU events, then 40 s of the peripheral advertising.
@Suite("air captures: a connection lost from view")
struct AirLostConnectionTests {
    /// The request's outcome and the findings' codes with their evidence, for `followed` seconds of events.
    static func analyse(followed: Double) throws -> (outcome: String?, findings: [String: String]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("air-lost-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let capture = directory.appendingPathComponent("lost.pcap").path
        try BlegenSessions.run("air", ["--lost", "\(followed)", capture])
        let db = directory.appendingPathComponent("lost.db").path
        _ = try Importer.importCaptures([capture], into: db)
        let store = try TimelineStore(path: db)
        _ = try Analyzer.analyze(store)
        // Packets: 1 ADV_IND, 2 CONNECT_IND, 3-4 the MTU exchange, 5 the Read Request (0x0A).
        let outcome = try store.database.rows("SELECT outcome FROM att_transaction WHERE opcode = 10").first?[0].string
        var findings: [String: String] = [:]
        for r in try store.database.rows("SELECT code, evidence_packet_ids FROM finding") {
            findings[r[0].string ?? ""] = r[1].string ?? ""
        }
        // The diagnosis does not call the link open at the capture's end: it went 39.93 s on
        // without it (40 s of advertising every 100 ms after the last event, the first 100 ms on).
        let connection = try DiagnosisLoader.load(store).first?.connections.first
        #expect(connection?.lostFromView?.captureWentOn == 39_929_850)
        return (outcome, findings)
    }

    @Test func aRequestUnansweredWhenTheSnifferLostTheLinkIsNoTimeout() throws {
        // 1 s of events after the request: 33 events of 2 packets, the last packet 6 + 2 x 33 = 72.
        let (outcome, findings) = try Self.analyse(followed: 1)
        #expect(outcome == "pending")
        #expect(findings["att-timeout"] == nil)
        #expect(findings["connection-lost-from-view"] == "[72,73]")
        #expect(findings["capture-ended-pending"] == "[5,72]")
    }

    @Test func aRequestSeenUnansweredFor30SecondsIsATimeout() throws {
        // 31 s of events: the sniffer saw the link alive and the request unanswered past 30 s.
        let (outcome, findings) = try Self.analyse(followed: 31)
        #expect(outcome == "timeout")
        #expect(findings["att-timeout"] == "[5]")
        #expect(findings["connection-lost-from-view"] == "[2072,2073]")
    }
}
