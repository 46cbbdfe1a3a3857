import Foundation
import Testing
import TestSupport

/// `diagnose` of a sniffer's capture whose followed connection stops while the capture goes on
/// (`blegen.air --lost 1`: a Read Request unanswered, 1 s of events, then 40 s of advertising):
/// the link is not "still open when the capture ended", in text and JSON alike.
@Suite("blereplay diagnose on a sniffer's capture")
struct AirDiagnoseCLITests {
    @Test func aConnectionLostFromViewIsNotOpenAtTheEnd() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("lost.pcap").path
        try BlegenSessions.run("air", ["--lost", "1", capture])
        let text = try CLI.run(["diagnose", capture])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(!text.stdout.contains("still open when the capture ended"))
        // The last event is packets 71-72 at 1.051 s; ADV_IND every 100 ms for 40 s follows.
        #expect(text.stdout.contains("ended: not in the capture: its last packet is 72 (09:00:01.051), 39.930 s before the capture ended"),
                "\(text.stdout)")
        #expect(text.stdout.contains("WARNING connection-lost-from-view"))
        #expect(!text.stdout.contains("att-timeout"))
        let json = try CLI.run(["diagnose", capture, "--json"])
        let captures = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        let connection = (captures?.first?["connections"] as? [[String: Any]])?.first
        let unseen = connection?["ended_unseen"] as? [String: Any]
        #expect(unseen?["capture_went_on_us"] as? Int == 39_929_850)
        #expect(connection?["transaction_timeouts"] as? Int == 0)
    }
}
