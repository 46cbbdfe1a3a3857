import BLECore
import Foundation
import Testing
@testable import BLEReplay

/// The written capture (`--write-capture`) of a btmon capture of two adapters, each with a link
/// on handle 0x0040 at the same time (`blegen.adversarial --same-handle`). Handles are per
/// controller (Core v5.4 Vol 4 Part E 5.3.1 numbers them per controller): written as one H4
/// stream (btsnoop 1002), the two LE Connection Completes named one handle with no Disconnection
/// Complete between them, and the written file, imported again, gave the first link none of its
/// packets ("still connected", its 8 Write Commands counted on the second link, 16/16). Written as
/// a Linux monitor btsnoop (2001, each record with its controller index, as `btmon -w` writes),
/// each link keeps its own packets and ending.
@Suite("written trace of several controllers")
struct MultiControllerTraceTests {
    @Test func eachLinkStaysOnItsControllerInTheWrittenCapture() throws {
        let (path, links, directory) = try MultiControllerCompletionsTests.generate()
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = try TestCaptures.session(path)
        var c = FaithfulReplay.configuration(for: session, base: GeneratedSession.configuration)
        c.keepTrace = true
        let (result, world) = FaithfulReplay.run(session, configuration: c)
        #expect(result.verdicts.allSatisfy { $0.reproduced })
        let written = directory.appendingPathComponent("written.btsnoop").path
        try world.trace.writeBtsnoop(to: written)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: written))
        #expect(bytes.prefix(16).suffix(4) == Data([0, 0, 0x07, 0xD1]), "datalink 2001")

        // Read back: two links, each on its own controller, with its own packets and ending.
        let again = try TestCaptures.session(written)
        #expect(again.connections.count == 2)
        for link in links {
            let original = try MultiControllerCompletionsTests.connection(session, link)
            let replayed = try MultiControllerCompletionsTests.connection(again, link)
            #expect(replayed.controller == link.controller && replayed.handle == link.handle)
            #expect(replayed.pdus.count == original.pdus.count, "controller \(link.controller)")
            #expect(replayed.isEstablished && replayed.disconnect?.reason == original.disconnect?.reason && original.disconnect != nil,
                    "controller \(link.controller)")
        }
        let (second, _) = FaithfulReplay.run(again, configuration: FaithfulReplay.configuration(for: again, base: GeneratedSession.configuration))
        #expect(second.verdicts.count == 2 && second.verdicts.allSatisfy { $0.reproduced },
                "\(second.verdicts.map { "\($0.connectionID): \($0.recordedEnd) \($0.recordedPDUs)" })")
    }
}
