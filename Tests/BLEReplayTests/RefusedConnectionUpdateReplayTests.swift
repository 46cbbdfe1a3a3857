import BLEAnalysis
import BLECore
import BLETimeline
import Foundation
import TestSupport
import Testing
@testable import BLEReplay

/// An LE Connection Update Complete with a non-zero status (Core v5.4 Vol 4 Part E 7.7.65.3): the
/// update did not happen, but the event did, and `import` makes a `connection_update` row and an
/// `unacceptable-parameters` finding of it. Before, the replay dropped such events (the loader
/// kept only successful updates), so `replay --write-capture` wrote a capture whose import lost
/// the row and the finding.
@Suite struct RefusedConnectionUpdateReplayTests {
    static let peer: [UInt8] = [0xE1, 0x22, 0x33, 0x44, 0x55, 0x88]

    /// One link (handle 0x0040, local central, 30 ms / 4 s), records in ms:
    ///
    ///     100  LE Connection Complete
    ///     150  Read Request 0x0003 / 170 Read Response 41
    ///     1000 LE Connection Update (0x2013) / 1002 Command Status 0
    ///     1050 LE Connection Update Complete, refused:
    ///          3E 0A | 03 (subevent) | 3B (Unacceptable Connection Parameters) | 40 00 (handle)
    ///          | 06 00 (interval 7.5 ms) | 00 00 (latency) | 64 00 (timeout 1 s)
    ///     2000 LE Connection Update Complete, accepted: 03 | 00 | 40 00 | 0C 00 (15 ms) | 00 00 | C8 00 (2 s)
    ///     2500 LE Connection Update Complete, refused: 03 | 1A (Unsupported Remote Feature) | 40 00
    ///          | 18 00 (30 ms) | 04 00 (latency 4) | 90 01 (4 s)
    ///     3000 Read Request 0x0003 / 3020 Read Response 42
    ///     4000 Disconnect 0x13 / 4001 Command Status / 4030 Disconnection Complete 0x16
    static func capture() -> SpecCapture {
        var c = SpecCapture()
        let h: UInt16 = 0x40
        c.connectionComplete(100, handle: h, role: 0, peer: peer)
        c.att(150, handle: h, [0x0A, 0x03, 0x00], received: false)
        c.att(170, handle: h, [0x0B, 0x41], received: true)
        c.cmd(1_000, 0x2013, c.le16(h) + [0x06, 0x00, 0x06, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00, 0x00, 0x00])
        c.commandStatus(1_002, 0x2013)
        c.evt(1_050, 0x3E, [0x03, 0x3B] + c.le16(h) + [0x06, 0x00, 0x00, 0x00, 0x64, 0x00])
        c.evt(2_000, 0x3E, [0x03, 0x00] + c.le16(h) + [0x0C, 0x00, 0x00, 0x00, 0xC8, 0x00])
        c.evt(2_500, 0x3E, [0x03, 0x1A] + c.le16(h) + [0x18, 0x00, 0x04, 0x00, 0x90, 0x01])
        c.att(3_000, handle: h, [0x0A, 0x03, 0x00], received: false)
        c.att(3_020, handle: h, [0x0B, 0x42], received: true)
        c.cmd(4_000, 0x0406, c.le16(h) + [0x13])
        c.commandStatus(4_001, 0x0406)
        c.disconnectionComplete(4_030, handle: h, reason: 0x16)
        return c
    }

    /// What `import` of a capture says about its connections' parameter updates: each HCI
    /// `connection_update` row (time from the link's start, status, parameters) and each finding
    /// (severity, code, title; details name packet numbers, which differ between the files).
    struct Facts: Equatable, CustomStringConvertible {
        var updates: [String]
        var findings: [String]
        var description: String { (updates + findings).joined(separator: "\n") }
    }

    static func facts(_ path: String) throws -> Facts {
        let source = try TimelineSource(path: path)
        var facts = Facts(updates: [], findings: [])
        for capture in try DiagnosisLoader.load(source.store) {
            for c in capture.connections {
                let start = c.start ?? 0
                for u in c.updates where u.source == "hci" {
                    facts.updates.append("conn \(c.handle) +\(u.timestamp - start) us status \(u.status ?? 0) "
                                         + "interval \(u.intervalUs ?? -1) latency \(u.latency ?? -1) timeout \(u.supervisionTimeoutMs ?? -1)")
                }
                for f in c.findings {
                    facts.findings.append("conn \(c.handle) \(f.finding.severity) \(f.finding.code): \(f.finding.title)")
                }
            }
        }
        return facts
    }

    @Test func theWrittenCaptureImportsTheSameUpdatesAndFindings() throws {
        try TestCaptures.writtenRoundTrip(Self.capture(), name: "refused-update") { original, written, _, result in
            #expect(result.allReproduced)
            let before = try Self.facts(original)
            let after = try Self.facts(written)
            // The original itself: three updates, two refused, each a finding.
            #expect(before.updates.count == 3)
            #expect(before.updates.filter { $0.contains("status 59") }.count == 1)
            #expect(before.updates.filter { $0.contains("status 26") }.count == 1)
            #expect(before.findings.filter { $0.contains("unacceptable-parameters") }.count == 2)
            #expect(after == before, "original:\n\(before)\nwritten:\n\(after)")
        }
    }

    /// A refused update changes nothing on the link: the parameters in force stay the accepted ones.
    @Test func aRefusedUpdateLeavesTheParametersAsTheyWere() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("refused-\(UUID().uuidString).btsnoop").path
        try Self.capture().write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let session = try TestCaptures.session(path)
        let c = try #require(session.connections.first)
        #expect(c.parameterUpdates.map(\.parameters.interval) == [15_000])
        #expect(c.refusedUpdates.map(\.status.rawValue) == [0x3B, 0x1A])
        #expect(c.refusedUpdates.map(\.offset) == [950_000, 2_400_000])
        var configuration = ReplayConfiguration()
        configuration.keepTrace = true
        let (_, world) = FaithfulReplay.run(session, configuration: configuration)
        let link = try #require(world.host.allLinks.first)
        #expect(link.parameters.interval == 15_000 && link.parameters.supervisionTimeout == 2_000_000)
    }
}
