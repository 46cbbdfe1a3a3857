import BLECore
import Foundation
import TestSupport
import Testing
@testable import BLEReplay

/// A Service Changed indication (2A05, Core v5.4 Vol 3 Part G 7.1) is replayed like other
/// indications, anchored to the connection start (Docs/replay.md "Anchoring rules").
@Suite struct ServiceChangedReplayTests {
    static func session() throws -> RecordedSession {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("service-changed-\(UUID().uuidString).btsnoop").path
        try SpecCapture.serviceChanged().write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try TestCaptures.session(path)
    }

    @Test func theIndicationIsAnchoredToTheConnectionStart() throws {
        let session = try Self.session()
        let model = try #require(ModelBuilder.build(session).peripherals.first)
        #expect(model.extractor.serviceChangedHandles == [0x0008])
        let indication = try #require(model.behaviours.first?.actions.first { $0.pdu.first == 0x1D })
        #expect(indication.pdu == [0x1D, 0x08, 0x00, 0x0D, 0x00, 0x10, 0x00])
        guard case .linkStart = indication.anchor else { Issue.record("anchored to \(indication.anchor)"); return }
        #expect(indication.delay == SpecCapture.serviceChangedOffset)
    }

    @Test func faithfulReplaySendsItAtTheRecordedInstant() throws {
        var c = ReplayConfiguration()
        c.keepTrace = true
        let (r, world) = FaithfulReplay.run(try Self.session(), configuration: c)
        let v = try #require(r.verdicts.first)
        #expect(v.reproduced, "\(v.divergence.map { "\($0.kind): expected \($0.expected), got \($0.got)" } ?? "")")
        let link = try #require(world.host.allLinks.first)
        // ACL from the controller: H4-less payload = handle(2) length(2) L2CAP length(2) CID(2) ATT...
        let sent = try #require(world.trace.records.first { $0.kind == .acl && $0.payload.count > 8 && $0.payload[8] == 0x1D })
        #expect(Array(sent.payload[8...]) == [0x1D, 0x08, 0x00, 0x0D, 0x00, 0x10, 0x00])
        #expect(link.relative(sent.timestamp - world.configuration.epoch) == SpecCapture.serviceChangedOffset)
        #expect(world.trace.records.contains { $0.kind == .acl && $0.payload.count > 8 && $0.payload[8] == 0x1E })
    }
}
