import Foundation
import Testing
import TestSupport

/// `diagnose` of a sniffer's capture that shows a link lost (`blegen.air --silent N`): the
/// peripheral goes silent while the central sends on at every connection event until its
/// supervision timeout and stops (Core v5.4 Vol 6 Part B 4.5.1, 4.5.2). The capture shows how
/// the link ended: not "the sniffer lost it", but 0x08 Connection Timeout (0x3E when the
/// peripheral never answered), inferred.
@Suite("blereplay diagnose on a sniffer's capture of a link loss")
struct AirLinkLossCLITests {
    @Test func aSilentPeripheralIsALinkLoss() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("silent.pcap").path
        try BlegenSessions.run("air", ["--silent", "100", capture])
        let text = try CLI.run(["diagnose", capture])
        #expect(text.status == 0, "\(text.stderr)")
        // 100 answered events (packets 3-202), then the central alone: packets 203-236.
        #expect(text.stdout.contains("ended: 0x08 Connection Timeout (inferred) at packet 236"), "\(text.stdout)")
        #expect(text.stdout.contains("WARNING connection-timeout-on-air"))
        // The detail is wrapped: its words with the line breaks taken out.
        let words = text.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("The peripheral's last packet is 202; the central went on sending at every connection event, 34 packet(s) from 203 to 236, unanswered for 1.020 s"))
        #expect(!text.stdout.contains("connection-lost-from-view"))
    }

    /// The same session as Ubertooth writes it, PPI (192) around LINKTYPE 251 (`--silent-ppi`):
    /// the same inference. It said "still open when the capture ended": a PPI capture was not
    /// taken for an air capture.
    @Test func aSilentPeripheralInAPPICaptureIsALinkLoss() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("silent-ppi.pcap").path
        try BlegenSessions.run("air", ["--silent-ppi", "100", capture])
        let text = try CLI.run(["diagnose", capture])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("pcap, LINKTYPE_PPI (192)"))
        #expect(text.stdout.contains("ended: 0x08 Connection Timeout (inferred) at packet 236"), "\(text.stdout)")
        #expect(text.stdout.contains("WARNING connection-timeout-on-air"))
    }

    @Test func aPeripheralThatNeverAnswered() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("never.pcap").path
        try BlegenSessions.run("air", ["--silent", "0", capture])
        let text = try CLI.run(["diagnose", capture])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("ended: 0x3E Connection Failed to be Established (inferred) at packet 8 (09:00:00.155): the peripheral answered none of the central's packets, and the central gave up"), "\(text.stdout)")
        let words = text.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("The peripheral answered none of the central's 6 packet(s) (3 to 8)"), "\(text.stdout)")
    }
}
