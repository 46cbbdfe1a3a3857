import BLETimeline
import Foundation
import Testing
@testable import BLEReport

/// `blereplay report` on a folder as a user collects one: btsnoop, PacketLogger, pcap and pcapng
/// (HCI and sniffer), an Android bug report with a btsnooz section, timelines (one holding
/// several captures), an empty file, a truncated capture, a text file, a capture copied under
/// another name, nested directories. Every input must be accounted for in every output, and the
/// figures must equal SQL over the same captures imported into a timeline.
@Suite("report: a messy folder")
struct MessyFolderReportTests {
    static let shared = ["ios-glasses.pklg", "scale-h4-phdr.pcap", "smartwatch-h4-phdr.pcapng", "sniffle-gatt.pcap"]

    /// Builds the folder; returns it with the inputs expected (relative path -> status) and the
    /// captures that should be counted (for the SQL cross-check).
    static func folder(_ dir: String) throws -> (expected: [String: String], counted: [String]) {
        let fm = FileManager.default
        for sub in ["android/2024", "ios", "sniffer", "timelines", "junk"] {
            try fm.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true)
        }
        try fm.copyItem(atPath: Support.sample("auth-errors.btsnoop"), toPath: dir + "/android/2024/btsnoop_hci.log")
        try fm.copyItem(atPath: Support.sample("auth-errors.btsnoop"), toPath: dir + "/android/copy of btsnoop_hci.cfa")
        try fm.copyItem(atPath: Support.shared("ios-glasses.pklg"), toPath: dir + "/ios/ios-glasses.pklg")
        try fm.copyItem(atPath: Support.shared("scale-h4-phdr.pcap"), toPath: dir + "/android/scale.pcap")
        try fm.copyItem(atPath: Support.shared("smartwatch-h4-phdr.pcapng"), toPath: dir + "/android/watch.pcapng")
        try fm.copyItem(atPath: Support.shared("sniffle-gatt.pcap"), toPath: dir + "/sniffer/sniffle-gatt.pcap")
        // Laid out as AOSP's btif_debug_btsnoop.cc dumps it (Tests/BLECaptureTests/Fixtures).
        let bugreport = Support.packageRoot.appendingPathComponent("Tests/BLECaptureTests/Fixtures/bugreport-btsnooz-v2.txt").path
        try fm.copyItem(atPath: bugreport, toPath: dir + "/android/bugreport-2023-11-14.txt")
        _ = try Support.timeline([Support.sample("heart-rate-healthy.btsnoop")], at: dir + "/timelines/one.db")
        _ = try Support.timeline([Support.sample("att-timeout.btsnoop"), Support.sample("pairing-failed.btsnoop"),
                                  Support.sample("failed-to-establish.btsnoop")], at: dir + "/timelines/several.db")
        // heart-rate-healthy again, as a file: one.db (walked later, in name order) is the duplicate.
        try fm.copyItem(atPath: Support.sample("heart-rate-healthy.btsnoop"), toPath: dir + "/junk/hrm-again.btsnoop")
        fm.createFile(atPath: dir + "/junk/empty.btsnoop", contents: Data())
        // Cut 7 bytes into the last record (a 24-byte record header and part of its data remain).
        let whole = Support.read(Support.sample("heart-rate-supervision-timeout.btsnoop"))
        try whole.prefix(whole.count - 7).write(to: URL(fileURLWithPath: dir + "/junk/truncated.btsnoop"))
        try Data("captured on the bench, see ticket 42\n".utf8).write(to: URL(fileURLWithPath: dir + "/junk/notes.txt"))
        let expected = [
            "android/2024/btsnoop_hci.log": "read", "android/copy of btsnoop_hci.cfa": "duplicate",
            "android/bugreport-2023-11-14.txt": "read", "android/scale.pcap": "read", "android/watch.pcapng": "read",
            "ios/ios-glasses.pklg": "read", "sniffer/sniffle-gatt.pcap": "read",
            "timelines/one.db": "duplicate", "timelines/several.db": "read",
            "junk/hrm-again.btsnoop": "read", "junk/empty.btsnoop": "failed", "junk/truncated.btsnoop": "partial",
            "junk/notes.txt": "failed",
        ]
        let counted = [dir + "/android/2024/btsnoop_hci.log", dir + "/android/bugreport-2023-11-14.txt",
                       dir + "/android/scale.pcap", dir + "/android/watch.pcapng", dir + "/ios/ios-glasses.pklg",
                       dir + "/sniffer/sniffle-gatt.pcap", dir + "/junk/hrm-again.btsnoop", dir + "/junk/truncated.btsnoop",
                       Support.sample("att-timeout.btsnoop"), Support.sample("pairing-failed.btsnoop"),
                       Support.sample("failed-to-establish.btsnoop")]
        return (expected, counted)
    }

    @Test func everyInputIsAccountedForAndTheFiguresEqualSQL() throws {
        let dir = Support.scratch(), out = Support.scratch()
        defer { Support.remove(dir); Support.remove(out) }
        let (expected, counted) = try Self.folder(dir)
        let r = try Tool.run(["report", dir, "-o", out, "--jobs", "3"])
        // Docs/report.md: 65 when an input is unreadable or corrupt, each named; the report is
        // written for the rest. The cut-short last record of truncated.btsnoop is only a warning.
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains("blereplay report: 2 input(s) unreadable or corrupt (the report covers the rest): "))
        #expect(!r.stderr.contains("corrupt, read up to the damage"))
        #expect(r.stdout.contains("11 capture(s) from 9 file(s), 2 file(s) could not be read"), "\(r.stdout)")
        for failed in ["junk/empty.btsnoop", "junk/notes.txt"] {
            #expect(r.stderr.contains("not read: \(dir)/\(failed): "), "\(failed)")
        }

        // report.json: every file with its status; the totals add up to the number of files.
        let json = try Support.json(out + "/report.json")
        let inputs = try #require(json["inputs"] as? [String: Any])
        let files = try #require(inputs["files"] as? [[String: Any]])
        var statuses: [String: String] = [:]
        for f in files { statuses[String((f["path"] as? String ?? "").dropFirst(dir.count + 1))] = f["status"] as? String }
        #expect(statuses == expected)
        #expect(inputs["read"] as? Int == 8 && inputs["partial"] as? Int == 1
                && inputs["failed"] as? Int == 2 && inputs["duplicate"] as? Int == 2)
        for f in files where f["status"] as? String == "failed" {
            #expect((f["reason"] as? String ?? "").contains(f["path"] as? String ?? "?"))
        }
        #expect(json["captures"] as? Int == counted.count)

        // inputs.csv (documented header), report.md and report.html name every file.
        let csv = try CSV.parse(String(decoding: Support.read(out + "/inputs.csv"), as: UTF8.self))
        #expect(csv.first == ["path", "kind", "status", "format", "captures", "reason"])
        #expect(Dictionary(uniqueKeysWithValues: csv.dropFirst().map { (String($0[0].dropFirst(dir.count + 1)), $0[2]) }) == expected)
        let md = String(decoding: Support.read(out + "/report.md"), as: UTF8.self)
        let html = String(decoding: Support.read(out + "/report.html"), as: UTF8.self)
        for path in expected.keys {
            #expect(md.contains("| \(dir)/\(path) |"), "\(path) in report.md")
            #expect(html.contains(HTMLCheck.escape("\(dir)/\(path)")), "\(path) in report.html")
        }
        #expect(HTMLCheck.problems(html) == [])

        // Every CSV parses, with a header of distinct names and rows as wide as the header.
        for name in try FileManager.default.contentsOfDirectory(atPath: out) where name.hasSuffix(".csv") {
            let rows = try CSV.parse(String(decoding: Support.read(out + "/" + name), as: UTF8.self))
            let header = try #require(rows.first)
            #expect(Set(header).count == header.count, "\(name): \(header)")
            #expect(rows.allSatisfy { $0.count == header.count }, "\(name)")
        }

        // The figures equal SQL over the counted captures imported into one timeline.
        let store = try Support.timeline(counted, at: dir + "/verify.db")
        let db = store.database
        func pairs(_ sql: String) throws -> [Int: Int] {
            Dictionary(uniqueKeysWithValues: try db.rows(sql).map { ($0[0].int ?? -1, $0[1].int ?? -1) })
        }
        func codes(_ key: String, _ code: String = "code") -> [Int: Int] {
            Dictionary(uniqueKeysWithValues: (json[key] as? [[String: Any]] ?? []).map { ($0[code] as? Int ?? -1, $0["count"] as? Int ?? -1) })
        }
        #expect(try db.scalarInt("SELECT count(*) FROM captures") == Int64(counted.count))
        let connections = try #require(json["connections"] as? [String: Any])
        let le = "FROM connections WHERE transport = 'le'"
        #expect(connections["attempts"] as? Int == Int(try db.scalarInt("SELECT count(*) \(le) AND began_before_capture = 0") ?? -1))
        #expect(connections["established"] as? Int == Int(try db.scalarInt("SELECT count(*) \(le) AND status = 0 AND coalesce(disconnect_reason, 0) <> 0x3E") ?? -1))
        #expect(connections["began_before_capture"] as? Int == Int(try db.scalarInt("SELECT count(*) \(le) AND began_before_capture = 1") ?? -1))
        #expect(connections["cancelled"] as? Int == Int(try db.scalarInt("SELECT count(*) \(le) AND status = 2") ?? -1))
        #expect(codes("disconnect_reasons") == (try pairs("""
            SELECT e.code, count(*) FROM errors e JOIN connections c ON c.id = e.connection_id
            WHERE e.context = 'disconnect' AND c.transport = 'le' GROUP BY 1
            """)))
        #expect(codes("att_errors") == (try pairs("SELECT code, count(*) FROM errors WHERE layer = 'att' AND context = 'error-response' GROUP BY 1")))
        #expect(codes("att_timeouts", "opcode") == (try pairs("SELECT opcode, count(*) FROM att_transactions WHERE outcome = 'timeout' GROUP BY 1")))
        #expect(codes("smp_failures") == (try pairs("SELECT code, count(*) FROM errors WHERE context = 'pairing-failed' GROUP BY 1")))
        #expect(codes("hci_command_errors") == (try pairs("SELECT code, count(*) FROM errors WHERE context = 'command' GROUP BY 1")))
        // Codes the samples are built with (Captures/README.md: failed-to-establish has 0x3E ×2).
        #expect(codes("disconnect_reasons")[0x3E] == 2 && codes("smp_failures")[0x04] == 1 && codes("att_timeouts", "opcode")[0x12] == 1)
    }
}

/// RFC 4180 fields, as Python's csv module reads them.
enum CSV {
    struct Malformed: Error {}
    static func parse(_ text: String) throws -> [[String]] {
        var rows: [[String]] = [], row: [String] = [], field = ""
        var quoted = false, afterQuote = false
        var it = Array(text.unicodeScalars)[...]
        while let c = it.popFirst() {
            if quoted {
                if c == "\"" {
                    if it.first == "\"" { field.unicodeScalars.append(c); it.removeFirst() } else { quoted = false; afterQuote = true }
                } else { field.unicodeScalars.append(c) }
                continue
            }
            switch c {
            case "\"":
                guard field.isEmpty, !afterQuote else { throw Malformed() }
                quoted = true
            case ",": row.append(field); field = ""; afterQuote = false
            case "\n": row.append(field); rows.append(row); row = []; field = ""; afterQuote = false
            case "\r": continue
            default:
                guard !afterQuote else { throw Malformed() }
                field.unicodeScalars.append(c)
            }
        }
        guard !quoted else { throw Malformed() }
        if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
        return rows
    }
}

/// Well-formedness of the report's HTML: a doctype, every non-void element closed in order
/// (HTML Living Standard 13.1.2), no attribute fetching anything (self-contained).
enum HTMLCheck {
    static let void: Set<String> = ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]

    static func escape(_ s: String) -> String {
        s.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
    }

    static func problems(_ html: String) -> [String] {
        var problems: [String] = []
        if !html.lowercased().hasPrefix("<!doctype html>") { problems.append("no doctype") }
        var stack: [String] = []
        let s = Array(html.utf8)
        var i = 0
        while i < s.count {
            guard s[i] == UInt8(ascii: "<") else { i += 1; continue }
            guard let end = s[i...].firstIndex(of: UInt8(ascii: ">")) else { problems.append("unterminated tag"); break }
            let tag = String(decoding: s[(i + 1)..<end], as: UTF8.self)
            i = end + 1
            if tag.hasPrefix("!") || tag.hasPrefix("?") { continue }
            let closing = tag.hasPrefix("/")
            let name = String((closing ? tag.dropFirst() : tag[...]).prefix { $0.isLetter || $0.isNumber || $0 == "-" }).lowercased()
            if name.isEmpty { problems.append("stray < before \(tag.prefix(20))"); continue }
            if closing {
                if stack.last == name { stack.removeLast() } else { problems.append("</\(name)> closes <\(stack.last ?? "nothing")>") }
            } else {
                for attr in ["src=\"http", "href=\"http", "src=\"//", "href=\"//"] where tag.contains(attr) {
                    problems.append("fetches: <\(tag.prefix(60))")
                }
                if void.contains(name) || tag.hasSuffix("/") { continue }
                stack.append(name)
                if name == "script" || name == "style" {
                    // Raw text until the matching end tag.
                    let close = Array("</\(name)".utf8)
                    var j = i
                    while j + close.count <= s.count, !s[j..<(j + close.count)].elementsEqual(close) { j += 1 }
                    i = j
                }
            }
        }
        if !stack.isEmpty { problems.append("unclosed: \(stack.suffix(5))") }
        if html.contains("@import") || html.contains("url(http") { problems.append("fetches a stylesheet or image") }
        return problems
    }
}
