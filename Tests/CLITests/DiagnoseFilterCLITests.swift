import Foundation
import Testing

/// `diagnose`'s filters, run as a user runs them on the sample capture the README diagnoses.
@Suite("blereplay diagnose filters")
struct DiagnoseFilterCLITests {
    let capture = CLI.sample("heart-rate-supervision-timeout.btsnoop")

    /// `SEVERITY code` of each finding line, and `Connection N` of each connection heading.
    static func outline(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            if line.hasPrefix("Connection ") { return String(line.prefix { $0 != " " && $0 != "—" }) + " " + String(line.split(separator: " ")[1]) }
            let t = line.trimmingCharacters(in: .whitespaces)
            for s in ["ERROR", "WARNING", "INFO"] where t.hasPrefix(s + " ") {
                return s + " " + (t.dropFirst(s.count).trimmingCharacters(in: .whitespaces).split(separator: ":").first.map(String.init) ?? "")
            }
            return nil
        }
    }

    @Test func severityKeepsFindingsAtOrAboveIt() throws {
        let all = try CLI.run(["diagnose", capture])
        #expect(Self.outline(all.stdout) == ["Connection 1", "ERROR supervision-timeout", "INFO att-error",
                                              "Connection 2", "INFO local-terminated", "INFO att-error"])
        let errors = try CLI.run(["diagnose", capture, "--severity", "error"])
        #expect(errors.status == 0)
        #expect(Self.outline(errors.stdout) == ["Connection 1", "ERROR supervision-timeout"])
        let warnings = try CLI.run(["diagnose", capture, "--severity", "warning", "--json"])
        let parsed = try JSONSerialization.jsonObject(with: Data(warnings.stdout.utf8)) as? [[String: Any]]
        #expect((parsed?.first?["connections"] as? [Any])?.count == 1)
    }

    /// The heading counts the capture's connections whatever the filter, and says how many of
    /// them the filter shows (it counted only those: "1 LE connection(s)" for a capture of two).
    @Test func theHeadingKeepsTheCapturesCounts() throws {
        let all = try CLI.run(["diagnose", capture])
        #expect(all.stdout.contains("  2 LE connection(s), ") && !all.stdout.contains("shown (the filters)"))
        let errors = try CLI.run(["diagnose", capture, "--severity", "error"])
        #expect(errors.stdout.contains("  2 LE connection(s), "), "\(errors.stdout)")
        #expect(errors.stdout.contains("; 1 connection(s) shown (the filters)"), "\(errors.stdout)")
    }

    @Test func packetFiltersSelectConnectionsAndFindings() throws {
        let second = try CLI.run(["diagnose", capture, "--conn-handle", "0x0041"])
        #expect(Self.outline(second.stdout) == ["Connection 2", "INFO local-terminated", "INFO att-error"])
        // The supervision timeout's evidence is frames 144 and 145, at 22.857647 s and 27.358168 s.
        let late = try CLI.run(["diagnose", capture, "--since", "22.8", "--until", "27.4"])
        #expect(Self.outline(late.stdout) == ["Connection 1", "ERROR supervision-timeout"])
        // A filter that selects no packet checked nothing: said on stderr, exit 1.
        let none = try CLI.run(["diagnose", capture, "--since", "1000"])
        #expect(none.status == 1)
        #expect(none.stderr.contains("no packet matches --since 1000"))
        #expect(try CLI.run(["diagnose", capture, "--severity", "fatal"]).status == 2)
    }
}
