import Foundation
import Testing
import TestSupport

/// A sniffer's capture of extended advertising and two connections followed at once
/// (`blegen.air --extended`): an advertisement chained over AUX_ADV_IND and AUX_CHAIN_IND is
/// joined (Core v5.4 Vol 6 Part B 2.3.4, 4.4.2.8: the chain PDU carries the ADI, not the
/// advertiser's address), and each connection keeps its own peer, reads and ending.
@Suite("blereplay on a sniffer's extended advertising")
struct AirExtendedAdvertisingCLITests {
    @Test func chainedAdvertisementAndTwoConnections() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("extended.pcap").path
        try BlegenSessions.run("air", ["--extended", capture])
        let timeline = try CLI.run(["timeline", capture])
        #expect(timeline.status == 0, "\(timeline.stderr)")
        let lines = timeline.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 121)
        #expect(lines.first { $0.contains(" AUX_CHAIN_IND ") }?.hasSuffix("E1:22:33:44:55:77 (random) rssi -60 \"ChainedAdvertiserName\"") == true,
                "\(lines.prefix(4))")
        let text = try CLI.run(["diagnose", capture])
        #expect(text.status == 0, "\(text.stderr)")
        // Reports: AUX_ADV_IND and AUX_CHAIN_IND of the chain (one advertisement), "Ext", "Lock".
        #expect(text.stdout.contains("2 LE connection(s), 3 advertiser(s) in 4 advertising report(s)"), "\(text.stdout)")
        #expect(text.stdout.contains("Connection 1 — D0:11:22:33:44:66 (public) \"Ext\""))
        #expect(text.stdout.contains("Connection 2 — C4:7A:3B:12:9E:51 (public) \"Lock\""))
        #expect(text.stdout.components(separatedBy: "ATT: 2 PDU(s), 1 transaction(s), 0 error(s)").count == 3)
        #expect(text.stdout.contains("peer-terminated: D0:11:22:33:44:66 ended the connection"))
        #expect(text.stdout.contains("local-terminated: Connection to C4:7A:3B:12:9E:51 closed by the central"))
    }
}
