import Foundation
import Testing
import BLECore
import BLECapture
import BLETimeline
@testable import BLELive

/// `record -o FILE` writes the format FILE's name says. `-o x.pcap` of a btsnoop stream wrote
/// btsnoop bytes into x.pcap, which Wireshark and libpcap then refuse or misread. A `.pcap` is
/// now a pcap file (LINKTYPE 201, H4 with direction, or 254 for Linux monitor records), and its
/// import gives the recording's own timeline; `.pcapng` is refused before recording
/// (`RecordCLITests.usageErrors`).
@Suite struct OutputFormatTests {
    /// The link type in a classic pcap file header (magic A1B2C3D4 in the writer's byte order,
    /// version, thiszone, sigfigs, snaplen, then the link type at bytes 20-23), nil when the
    /// file does not start with a pcap magic.
    static func pcapLinkType(_ path: String) throws -> UInt32? {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)).prefix(24))
        guard bytes.count == 24 else { return nil }
        let little = UInt32(bytes[20]) | UInt32(bytes[21]) << 8 | UInt32(bytes[22]) << 16 | UInt32(bytes[23]) << 24
        let big = UInt32(bytes[20]) << 24 | UInt32(bytes[21]) << 16 | UInt32(bytes[22]) << 8 | UInt32(bytes[23])
        switch Array(bytes[0..<4]) {
        case [0xD4, 0xC3, 0xB2, 0xA1]: return little
        case [0xA1, 0xB2, 0xC3, 0xD4]: return big
        default: return nil
        }
    }

    @Test(arguments: Live.btsnoopCaptures)
    func btsnoopStreamToPcapIsAPcapFileThatImportsAsTheRecording(name: String) throws {
        let dir = Live.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let summary = try RecordingEquivalenceTests.recordFromPipe(name, dir: dir, output: "rec.pcap")
        #expect(summary.outputKind == "pcap")
        let monitor = try CaptureFile.open(Live.capture(name)).info.linkType == 2001
        #expect(try Self.pcapLinkType(dir + "/rec.pcap") == (monitor ? 254 : 201))
        // Every record is in the file (a btmon capture's records all have a monitor form).
        let written = try Live.records(dir + "/rec.pcap")
        let source = try Live.records(Live.capture(name))
        #expect(written.count == summary.records && summary.records == source.count)
        try Live.importTimeline(dir + "/rec.pcap", into: dir + "/imported.db")
        try RecordingEquivalenceTests.expectSameTimeline(dir + "/rec.db", dir + "/imported.db")
        let capture = try Live.rows(dir + "/rec.db", "SELECT status, link_type FROM capture")
        #expect(capture.first == [.text("complete"), .integer(monitor ? 254 : 201)])
    }

    @Test func formatFollowsTheName() {
        #expect(RecordingFileFormat.forOutput("a.pcap") == .pcap)
        #expect(RecordingFileFormat.forOutput("A.PCAP") == .pcap)
        #expect(RecordingFileFormat.forOutput("a.btsnoop") == .btsnoop)
        #expect(RecordingFileFormat.forOutput("btsnoop_hci.log") == .btsnoop)
        #expect(RecordingFileFormat.forOutput("a.pcapng") == nil)
    }
}
