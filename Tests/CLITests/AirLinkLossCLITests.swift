import Foundation
import Testing
import TestSupport

/// `diagnose` of a sniffer's capture that shows a link lost (`blegen.air --silent N`): the
/// peripheral goes silent while the central sends on at every connection event until its
/// supervision timeout and stops (Core v5.4 Vol 6 Part B 4.5.1, 4.5.2). The capture shows how
/// the link ended: not "the sniffer lost it", but 0x08 Connection Timeout (0x3E when the
/// peripheral never answered), inferred.
@Suite("blereplay diagnose on a sniffer's capture of a link loss")
struct AirLinkLossCLITests {
    @Test func aSilentPeripheralIsALinkLoss() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("silent.pcap").path
        try BlegenSessions.run("air", ["--silent", "100", capture])
        let text = try CLI.run(["diagnose", capture])
        #expect(text.status == 0, "\(text.stderr)")
        // 100 answered events (packets 3-202), then the central alone: packets 203-236.
        #expect(text.stdout.contains("ended: 0x08 Connection Timeout (inferred) at packet 236"), "\(text.stdout)")
        #expect(text.stdout.contains("WARNING connection-timeout-on-air"))
        // The detail is wrapped: its words with the line breaks taken out.
        let words = text.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("The peripheral's last packet is 202; the central went on sending at every connection event, 34 packet(s) from 203 to 236, unanswered for 1.020 s"))
        #expect(!text.stdout.contains("connection-lost-from-view"))
    }

    /// The same session as Ubertooth writes it, PPI (192) around LINKTYPE 251 (`--silent-ppi`):
    /// the same inference. It said "still open when the capture ended": a PPI capture was not
    /// taken for an air capture.
    @Test func aSilentPeripheralInAPPICaptureIsALinkLoss() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("silent-ppi.pcap").path
        try BlegenSessions.run("air", ["--silent-ppi", "100", capture])
        let text = try CLI.run(["diagnose", capture])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("pcap, LINKTYPE_PPI (192)"))
        #expect(text.stdout.contains("ended: 0x08 Connection Timeout (inferred) at packet 236"), "\(text.stdout)")
        #expect(text.stdout.contains("WARNING connection-timeout-on-air"))
    }

    @Test func aPeripheralThatNeverAnswered() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("never.pcap").path
        try BlegenSessions.run("air", ["--silent", "0", capture])
        let text = try CLI.run(["diagnose", capture])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("ended: 0x3E Connection Failed to be Established (inferred) at packet 8 (09:00:00.155): the peripheral answered none of the central's packets, and the central gave up"), "\(text.stdout)")
        let words = text.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("The peripheral answered none of the central's 6 packet(s) (3 to 8)"), "\(text.stdout)")
    }

    /// The app's view of an inferred ending is the one its controller's report would give
    /// (REFERENCE.md: 0x08 -> CBError 6 connectionTimeout, Android status 8 GATT_CONN_TIMEOUT; 0x3E
    /// -> didFailToConnect with CBError 10 connectionFailed, Android 62 GATT_CONN_FAIL_ESTABLISH),
    /// and `diagnose` and `report` say the same: `diagnose` showed none, `report` a CBError and no
    /// Android status.
    @Test(arguments: [("100", 8, "CBError.connectionTimeout", "8 GATT_CONN_TIMEOUT"),
                      ("0", 0x3E, "CBError.connectionFailed", "62 GATT_CONN_FAIL_ESTABLISH")])
    func diagnoseAndReportGiveTheAppsViewOfAnInferredEnding(events: String, code: Int, cbError: String, android: String) throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("silent.pcap").path
        try BlegenSessions.run("air", ["--silent", events, capture])
        let text = try CLI.run(["diagnose", capture])
        #expect(text.status == 0, "\(text.stderr)")
        let ended = text.stdout.split(separator: "\n").first { $0.contains("ended: ") } ?? ""
        #expect(ended.hasSuffix("→ app sees \(cbError); Android app: onConnectionStateChange status \(android)"), "\(ended)")
        #expect(text.stdout.contains("CoreBluetooth: \(cbError)") && text.stdout.contains("Android: status \(android)"), "\(text.stdout)")
        let out = dir.appendingPathComponent("report")
        let r = try CLI.run(["report", capture, "-o", out.path, "--format", "json", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("report.json"))) as? [String: Any]
        let reasons = (json?["disconnect_reasons"] as? [[String: Any]]) ?? []
        #expect(reasons.count == 1)
        #expect(reasons.first?["code"] as? Int == code)
        #expect(reasons.first?["cb_error"] as? String == cbError)
        #expect("\(reasons.first?["android_status"] ?? "nil") \(reasons.first?["android_name"] ?? "nil")" == android)
        #expect(reasons.first?["inferred"] as? Int == 1)
    }
}
