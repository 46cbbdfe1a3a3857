import Foundation
import Testing

/// `replay --seed N --runs K` (Docs/replay.md "Seeded fault runs") with CI's outputs: `--junit`
/// was silently not written (a CI job publishing results got no file), and `--write-capture`
/// silently ignored. Now the JUnit file holds one testcase per run, failing exactly where the
/// text says BROKE or NOT FIRED, and `--write-capture` is refused.
@Suite("replay --runs with --junit and --write-capture")
struct SeededRunsReportCLITests {
    @Test func junitHasOneTestcasePerRunFailingWhereTheTextSaysSo() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let junit = dir.appendingPathComponent("runs.xml").path
        let capture = CLI.sample("heart-rate-supervision-timeout.btsnoop")
        let r = try CLI.run(["replay", capture, "--seed", "7", "--runs", "4", "--junit", junit])
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        let runLines = r.stdout.split(separator: "\n").filter { $0.hasPrefix("  run ") }
        #expect(runLines.count == 4)
        let failing = runLines.filter { !$0.contains("  held  ") }.count
        #expect(r.status == (failing > 0 ? 1 : 0))
        #expect(xml.contains("<testsuites tests=\"4\" failures=\"\(failing)\">"))
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == 4)
        #expect(xml.components(separatedBy: "<failure ").count - 1 == failing)
        // Each testcase is named by the fault the text prints, to re-run it alone.
        for line in runLines {
            let fault = try #require(line.split(separator: "'").dropFirst().first)
            #expect(xml.contains("--inject &apos;\(XMLEscape.text(String(fault)))&apos;"), "\(line)")
        }
    }

    @Test func writeCaptureIsRefusedWithRuns() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("x.btsnoop").path
        let r = try CLI.run(["replay", CLI.sample("heart-rate-supervision-timeout.btsnoop"), "--runs", "2", "--write-capture", out])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--write-capture writes one replay, not --runs 2"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}

/// XML text escaping as the JUnit writer does it, for the characters a fault spec can hold.
enum XMLEscape {
    static func text(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "'", with: "&apos;")
    }
}
