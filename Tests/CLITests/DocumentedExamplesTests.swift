import Foundation
import Testing

/// Every `$ blereplay …` example in README.md and Docs/*.md that runs on the sample captures is
/// run as shown (through /bin/sh, in a scratch directory that has `Captures/` and `Examples/`;
/// `/tmp/` becomes that directory) and prints what the document shows. An example may elide:
/// a line that is `…`, or begins `[…` (indented or not), stands for any number of lines; a line
/// ending in `…` for any ending; `in 0.3 s` for any duration. Examples that need a phone, a
/// warehouse, a Bluetooth controller or a file the project lacks are not run.
@Suite struct DocumentedExamplesTests {
    struct Example: CustomStringConvertible {
        var document: String
        var line: Int
        var command: String
        var output: [String]
        var description: String { "\(document):\(line) $ \(command)" }
    }

    static let notRunnable = ["adb ", "--warehouse", "--monitor", "bugreport-", "phone.db"]

    /// The examples of one document, in order (a later one may read what an earlier one wrote).
    static func examples(_ document: String) throws -> [Example] {
        let text = try String(contentsOf: CLI.packageRoot.appendingPathComponent(document), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        var examples: [Example] = []
        var inCode = false
        for (index, line) in lines.enumerated() {
            if line.hasPrefix("```") { inCode.toggle(); continue }
            guard inCode, line.hasPrefix("$ "), line.contains("blereplay ") else { continue }
            let command = String(line.dropFirst(2))
            guard !notRunnable.contains(where: command.contains) else { continue }
            let output = lines[(index + 1)...].prefix { !$0.hasPrefix("```") && !$0.hasPrefix("$ ") }
            examples.append(Example(document: document, line: index + 1, command: command, output: Array(output)))
        }
        return examples
    }

    static var documents: [String] {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: CLI.packageRoot.appendingPathComponent("Docs").path)) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "Docs/" + $0 }
    }

    /// Whether `actual` is what `expected` shows, elisions included.
    static func matches(_ expected: ArraySlice<String>, _ actual: ArraySlice<String>) -> Bool {
        guard let first = expected.first else { return actual.isEmpty }
        let trimmed = first.trimmingCharacters(in: .whitespaces)
        if trimmed == "…" || trimmed.hasPrefix("[…") {
            return (actual.startIndex...actual.endIndex).contains { matches(expected.dropFirst(), actual[$0...]) }
        }
        guard let line = actual.first, lineMatches(first, line) else { return false }
        return matches(expected.dropFirst(), actual.dropFirst())
    }

    static func lineMatches(_ expected: String, _ actual: String) -> Bool {
        let duration = #"in \d+(\.\d+)? s$"#
        let e = expected.replacingOccurrences(of: duration, with: "in D s", options: .regularExpression)
        let a = actual.replacingOccurrences(of: duration, with: "in D s", options: .regularExpression)
        if e.hasSuffix("…") { return a.hasPrefix(String(e.dropLast())) }
        return e == a
    }

    @Test(arguments: documents)
    func examplesPrintWhatTheDocumentShows(document: String) throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["Captures", "Examples"] {
            try FileManager.default.createSymbolicLink(at: dir.appendingPathComponent(name),
                                                       withDestinationURL: CLI.packageRoot.appendingPathComponent(name))
        }
        for example in try Self.examples(document) {
            let tool = "'" + CLI.executable.path + "'"
            let command = example.command.replacingOccurrences(of: "/tmp/", with: dir.path + "/")
                .replacingOccurrences(of: "blereplay ", with: tool + " ")
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            p.arguments = ["-c", command + " 2>&1"]
            p.currentDirectoryURL = dir
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            var actual = printed.replacingOccurrences(of: dir.path + "/", with: "/tmp/").components(separatedBy: "\n")
            if actual.last == "" { actual.removeLast() }
            #expect(Self.matches(example.output[...], actual[...]),
                    "\(example) prints:\n\(actual.joined(separator: "\n"))\n-- the document shows:\n\(example.output.joined(separator: "\n"))")
        }
    }

    /// The elision rules themselves.
    @Test func elisions() {
        #expect(Self.matches(["a", "…"], ["a", "b", "c"]))
        #expect(Self.matches(["a", "  […]", "d"], ["a", "b", "c", "d"]))
        #expect(Self.matches(["a", "[… 2 lines cut]", "d"], ["a", "d"]))
        #expect(Self.matches(["x: 1; …"], ["x: 1; 2; 3"]))
        #expect(Self.matches(["done in 0.3 s"], ["done in 1.25 s"]))
        #expect(!Self.matches(["a", "b"], ["a", "b", "c"]))
        #expect(!Self.matches(["a", "…", "d"], ["a", "b", "c"]))
        #expect(!Self.matches(["x: 1; …"], ["x: 2; 3"]))
    }
}
