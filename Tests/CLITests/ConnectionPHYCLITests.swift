import Foundation
import Testing
import TestSupport

/// `diagnose` names the PHY a connection uses on its parameters line: on air the one it began on
/// (CONNECT_IND: LE 1M, legacy advertising being on LE 1M only; AUX_CONNECT_REQ: its secondary
/// channel's PHY; Core v5.4 Vol 6 Part B 2.3, 4.5), and on air and HCI alike its PHY updates
/// (LL_PHY_UPDATE_IND at its instant, LE PHY Update Complete; Vol 4 Part E 7.7.65.12).
@Suite("blereplay diagnose: the connection's PHY")
struct ConnectionPHYCLITests {
    func parameterLines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("  parameters") }
    }

    @Test func anAuxConnectReqOnCodedIsACodedLink() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("extended.pcap").path
        try BlegenSessions.run("air", ["--extended", capture])
        let r = try CLI.run(["diagnose", capture])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = parameterLines(r.stdout)
        #expect(lines.count == 2, "\(r.stdout)")
        // Connection 1: AUX_CONNECT_REQ on LE Coded; connection 2: CONNECT_IND.
        #expect(lines.first?.hasSuffix("supervision timeout 3000 ms, PHY LE Coded") == true, "\(lines)")
        #expect(lines.last?.hasSuffix("supervision timeout 4000 ms, PHY LE 1M") == true, "\(lines)")
    }

    @Test func anUpdateOnAirIsShownAfterTheFirstPHY() throws {
        let r = try CLI.run(["diagnose", CLI.sharedCapture("sniffle-gatt.pcap")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(parameterLines(r.stdout).contains { $0.hasSuffix(", PHY LE 1M; 1 PHY update(s), last: LE 2M") }, "\(r.stdout)")
    }

    /// Generated HCI sessions (`blegen.sessions`): LE Set PHY, then LE PHY Update Complete,
    /// accepted (LE 2M both ways) or rejected (0x1A, no change). Each accepted one is counted on
    /// its link's parameters line; the PHY a link began on is not in HCI, so none is named.
    @Test func hciUpdatesAreCountedAndRejectedOnesAreNot() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sessions = try BlegenSessions.generate(seed: 9, count: 6, shape: nil, into: dir.path)
        var accepted = 0, shown = 0
        for s in sessions {
            accepted += s.links.map { (($0["shapes"] as? [String]) ?? []).filter { $0 == "PHY update accepted" }.count }.reduce(0, +)
            let r = try CLI.run(["diagnose", s.path])
            #expect(r.status == 0, "\(r.stderr)")
            for line in parameterLines(r.stdout) {
                #expect(!line.contains(", PHY LE"), "\(line)")
                guard let range = line.range(of: " PHY update(s), last: ") else { continue }
                #expect(line[range.upperBound...].hasPrefix("LE 2M"), "\(line)")
                let count = line[..<range.lowerBound].split(separator: " ").last.flatMap { Int($0) } ?? 0
                shown += count
            }
        }
        #expect(accepted > 0)
        #expect(shown == accepted)
    }
}
