import Foundation
import Testing
import TestSupport

/// `replay` of an LE Audio capture (`blegen.leaudio`: a CIS on the ACL, a BIG, ISO data; Core
/// v5.4 Vol 4 Part E 7.8.99, 7.8.103, 5.4.5): the ACL is replayed, the BIS handles are no
/// peripherals, and the output says the isochronous channels are not simulated.
@Suite("LE Audio replay")
struct LEAudioReplayTests {
    @Test func theACLIsReplayedAndTheIsochronousChannelsAreNamedAsNotSimulated() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let capture = "\(dir)/le-audio.btsnoop"
        try BlegenSessions.run("leaudio", [capture, "--big"])
        let r = try Tool.run(["replay", capture])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("1 connection(s): 1 reproduced, 0 diverged"), "\(r.stdout)")
        #expect(r.stdout.contains("isochronous channels (LE Audio CIS/BIS) are not replayed"), "\(r.stdout)")
    }
}
