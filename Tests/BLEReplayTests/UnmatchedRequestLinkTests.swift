import BLECore
import Foundation
import Testing
@testable import BLEReplay

/// A request no recorded answer covered (`--unmatched strict`) is a divergence of the link it came
/// on, not of every link on its handle: in a btmon capture of two adapters, each with a link on
/// 0x0040 at once (`blegen.adversarial --same-handle`), a request noted on one link left the other
/// reported as diverged when the verdicts matched by handle alone.
@Suite("unmatched requests per link")
struct UnmatchedRequestLinkTests {
    @Test func anUnmatchedRequestIsTheVerdictOfItsLinkOnly() throws {
        let (path, links, directory) = try MultiControllerCompletionsTests.generate()
        defer { try? FileManager.default.removeItem(at: directory) }
        var session = try TestCaptures.session(path)
        // Stopped at 30 ms, both links still up (each ends 60 ms after it came up).
        session.end = 30_000
        let (_, world) = FaithfulReplay.run(session, configuration: ReplayConfiguration())
        // Compared as links the capture ended with (their recorded ends are after the stop).
        var a = try MultiControllerCompletionsTests.connection(session, links[0])
        var b = try MultiControllerCompletionsTests.connection(session, links[1])
        a.disconnect = nil
        b.disconnect = nil
        let linkA = try #require(world.host.links.first { $0.peripheral.model.key == links[0].peer })
        let linkB = try #require(world.host.links.first { $0.peripheral.model.key == links[1].peer })
        #expect(linkA.handle == 0x0040 && linkB.handle == 0x0040)
        // A Read Request (opcode 0x0A, attribute handle 0x0010) on controller 1's link.
        var request = ReplayWorld.UnmatchedRequest(time: 20_000, linkHandle: linkB.handle, peripheral: links[1].peer, pdu: [0x0A, 0x10, 0x00])
        request.link = ObjectIdentifier(linkB)
        let onA = ReplayComparison.compare(a, link: linkA, unmatched: [request], endingRule: nil)
        let onB = ReplayComparison.compare(b, link: linkB, unmatched: [request], endingRule: nil)
        #expect(onA.divergence?.kind != "unmatched-request")
        #expect(onB.divergence?.kind == "unmatched-request")
    }
}
