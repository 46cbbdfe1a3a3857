import Foundation
import Testing

/// `blereplay replay` run as a user runs it: output, files, exit codes (DESIGN.md "Command line").
@Suite struct ReplayCLITests {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var executable: URL {
        let exe = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                      ?? CommandLine.arguments[0])
        return exe.deletingLastPathComponent().appendingPathComponent("blereplay")
    }

    static func run(_ arguments: [String], tool: URL = executable) throws -> Result {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let outURL = dir.appendingPathComponent("stdout"), errURL = dir.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        let p = Process()
        p.executableURL = tool
        p.arguments = arguments
        p.standardOutput = out
        p.standardError = err
        try p.run()
        p.waitUntilExit()
        try? out.close()
        try? err.close()
        return Result(status: p.terminationStatus, stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("blereplay-replay-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static var tshark: URL? {
        ["/usr/bin/tshark", "/usr/local/bin/tshark"].map(URL.init(fileURLWithPath:)).first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    @Test func faithfulReplayExitsZeroAndSaysReproduced() throws {
        let r = try Self.run(["replay", TestCaptures.sample("heart-rate-supervision-timeout.btsnoop")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("connection: reproduced"))
        #expect(r.stdout.contains("silent 20.238238 s after the 1st Write Request to 0x000F, then 0x08 Connection Timeout one supervision timeout later"))
        #expect(r.stdout.contains("2 connection(s): 2 reproduced, 0 diverged"))
    }

    @Test func aFaultMakesItDivergeWithExitOne() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let junit = dir.appendingPathComponent("junit.xml").path
        let r = try Self.run(["replay", TestCaptures.sample("heart-rate-healthy.btsnoop"), "--inject", "drop-response:read-request#1",
                              "--junit", junit, "--json"])
        #expect(r.status == 1)
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect(json?["reproduced"] as? Bool == false)
        let first = (json?["connections"] as? [[String: Any]])?.first
        let divergence = first?["divergence"] as? [String: Any]
        #expect(divergence?["kind"] as? String == "timing" || divergence?["kind"] as? String == "missing-pdu")
        #expect(divergence?["expected_packet_id"] is Int)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("<failure message="))
        #expect(xml.contains("tests=\"1\" failures=\"1\""))
    }

    @Test func usageAndInputErrorsHaveTheirExitCodes() throws {
        #expect(try Self.run(["replay"]).status == 2)
        #expect(try Self.run(["replay", TestCaptures.sample("att-timeout.btsnoop"), "--inject", "explode"]).status == 2)
        #expect(try Self.run(["replay", TestCaptures.sample("att-timeout.btsnoop"), "--unmatched", "maybe"]).status == 2)
        // An air capture is no input error: it is replayed (it was refused with 65).
        let air = try Self.run(["replay", TestCaptures.shared("sniffle-gatt.pcap")])
        #expect(air.status == 0, "\(air.stderr)")
        #expect(try Self.run(["replay", "/nonexistent.btsnoop"]).status == 65)
    }

    @Test func scriptModeWritesJUnitPerExpectation() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let junit = dir.appendingPathComponent("j.xml").path
        let script = "\(TestCaptures.packageRoot)/Examples/scripts/heart-rate-link-loss.json"
        let r = try Self.run(["replay", TestCaptures.sample("heart-rate-supervision-timeout.btsnoop"), "--central", script, "--junit", junit])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("PASSED: 6 checks, 0 failed"))
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("tests=\"6\" failures=\"0\""))
    }

    /// On a capture whose local device was the peripheral, `--central` plays the remote central
    /// against the recorded local GATT server: the shipped script passes (the local server's
    /// recorded answers: Body Sensor Location 01, tshark frame 35; its notifications after the
    /// subscription), with the same exit codes and JUnit output as any script run. Before, the
    /// script met a peripheral with no GATT database and its discovery found 0 services.
    @Test func aScriptPlaysTheRemoteCentralAgainstTheRecordedLocalServer() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let junit = dir.appendingPathComponent("j.xml").path
        let capture = TestCaptures.sample("heart-rate-peripheral.btsnoop")
        let script = "\(TestCaptures.packageRoot)/Examples/scripts/heart-rate-peripheral-phone.json"
        let r = try Self.run(["replay", capture, "--central", script, "--junit", junit])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("steps[2] discover: 1 services, 3 characteristics: 180D"), "\(r.stdout)")
        #expect(r.stdout.contains("steps[3] read 2A38: read ok, value 01"))
        #expect(r.stdout.contains("note: the script plays the remote central against the capture's local GATT server"))
        #expect(r.stdout.contains("PASSED: 9 checks, 0 failed"))
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("tests=\"9\" failures=\"0\""))
        // An expectation the recorded server does not meet fails the run (exit 1).
        let wrong = dir.appendingPathComponent("wrong.json").path
        try Data("""
            {"name": "wrong", "steps": [{"connect": {}}, {"discover": {}}, {"read": {"characteristic": "2A38", "expect": {"value": "hex:02"}}}]}
            """.utf8).write(to: URL(fileURLWithPath: wrong))
        let w = try Self.run(["replay", capture, "--central", wrong, "--json"])
        #expect(w.status == 1)
        #expect(w.stdout.contains("\"message\": \"value 01, expected 02\""), "\(w.stdout)")
    }

    /// `stop-reading` on the recording: the recorded collector reads nothing after the local
    /// server's 5th notification; the connection diverges (the local server's later PDUs are
    /// never acknowledged), the fault fires on both recorded connections, and the first link
    /// still ends with the recorded 0x08 at its recorded instant.
    @Test func stopReadingOnAFaithfulReplay() throws {
        let capture = TestCaptures.sample("heart-rate-peripheral.btsnoop")
        let r = try Self.run(["replay", capture, "--inject", "stop-reading@after=handle-value-notification#5", "--json"])
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect(!r.stdout.contains("faults_never_fired\" : [\n    \"stop"), "\(r.stdout)")
        #expect(r.stdout.components(separatedBy: "stop-reading@after=handle-value-notification#5").count - 1 >= 2)
    }

    /// The written capture decodes in tshark without malformed packets, and its ATT exchange
    /// (opcode, handle) equals the original's.
    @Test(arguments: ["heart-rate-supervision-timeout.btsnoop", "att-timeout.btsnoop", "auth-errors.btsnoop", "failed-to-establish.btsnoop"])
    func writtenCaptureMatchesTheOriginalInTshark(_ name: String) throws {
        guard let tshark = Self.tshark else { return }
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("sim.btsnoop").path
        let original = TestCaptures.sample(name)
        let r = try Self.run(["replay", original, "--write-capture", out])
        #expect(r.status == 0)
        let fields = ["-Y", "btatt", "-T", "fields", "-e", "btatt.opcode", "-e", "btatt.handle"]
        let a = try Self.run(["-r", original] + fields, tool: tshark)
        let b = try Self.run(["-r", out] + fields, tool: tshark)
        #expect(!a.stdout.isEmpty)
        #expect(a.stdout == b.stdout)
        let malformed = try Self.run(["-r", out, "-Y", "_ws.malformed || _ws.expert.severity == error"], tool: tshark)
        #expect(malformed.stdout.isEmpty, "\(malformed.stdout)")
    }

    @Test func sameInputsGiveByteIdenticalOutputs() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var outputs: [(String, Data)] = []
        for i in 0..<2 {
            let path = dir.appendingPathComponent("run\(i).btsnoop").path
            let r = try Self.run(["replay", TestCaptures.sample("heart-rate-supervision-timeout.btsnoop"), "--json", "--write-capture", path,
                                  "--inject", "latency-scale:2.5", "--seed", "9"])
            outputs.append((r.stdout, try Data(contentsOf: URL(fileURLWithPath: path))))
        }
        #expect(outputs[0].0 == outputs[1].0)
        #expect(outputs[0].1 == outputs[1].1)
        #expect(outputs[0].1.count > 1000)
    }
}
