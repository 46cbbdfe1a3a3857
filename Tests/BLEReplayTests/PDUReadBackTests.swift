import Foundation
import Testing
import BLETimeline
@testable import BLEReplay

/// A long ATT PDU held by reference is read back only as it was loaded (issue 17: no silent
/// loss): when its `att_pdu` row was changed under the replay (same length, other bytes), the
/// read-back gives the first bytes the reference kept, never the other bytes, and counts it, so
/// `replay` exits 65 saying so.
@Suite("long PDUs read back from the timeline")
struct PDUReadBackTests {
    @Test func aRowChangedUnderTheReplayIsCountedNotUsed() throws {
        let dir = try GeneratedSession.temporaryDirectory("pdu-read-back")
        let capture = dir.appendingPathComponent("huge-att.pklg").path
        try GeneratedSession.runPython(["python3", "-m", "blegen.adversarial", "--huge-att", "6", capture])
        let source = try TimelineSource(path: capture)
        let path = source.store.path
        let pdus = PDUSource()
        let sessions = try RecordingLoader.load(source.store, pduSource: pdus, jobs: 1)
        pdus.keep(source)
        let long = sessions.flatMap(\.connections).flatMap(\.pdus).filter(\.data.isReference)
        let first = try #require(long.first)
        let loaded = first.data.bytes
        #expect(loaded.count == first.data.count && pdus.unreadable == 0, "read back whole while the row is as loaded")

        // Another writer rewrites every long PDU's row with other bytes of the same length.
        let writer = try SQLiteDatabase(path: path)
        try writer.execute("UPDATE att_pdu SET pdu = zeroblob(length(pdu)) WHERE length(pdu) > \(PDUBytes.inlineLimit)")
        let after = first.data.bytes
        #expect(after != Array(repeating: 0, count: loaded.count), "the changed row's bytes were used")
        #expect(after == first.data.head, "the reference's first bytes stand in")
        #expect(pdus.unreadable == 1)
        pdus.close()
    }
}
