import Foundation
import Testing

/// `replay` must not hold every recorded ATT PDU for the whole run (issue 17): its peak memory
/// stays flat against the number of 64 KiB records. Measured as the kernel's peak RSS of the
/// process (`/usr/bin/time -f %M`, `LinkMemoryCLITests.peakKiB`) on two PacketLogger captures of
/// 64 KiB ATT PDUs (`blegen.adversarial --huge-att N`: Write Requests, Notifications, Read
/// Responses), replayed from the capture (imported into a scratch timeline) and from a timeline.
///
/// Today the recording keeps each PDU's bytes (RecordedPDU, RecordedCentral.Action.send, the
/// AnswerTable keys, AnchoredPDU, ValueHistory) and the simulated link's log shares them: ~62 KiB
/// per record, 600 more records cost ~37 MB. The test records that as a known issue; when the
/// PDUs are held by reference it stops recording one, `withKnownIssue` then fails, and the
/// wrapper is to be removed.
@Suite("replay memory against the number of 64 KiB records", .serialized)
struct ReplayValueMemoryCLITests {
    static let directory = CLI.temporaryDirectory()

    /// A PacketLogger capture of `records` 64 KiB ATT PDUs on one connection.
    static func capture(records: Int) throws -> String {
        let path = directory.appendingPathComponent("huge-att-\(records).pklg").path
        _ = try AdversarialCorpusTests.python(["-m", "blegen.adversarial", "--huge-att", String(records), path])
        #expect(FileManager.default.fileExists(atPath: path))
        return path
    }

    /// The capture imported into a timeline.
    static func timeline(_ capture: String) throws -> String {
        let db = capture + ".db"
        let r = try CLI.run(["import", capture, "--db", db, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        return db
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time")), arguments: [false, true])
    func peakMemoryIsFlat(fromTimeline: Bool) throws {
        var few = try Self.capture(records: 200), many = try Self.capture(records: 800)
        if fromTimeline { (few, many) = (try Self.timeline(few), try Self.timeline(many)) }
        // The generated capture does not reproduce (exit 1, diverged); only the memory is measured.
        let small = try LinkMemoryCLITests.peakKiB(["replay", few], statuses: [0, 1])
        let large = try LinkMemoryCLITests.peakKiB(["replay", many], statuses: [0, 1])
        withKnownIssue("issue 17: the recording holds every 64 KiB PDU for the whole run") {
            // 600 more records of 64 KiB (~37 MB): within 8 MB when none is held.
            #expect(large - small < 8 * 1024, "replay \(fromTimeline ? "DB" : "CAPTURE"): \(small) KiB at 200 records, \(large) KiB at 800")
        }
    }
}
