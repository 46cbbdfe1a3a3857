import TestSupport
import Foundation
import Testing
@testable import BLEReport

/// A link that began before the capture (ACL on a handle with no LE Connection Complete in the
/// file) is an established connection but no attempt: every output counts it the same way.
@Suite("report: links that began before the capture")
struct BeganBeforeCaptureReportTests {
    /// Handle 0x0040 is up when the capture starts (a notification, then 0x08 Connection
    /// Timeout); then one attempt the capture shows: LE Connection Complete (Vol 4 Part E
    /// 7.7.65.1) on 0x0041, ended by the peer with 0x13.
    static func capture() -> SpecCapture {
        var c = SpecCapture()
        c.att(0, handle: 0x40, [0x1B, 0x0F, 0x00, 0x06, 0x48], received: true)
        c.disconnectionComplete(4_500, handle: 0x40, reason: 0x08)
        c.connectionComplete(5_000, handle: 0x41, role: 0, peer: [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51])
        c.disconnectionComplete(6_000, handle: 0x41, reason: 0x13)
        return c
    }

    @Test func countedAsEstablishedNotAsAttempt() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        try Self.capture().write(to: dir + "/mid.btsnoop")
        let s = try Support.statistics([dir + "/mid.btsnoop"])
        #expect(s.attempts == 1 && s.established == 2 && s.beganBefore == 1)
        // Still counted for disconnect reasons: 0x08 and 0x13 (REFERENCE.md: CBError 6 and 7).
        #expect(s.count(.disconnect, 0x08)?.count == 1 && s.count(.disconnect, 0x13)?.count == 1)
        _ = try ReportWriter.write(s, to: dir + "/out", formats: [.json, .md, .csv, .html])
        let json = try Support.json(dir + "/out/report.json")
        let connections = try #require(json["connections"] as? [String: Any])
        #expect(connections["attempts"] as? Int == 1 && connections["established"] as? Int == 2)
        #expect(connections["began_before_capture"] as? Int == 1)
        let byCapture = try #require((json["by_capture"] as? [[String: Any]])?.first)
        #expect(byCapture["attempts"] as? Int == 1 && byCapture["connections"] as? Int == 2)
        let headline = "1 LE connection attempt(s), 2 established (counting 1 link(s) that began before their capture, with no attempt in it)"
        for file in ["report.md", "report.html"] {
            let text = String(decoding: Support.read(dir + "/out/" + file), as: UTF8.self)
            #expect(text.contains(headline), "\(file)")
        }
        let csv = String(decoding: Support.read(dir + "/out/by_capture.csv"), as: UTF8.self).split(separator: "\n")
        let header = csv[0].split(separator: ",").map(String.init)
        let row = csv[1].split(separator: ",").map(String.init)
        #expect(row[header.firstIndex(of: "attempts")!] == "1" && row[header.firstIndex(of: "connections")!] == "2")
    }

    /// connections.csv says which rows are links that began before the capture (the
    /// `connections` view's `began_before_capture`), under the documented header.
    @Test func connectionsCSVSaysWhichLinksBeganBeforeTheCapture() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        try Self.capture().write(to: dir + "/mid.btsnoop")
        let s = try Support.statistics([dir + "/mid.btsnoop"])
        _ = try ReportWriter.write(s, to: dir + "/out", formats: [.csv])
        let lines = String(decoding: Support.read(dir + "/out/connections.csv"), as: UTF8.self).split(separator: "\n")
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let column = try #require(header.firstIndex(of: "began_before_capture"))
        let handle = try #require(header.firstIndex(of: "handle_hex"))
        let byHandle = Dictionary(uniqueKeysWithValues: lines.dropFirst().map { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return (f[handle], f[column])
        })
        #expect(byHandle == ["0x0040": "1", "0x0041": "0"])
    }

    /// The lanes caption counts attempts as the headline does: 22 LE Connection Complete events
    /// and one link already up when the capture began make "22 attempts", not 23.
    @Test func lanesCaptionCountsAttemptsAsTheHeadlineDoes() throws {
        var c = Self.capture()
        for i in 0..<21 {
            let t = 7_000 + Int64(i) * 1_000
            c.connectionComplete(t, handle: 0x42, role: 0, peer: [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51])
            c.disconnectionComplete(t + 500, handle: 0x42, reason: 0x13)
        }
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        try c.write(to: dir + "/many.btsnoop")
        let s = try Support.statistics([dir + "/many.btsnoop"])
        #expect(s.attempts == 22 && s.beganBefore == 1)
        _ = try ReportWriter.write(s, to: dir + "/out", formats: [.html])
        let html = String(decoding: Support.read(dir + "/out/report.html"), as: UTF8.self)
        #expect(html.contains("(first \(ReportLanes.laneLimit) of 22 attempts and 1 link(s) that began before the capture)"))
        #expect(!html.contains("of 23 attempts"))
    }
}
