import BLECore
import Foundation
import Testing
@testable import BLEReplay

/// A faithful replay's work per link does not grow with the number of links (issue 17): at each
/// buffer the recorded controller returned (Number Of Completed Packets), the host visited every
/// link that was up, looking for one waiting to send a write without response. On the many-links
/// shape (`blegen.adversarial --links`: an ATT Write Command and its buffer return on every link,
/// twice, the links up to the capture's end) that made the replay quadratic in the links: 2.3 s of
/// CPU at 15,360 links, 26 s at 61,440. The work is counted, not timed.
@Suite("replay work against the number of links")
struct LinkCountWorkTests {
    /// The replay of `controllers` x `handles` links: the links, and those the host visited.
    static func replay(controllers: Int, handles: Int) throws -> (links: Int, visited: Int) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("link-work-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let capture = directory.appendingPathComponent("links.btsnoop").path
        try GeneratedSession.runPython(["python3", "-m", "blegen.adversarial", "--links", "\(controllers)", "\(handles)", capture])
        let session = try TestCaptures.session(capture)
        let (result, world) = FaithfulReplay.run(session, configuration: ReplayConfiguration())
        #expect(result.verdicts.count == controllers * handles)
        #expect(result.allReproduced)
        return (result.verdicts.count, world.host.linksVisitedForWriteReady)
    }

    @Test func linksVisitedPerLinkDoNotGrowWithTheLinks() throws {
        let few = try Self.replay(controllers: 2, handles: 256)
        let many = try Self.replay(controllers: 2, handles: 2048)
        // Eight times the links: visiting every live link per buffer return costs eight times
        // the visits per link (about 1,000 at 512 links, 8,000 at 4,096).
        let perLinkFew = Double(few.visited) / Double(few.links), perLinkMany = Double(many.visited) / Double(many.links)
        #expect(perLinkMany <= perLinkFew + 1, "links visited per link: \(perLinkFew) at \(few.links) links, \(perLinkMany) at \(many.links)")
    }

    /// Every link going down at once (a `disconnect` fault at a moment, which takes down each
    /// peer's links, or a controller reset): taking each out of the host's links was a pass over
    /// those still up, so 61,424 links took 30 s to go down (`replay --runs` drew such faults).
    @Test func linksGoingDownAtOnceCostTheSamePerLink() throws {
        func down(controllers: Int, handles: Int) throws -> (links: Int, visited: Int) {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("link-down-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let capture = directory.appendingPathComponent("links.btsnoop").path
            try GeneratedSession.runPython(["python3", "-m", "blegen.adversarial", "--links", "\(controllers)", "\(handles)", capture])
            let session = try TestCaptures.session(capture)
            var configuration = ReplayConfiguration()
            // After the first round of writes (100 µs a record), before the second.
            let at = Int64(controllers * handles) * 100 + 1_000
            configuration.faults = [try FaultSpec(parsing: "disconnect:0x13@t=\(Double(at) / 1e6)s")]
            let (result, world) = FaithfulReplay.run(session, configuration: configuration)
            #expect(result.firedFaults.count == controllers * handles)
            #expect(world.host.linkCount == 0)
            #expect(world.host.allLinks.allSatisfy { $0.endReason?.rawValue == 0x13 })
            return (result.verdicts.count, world.host.linkSlotsVisited)
        }
        let few = try down(controllers: 2, handles: 256)
        let many = try down(controllers: 2, handles: 2048)
        let perLinkFew = Double(few.visited) / Double(few.links), perLinkMany = Double(many.visited) / Double(many.links)
        // A pass over the links still up per link down: 256 per link at 512 links, 2,048 at 4,096.
        #expect(perLinkMany <= 4 && perLinkMany <= perLinkFew + 1,
                "slots visited per link: \(perLinkFew) at \(few.links) links, \(perLinkMany) at \(many.links)")
    }
}
