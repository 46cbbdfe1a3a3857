import Foundation
import Testing

/// `blereplay diagnose` compared with golden outputs, whole, on real and sample captures.
///
/// Re-record after an intended change with `BLEREPLAY_RECORD_GOLDEN=1 swift test --filter DiagnoseGolden`
/// and review the diff of `Tests/CLITests/Golden/` like code.
@Suite("diagnose golden outputs", .serialized)
struct DiagnoseGoldenTests {
    static let cases: [(capture: String, shared: Bool)] = [
        ("android-pongbot.btsnoop", true),
        ("android-lock-pairing.btsnoop", true),
        ("android-yeelock.btsnoop", true),
        ("android-lock-long-session.btsnoop", true),
        ("smartwatch-h4-phdr.pcapng", true),
        ("heart-rate-supervision-timeout.btsnoop", false),
        ("att-timeout.btsnoop", false),
        ("failed-to-establish.btsnoop", false),
        ("pairing-failed.btsnoop", false),
        ("auth-errors.btsnoop", false),
    ]

    @Test(arguments: cases.map(\.capture))
    func matchesGolden(_ name: String) throws {
        let shared = Self.cases.first { $0.capture == name }!.shared
        // Run from the package root with a relative path, so the output names the file the same everywhere.
        let relative = shared ? "../shared/captures/\(name)" : "Captures/\(name)"
        let r = try CLI.run(["diagnose", relative], cwd: CLI.packageRoot)
        #expect(r.status == 0)
        #expect(r.stderr.isEmpty)
        let golden = CLI.packageRoot.appendingPathComponent("Tests/CLITests/Golden/\(name).diagnose.txt")
        if ProcessInfo.processInfo.environment["BLEREPLAY_RECORD_GOLDEN"] != nil {
            try Data(r.stdout.utf8).write(to: golden)
            return
        }
        let expected = try String(contentsOf: golden, encoding: .utf8)
        if r.stdout != expected {
            let got = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            let want = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let first = zip(got, want).enumerated().first { $0.element.0 != $0.element.1 }
            Issue.record("diagnose \(name) differs from \(golden.lastPathComponent) at line \((first?.offset ?? min(got.count, want.count)) + 1):\n  got:  \(first.map { String($0.element.0) } ?? "<end>")\n  want: \(first.map { String($0.element.1) } ?? "<end>")")
        }
    }
}
