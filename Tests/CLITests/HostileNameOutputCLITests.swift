import Foundation
import Testing
import TestSupport

/// Names from the air and file names are any bytes. `replay`, `import` and `report` show them as
/// text, never as line breaks, terminal escape sequences, Markdown or HTML; JSON, JUnit and CSV
/// keep them exactly, quoted by their own rules. Also: `timeline --capture` of a capture the
/// timeline does not hold, and a reversed `--since`/`--until`, are usage errors (2).
@Suite struct HostileNameOutputCLITests {
    static let peer: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x52]

    /// Scan, one advertising report naming the device `name`, a connection to it, its end.
    static func capture(name: [UInt8], at path: String) throws {
        var c = SpecCapture()
        // LE Set Scan Enable (Vol 4 Part E 7.8.11): enable, no duplicate filtering.
        c.cmd(0, 0x200C, [0x01, 0x00])
        // LE Advertising Report (7.7.65.2): 1 report, ADV_IND, random address, AD: Flags 0x06,
        // Complete Local Name (Core Supplement Part A 1.2) with the name's bytes; RSSI -60.
        let ad: [UInt8] = [0x02, 0x01, 0x06, UInt8(name.count + 1), 0x09] + name
        c.evt(10, 0x3E, [0x02, 0x01, 0x00, 0x01] + peer.reversed() + [UInt8(ad.count)] + ad + [0xC4])
        c.commandStatus(20, 0x200D)
        c.connectionComplete(60, handle: 0x0040, role: 0, peer: peer)
        c.disconnectionComplete(2000, handle: 0x0040, reason: 0x13)
        try c.write(to: path)
    }

    /// "Door", a line break, "Lock", ESC [ 2 J.
    static let terminalName: [UInt8] = Array("Door\nLock".utf8) + [0x1B] + Array("[2J".utf8)

    /// The faithful report names the capture's file; a central script's checks name the device
    /// it found and connected to ("found NAME (ADDR)", "connected to NAME (ADDR)").
    @Test func replayPrintsNamesAsOneLine() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("two\nlines\u{1B}[2J.btsnoop").path
        try Self.capture(name: Self.terminalName, at: path)
        let junit = dir.appendingPathComponent("junit.xml").path

        let faithful = try CLI.run(["replay", path, "--junit", junit])
        #expect(faithful.status == 0, "\(faithful.stderr)")
        #expect(!faithful.stdout.contains("\u{1B}") && !faithful.stdout.contains("two\nlines"), "\(faithful.stdout)")
        #expect(faithful.stdout.hasPrefix(#"replay two\nlines\033[2J.btsnoop (faithful"#), "\(faithful.stdout)")
        #expect(faithful.stdout.split(separator: "\n").count == 4, "\(faithful.stdout)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(!xml.contains("\u{1B}"), "\(xml)")

        let json = try CLI.run(["replay", path, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
        #expect(object["capture"] as? String == "two\nlines\u{1B}[2J.btsnoop", "\(json.stdout)")

        let script = dir.appendingPathComponent("scan.json").path
        try #"{"name": "scan", "steps": [{"scan": {"timeout": "1s"}}, {"connect": {}}, {"disconnect": {}}]}"#
            .write(toFile: script, atomically: true, encoding: .utf8)
        let scripted = try CLI.run(["replay", path, "--central", script])
        #expect(!scripted.stdout.contains("\u{1B}") && !scripted.stdout.contains("Door\nLock"), "\(scripted.stdout)")
        #expect(scripted.stdout.contains(#"found Door\nLock\033[2J (C4:7A:3B:12:9E:52)"#), "\(scripted.stdout)")
        #expect(scripted.stdout.contains(#"connected to Door\nLock\033[2J (C4:7A:3B:12:9E:52)"#), "\(scripted.stdout)")
        let scriptedJSON = try CLI.run(["replay", path, "--central", script, "--json"])
        let result = try #require(try JSONSerialization.jsonObject(with: Data(scriptedJSON.stdout.utf8)) as? [String: Any])
        let checks = try #require(result["checks"] as? [[String: Any]])
        #expect(checks.contains { ($0["message"] as? String)?.contains(String(decoding: Self.terminalName, as: UTF8.self)) == true },
                "\(scriptedJSON.stdout)")
    }

    @Test func importPrintsAFileNameWithALineBreakAsOneLine() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("two\nlines\u{1B}[2J.btsnoop").path
        try Self.capture(name: Array("Lock".utf8), at: path)
        let db = dir.appendingPathComponent("t.db").path
        let r = try CLI.run(["import", path, "--db", db])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(r.stdout)")
        #expect(lines.first?.hasSuffix(#"two\nlines\033[2J.btsnoop: 5 records, btsnoop v1 H4"#) == true
                || lines.first?.contains(#"two\nlines\033[2J.btsnoop: 5 records"#) == true, "\(r.stdout)")
        #expect(!r.stdout.contains("\u{1B}"))
    }

    @Test func recordPrintsAFileNameWithALineBreakAsOneLine() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.btsnoop").path
        try Self.capture(name: Array("Lock".utf8), at: input)
        let output = dir.appendingPathComponent("two\nlines\u{1B}[2J.btsnoop").path
        let r = try CLI.run(["record", "--stdin", "-o", output], stdin: try Data(contentsOf: URL(fileURLWithPath: input)))
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(r.stdout)")
        #expect(lines.last?.hasSuffix(#"two\nlines\033[2J.btsnoop"#) == true, "\(r.stdout)")
        #expect(!r.stdout.contains("\u{1B}"))
    }

    /// Markdown and HTML in a device name and a file name show as written in report.md and
    /// report.html; the CSV quotes the name and keeps it exactly.
    @Test func reportEscapesMarkdownAndHTML() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let name = "<b>A</b>*x*|`c`\n_y_"
        let file = "<script>|[l](u)*.btsnoop"
        try Self.capture(name: Array(name.utf8), at: dir.appendingPathComponent(file).path)
        let out = dir.appendingPathComponent("out").path
        let r = try CLI.run(["report", dir.appendingPathComponent(file).path, "-o", out, "--jobs", "1", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")

        let md = try String(contentsOfFile: out + "/report.md", encoding: .utf8)
        // `\n_y\_`: the `_` after the `n` is inside a word, where it opens no emphasis (CommonMark 6.2).
        let escapedName = #"&lt;b&gt;A&lt;/b&gt;\*x\*\|\`c\`\\n_y\_"#
        let escapedFile = #"&lt;script&gt;\|\[l\](u)\*.btsnoop"#
        #expect(md.contains(escapedName), "\(md)")
        #expect(md.contains(escapedFile), "\(md)")
        #expect(!md.contains("<b>") && !md.contains("<script>") && !md.contains("*x*"))
        // Every row of the connections table has as many cells as its header.
        func cells(_ line: Substring) -> Int {
            var n = 0, escaped = false
            for c in line {
                if escaped { escaped = false; continue }
                if c == "\\" { escaped = true } else if c == "|" { n += 1 }
            }
            return n
        }
        let tableLines = md.split(separator: "\n").filter { $0.hasPrefix("|") }
        let row = try #require(tableLines.first { $0.contains(escapedName) })
        let header = try #require(tableLines.first { $0.hasPrefix("| Capture |") } ?? tableLines.first { $0.contains("Handle") })
        #expect(cells(row) == cells(header), "\(header)\n\(row)")

        let html = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        #expect(html.contains("&lt;b&gt;A&lt;/b&gt;") && !html.contains("<b>A"))
        #expect(html.contains("&lt;script&gt;") && !html.contains("<script>|"))

        let csv = try String(contentsOfFile: out + "/connections.csv", encoding: .utf8)
        #expect(csv.contains("\"" + name + "\""), "\(csv)")
    }

    @Test func aCaptureNotInTheTimelineAndAReversedWindowAreUsageErrors() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("c.btsnoop").path
        try Self.capture(name: Array("Lock".utf8), at: path)

        let missing = try CLI.run(["timeline", path, "--capture", "99"])
        #expect(missing.status == 2, "\(missing.stderr)")
        #expect(missing.stderr.contains("no capture 99"), "\(missing.stderr)")
        let present = try CLI.run(["timeline", path, "--capture", "1"])
        #expect(present.status == 0, "\(present.stderr)")

        for command in ["timeline", "diagnose"] {
            let reversed = try CLI.run([command, path, "--since", "21", "--until", "20"])
            #expect(reversed.status == 2, "\(command): \(reversed.stderr)")
            let utc = try CLI.run([command, path, "--since", "2026-05-04T08:00:02Z", "--until", "2026-05-04T08:00:01Z"])
            #expect(utc.status == 2, "\(command): \(utc.stderr)")
        }
        let point = try CLI.run(["timeline", path, "--since", "0", "--until", "0.02"])
        #expect(point.status != 2, "\(point.stderr)")
        let warehouse = try CLI.run(["report", "--warehouse", "postgres://127.0.0.1:1/none",
                                     "--since", "2026-03-02T00:00:00Z", "--until", "2026-03-01T00:00:00Z"])
        #expect(warehouse.status == 2, "\(warehouse.stderr)")
    }
}
