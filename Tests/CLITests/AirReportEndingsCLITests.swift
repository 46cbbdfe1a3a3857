import Foundation
import Testing
import TestSupport

/// `report` on sniffer's captures counts each link's ending as `diagnose` says it: the 0x08 or
/// 0x3E inferred when the peripheral went silent and the central stopped after the supervision
/// timeout (Core v5.4 Vol 6 Part B 4.5.2), marked inferred, and an LL_TERMINATE_IND's error code
/// (Vol 6 Part B 2.4.2) as reported.
@Suite("blereplay report on sniffer's captures: the endings diagnose infers")
struct AirReportEndingsCLITests {
    func report(_ arguments: [String], _ dir: URL) throws -> (stdout: String, csv: String, json: String) {
        let out = dir.appendingPathComponent("out").path
        let r = try CLI.run(["report"] + arguments + ["-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let csv = (try? String(contentsOfFile: out + "/disconnect_reasons.csv", encoding: .utf8)) ?? ""
        let json = (try? String(contentsOfFile: out + "/report.json", encoding: .utf8)) ?? ""
        return (r.stdout, csv, json)
    }

    @Test func aLinkLostOnAirIsCountedAsInferred() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("silent.pcap").path
        try BlegenSessions.run("air", ["--silent", "100", capture])
        let r = try report([capture], dir)
        #expect(r.stdout.contains("disconnect reasons (1): 0x08 Connection Timeout (inferred) ×1"), "\(r.stdout)")
        #expect(r.csv.contains("8,0x08,Connection Timeout (inferred),"), "\(r.csv)")
        #expect(r.json.contains("\"inferred\": 1"), "\(r.json)")
    }

    @Test func aPeripheralThatNeverAnsweredIsAnInferredFailure() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("never.pcap").path
        try BlegenSessions.run("air", ["--silent", "0", capture])
        let r = try report([capture], dir)
        #expect(r.stdout.contains("1 LE connection attempt(s), 0 established"), "\(r.stdout)")
        #expect(r.stdout.contains("disconnect reasons (1): 0x3E Connection Failed to be Established (inferred) ×1"), "\(r.stdout)")
        // No LE Connection Complete on air: not "reported complete then dropped".
        #expect(r.stdout.contains("connection attempts: 0 reported complete then dropped with 0x3E before coming up, 1 never answered on air (0x3E inferred), "), "\(r.stdout)")
    }

    /// An LL_TERMINATE_IND's error code is the link's reason, reported, not inferred; with an
    /// inferred one of the same code in the fleet, the row says how many were inferred.
    @Test func aTerminateIsReportedAndMixedCountsSayHowManyWereInferred() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try BlegenSessions.run("air", [dir.appendingPathComponent("air").path])
        let lost = dir.appendingPathComponent("silent.pcap").path
        try BlegenSessions.run("air", ["--silent", "100", lost])
        let r = try report([dir.appendingPathComponent("air/le-ll.pcap").path], dir)
        #expect(r.stdout.contains("disconnect reasons (1): 0x13 Remote User Terminated Connection ×1"), "\(r.stdout)")
        let both = try report([lost, lost.replacing("silent.pcap", with: "air")], dir)
        #expect(both.stdout.contains("0x08 Connection Timeout (inferred) ×1"), "\(both.stdout)")
        #expect(both.stdout.contains("0x13 Remote User Terminated Connection ×2"), "\(both.stdout)")
    }
}
