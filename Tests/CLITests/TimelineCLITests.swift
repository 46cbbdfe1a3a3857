import Foundation
import Testing

@Suite("blereplay timeline, diagnose, gatt", .serialized)
struct TimelineCLITests {
    let yeelock = CLI.sharedCapture("android-yeelock.btsnoop")

    @Test func timelineOfACaptureShowsOneLinePerPacket() throws {
        let r = try CLI.run(["timeline", yeelock])
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 690)
        #expect(lines.first?.hasPrefix("      1     0.000000 ") == true)
    }

    @Test func jsonIsOneObjectPerLine() throws {
        let r = try CLI.run(["timeline", yeelock, "--json", "--layer", "att"])
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 104)   // tshark: 104 ATT PDUs
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["layer"] as? String == "att")
        }
    }

    @Test func errorsFilterShowsTheDisconnects() throws {
        let r = try CLI.run(["timeline", yeelock, "--errors"])
        #expect(r.status == 0)
        #expect(r.stdout.components(separatedBy: "reason 0x13").count - 1 == 2)
    }

    @Test func pipingIntoHeadEndsQuietly() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "'\(CLI.executable.path)' timeline '\(CLI.sharedCapture("android-classic-spp.btsnoop"))' | head -n 2; echo \"status ${PIPESTATUS:-0}\""]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(stdout.split(separator: "\n").count == 3)
        #expect(stderr.isEmpty)
    }

    @Test func diagnoseNamesTheCauseAndFailsOnErrors() throws {
        let capture = CLI.sharedCapture("android-lock-pairing.btsnoop")
        let r = try CLI.run(["diagnose", capture, "--fail-on", "error"])
        #expect(r.status == 1)   // connection 4 failed to be established (0x3E)
        #expect(r.stdout.contains("failed-to-establish"))
        // An Android phone's log (its vendor commands say so): the Android app's view, not CoreBluetooth's.
        #expect(r.stdout.contains("onConnectionStateChange status 62 GATT_CONN_FAIL_ESTABLISH"))
        #expect(!r.stdout.contains("CBError.connectionFailed"))
        #expect(r.stdout.contains("local-terminated"))
        let json = try CLI.run(["diagnose", capture, "--json"])
        #expect(json.status == 0)
        let parsed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        let connections = parsed?.first?["connections"] as? [[String: Any]]
        #expect(connections?.count == 7)
        #expect(connections?.compactMap { $0["disconnect_reason"] as? Int }.sorted() == [0x16, 0x3E])
        // JSON carries both views.
        #expect(connections?.compactMap { $0["cb_error"] as? String }.contains("CBError.connectionFailed") == true)
        #expect(connections?.compactMap { $0["android_status"] as? Int }.sorted() == [0, 62])
    }

    @Test func gattShowsTheDiscoveredDatabase() throws {
        let r = try CLI.run(["gatt", yeelock])
        #expect(r.status == 0)
        #expect(r.stdout.contains("Service 1800 Generic Access"))
        let json = try CLI.run(["gatt", yeelock, "--json"])
        let devices = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect((devices?.first?["services"] as? [Any])?.isEmpty == false)
    }

    /// A capture with no connection (a btsnoop header and nothing else, Android's btsnoop_hci.log
    /// layout): one sentence, ended by a line break as every other output is.
    @Test func gattWithNoDatabaseSaysSoOnALine() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("header-only.btsnoop").path
        // "btsnoop\0", version 1, datalink 1002 (H4), big-endian.
        let header: [UInt8] = Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA]
        try Data(header).write(to: URL(fileURLWithPath: path))
        let r = try CLI.run(["gatt", path])
        #expect(r.status == 0)
        #expect(r.stdout == "No LE connection in this timeline: no GATT database to show.\n")
    }
}
