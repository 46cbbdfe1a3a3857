import Foundation
import Testing

/// Replay output says what each time counts from, and JUnit's testcase `time` is a duration.
@Suite("replay: time bases and JUnit durations")
struct ReplayTimeBaseTests {
    /// `time="…"` of each `<testcase>`, in order.
    static func testcaseTimes(_ xml: String) -> [Double] {
        xml.split(separator: "\n").filter { $0.contains("<testcase ") }.compactMap { line in
            guard let r = line.range(of: "time=\"") else { return nil }
            return Double(line[r.upperBound...].prefix { $0 != "\"" })
        }
    }

    @Test func faithfulTimesAreConnectionTimesAndJUnitHoldsDurations() throws {
        let dir = try ReplayCLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let junit = dir.appendingPathComponent("junit.xml").path
        let r = try ReplayCLITests.run(["replay", TestCaptures.sample("heart-rate-supervision-timeout.btsnoop"), "--junit", junit])
        #expect(r.status == 0)
        // Connection 1 ends 26.130195 s after its LE Connection Complete (frames 41 → 145 in the
        // timeline: 1.227973 s → 27.358168 s); connection 2 lasts 12.125192 s.
        #expect(r.stdout.contains("disconnected 0x08 Connection Timeout at +26.130195 s into conn 1"))
        #expect(r.stdout.contains("disconnected 0x16 Connection Terminated By Local Host at +12.125192 s into conn 2"))
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(Self.testcaseTimes(xml) == [26.130, 12.125])
        #expect(xml.contains("tests=\"2\" failures=\"0\" errors=\"0\" time=\"38.255\""))
        // JSON names the base of every time.
        let json = try ReplayCLITests.run(["replay", TestCaptures.sample("heart-rate-healthy.btsnoop"), "--inject", "drop-response:read-request#1", "--json"])
        #expect(json.stdout.contains("\"time_into_connection_us\""))
        #expect(!json.stdout.contains("\"time_us\""))
        #expect(json.stdout.contains("\"duration_us\""))
    }

    @Test func scriptTimesAreReplayTimesAndJUnitHoldsDurations() throws {
        let dir = try ReplayCLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let junit = dir.appendingPathComponent("j.xml").path
        let script = "\(TestCaptures.packageRoot)/Examples/scripts/heart-rate-link-loss.json"
        let r = try ReplayCLITests.run(["replay", TestCaptures.sample("heart-rate-supervision-timeout.btsnoop"), "--central", script, "--junit", junit, "--json"])
        #expect(r.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let checks = try #require(object["checks"] as? [[String: Any]])
        let decided = checks.compactMap { $0["replay_time_us"] as? Int }
        #expect(decided.count == checks.count && decided == decided.sorted())
        for event in try #require(object["events"] as? [String]) {
            #expect(event.hasPrefix("t+") && event.contains(" s (replay)  "), "\(event)")
        }
        // Each testcase lasts from the previous decision to its own: the durations add up to the last one.
        let times = Self.testcaseTimes(try String(contentsOfFile: junit, encoding: .utf8))
        #expect(times.count == checks.count)
        let last = Double(try #require(decided.last)) / 1e6
        #expect(abs(times.reduce(0, +) - last) < 0.001 * Double(times.count))
        #expect(times.allSatisfy { $0 >= 0 })
    }
}
