import BLECore
import Foundation
import Testing
@testable import BLEReplay
@testable import BLETimeline

/// Number Of Completed Packets (Core v5.4 Vol 4 Part E 7.7.19) name a connection handle, and
/// handles are per controller: in a btmon capture (btsnoop datalink 2001) of two adapters, each
/// with a link on handle 0x0040 at the same time, a replay must give each link its own
/// controller's buffer returns only. Matched by handle alone, each link got both controllers'
/// returns, and its host's buffers came back when the other adapter's did.
///
/// The capture and its answers come from the generator (`blegen.adversarial --same-handle`): per
/// link its controller, its Connection Complete time, one return per packet (µs after it) and its
/// eight Write Commands, four past the controller's four LE ACL buffers.
@Suite("completions per controller and handle")
struct MultiControllerCompletionsTests {
    struct Link {
        var controller: UInt16
        var handle: UInt16
        var peer: String
        var completions: [Int64]
        var writes: [Int64]
    }

    /// Generates the capture into a fresh directory: its path and the generator's answers.
    static func generate() throws -> (path: String, links: [Link], directory: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("same-handle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let capture = directory.appendingPathComponent("same-handle.btsnoop").path
        try GeneratedSession.runPython(["python3", "-m", "blegen.adversarial", "--same-handle", capture])
        let data = try Data(contentsOf: URL(fileURLWithPath: capture + ".json"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let links = try #require(manifest["links"] as? [[String: Any]]).map { l in
            Link(controller: UInt16(l["controller"] as? Int ?? -1), handle: UInt16(l["handle"] as? Int ?? -1),
                 peer: l["peer"] as? String ?? "", completions: (l["completions_us"] as? [Int] ?? []).map(Int64.init),
                 writes: (l["writes_us"] as? [Int] ?? []).map(Int64.init))
        }
        return (capture, links, directory)
    }

    /// The loaded link of `link`'s peer.
    static func connection(_ session: RecordedSession, _ link: Link) throws -> RecordedConnection {
        try #require(session.connections.first { $0.peer?.address.description == link.peer })
    }

    @Test func eachLinkGetsItsOwnControllersReturns() throws {
        let (path, links, directory) = try Self.generate()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(links.count == 2 && links.allSatisfy { $0.handle == 0x0040 })
        let session = try TestCaptures.session(path)
        for link in links {
            let c = try Self.connection(session, link)
            #expect(c.handle == link.handle)
            #expect(c.controller == link.controller)
            #expect(Array(session.completions(of: c)) == link.completions, "controller \(link.controller)")
        }
    }

    /// The scan the import stored and the one a replay runs over the packet rows key the returns
    /// by controller and handle alike.
    @Test func theStoredScanAndTheRunKeyByController() throws {
        let (path, links, directory) = try Self.generate()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try TimelineSource(path: path)
        let db = source.store.database
        let stored = try #require(try StoredPacketScan.read(1, db: db))
        let run = try CapturePacketScan.run(1, db: db)
        for link in links {
            let key = ControllerHandle(controller: link.controller, handle: link.handle)
            #expect(stored.completions[key]?.reduce(0) { $0 + $1.count } == link.completions.count)
            #expect(run.completions[key]?.map(\.time) == stored.completions[key]?.map(\.time))
        }
        #expect(stored.completions.count == links.count)
        #expect(try db.rows("SELECT controller_index FROM connection ORDER BY id").map { $0[0].int } == links.map { Int($0.controller) })
    }

    /// End to end: the replay's HCI trace returns each link's buffers when its own controller did,
    /// and the host sends each Write Command when the recording's did (µs after its link came up).
    @Test func theReplayReturnsBuffersAsEachControllerDid() throws {
        let (path, links, directory) = try Self.generate()
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = try TestCaptures.session(path)
        var configuration = ReplayConfiguration()
        configuration.keepTrace = true
        let (result, world) = FaithfulReplay.run(session, configuration: configuration)
        #expect(result.allReproduced)
        let records = world.trace.records
        // LE Connection Complete (0x3E, subevent 0x01), in the order the links came up.
        let connected = records.filter { $0.kind == .event && $0.payload.starts(with: [0x3E]) && $0.payload.count > 2 && $0.payload[2] == 0x01 }
            .map(\.timestamp)
        #expect(connected.count == links.count)
        guard connected.count == links.count else { return }
        // Number Of Completed Packets (0x13): one per packet in a faithful replay.
        var returns: [Int64] = []
        for r in records where r.kind == .event && r.payload.first == 0x13 && r.payload.count >= 7 {
            returns += repeatElement(r.timestamp, count: Int(r.payload[5]) | Int(r.payload[6]) << 8)
        }
        let want = zip(links, connected).flatMap { link, origin in link.completions.map { origin + $0 } }
        #expect(returns.sorted() == want.sorted())
        // Each Write Command carries its controller and its number: ACL header (4), L2CAP (4),
        // opcode 0x52, attribute handle (2), then [controller, k].
        for (link, origin) in zip(links, connected) {
            let sent = records.filter { $0.kind == .acl && $0.direction == .sent && $0.payload.count == 13 && $0.payload[8] == 0x52
                                        && UInt16($0.payload[11]) == link.controller }
                .sorted { $0.payload[12] < $1.payload[12] }.map { $0.timestamp - origin }
            #expect(sent == link.writes, "controller \(link.controller)")
        }
    }
}
