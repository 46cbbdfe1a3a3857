import Foundation
import Testing

/// `--controller N` of `timeline` and `diagnose`: handles are numbered per controller (Core v5.4
/// Vol 4 Part E 5.3.1), so in a btmon capture of several adapters `--conn-handle` alone selects a
/// link of each. The capture is the generator's (`blegen.adversarial --same-handle`: two
/// controllers, a link on handle 0x0040 of each at once); counts are tshark's
/// `hci_mon.adapter_id`.
@Suite("blereplay --controller")
struct ControllerFilterCLITests {
    static func sameHandleCapture(_ dir: URL) throws -> String {
        let capture = dir.appendingPathComponent("same-handle.btsnoop").path
        _ = try AdversarialCorpusTests.python(["-m", "blegen.adversarial", "--same-handle", capture])
        return capture
    }

    /// The `[conn N]` tags of a timeline's lines.
    static func connections(_ r: CLI.Result) -> Set<String> {
        Set(TimelineFilterCLITests.lines(r).compactMap { line in
            line.range(of: #"\[conn \d+\]"#, options: .regularExpression).map { String(line[$0]) }
        })
    }

    @Test func timelineSelectsOneControllersRecordsAsTsharkDoes() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = try Self.sameHandleCapture(dir)
        var byController: [Int] = []
        for controller in [0, 1] {
            let r = try CLI.run(["timeline", capture, "--controller", String(controller)])
            #expect(r.status == 0, "\(r.stderr)")
            let lines = TimelineFilterCLITests.lines(r)
            #expect(lines.count == (try TimelineFilterCLITests.tsharkCount(capture, "hci_mon.adapter_id == \(controller)")))
            byController.append(lines.count)
            // With the handle: that controller's link only, one connection.
            let link = try CLI.run(["timeline", capture, "--controller", String(controller), "--conn-handle", "0x0040"])
            #expect(Self.connections(link).count == 1, "\(Self.connections(link))")
        }
        let all = try CLI.run(["timeline", capture, "--conn-handle", "0x0040"])
        #expect(Self.connections(all).count == 2, "--conn-handle alone selects the link of each controller")
        #expect(byController.allSatisfy { $0 > 0 })
        let bad = try CLI.run(["timeline", capture, "--controller", "hci1"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--controller takes a controller (adapter) index"))
    }

    @Test func diagnoseNamesTheControllerWhenTheCaptureHasSeveral() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = try Self.sameHandleCapture(dir)
        let r = try CLI.run(["diagnose", capture])
        let headers = r.stdout.split(separator: "\n").filter { $0.hasPrefix("Connection ") }
        #expect(headers.count == 2)
        #expect(headers.first?.contains("handle 0x0040 on hci0,") == true, "\(headers)")
        #expect(headers.last?.contains("handle 0x0040 on hci1,") == true, "\(headers)")
        let one = try CLI.run(["diagnose", capture, "--controller", "1"])
        #expect(one.stdout.split(separator: "\n").filter { $0.hasPrefix("Connection ") }.count == 1)
        let json = try CLI.run(["diagnose", capture, "--json"])
        #expect(json.stdout.contains("\"controller_index\": 1"))
        // A capture of one controller says nothing of it in text.
        let single = try CLI.run(["diagnose", CLI.sample("heart-rate-healthy.btsnoop")])
        #expect(!single.stdout.contains(" on hci"))
        #expect(single.stdout.contains("handle 0x0040, LE"))
    }
}
