import Foundation
import Testing

/// Per-command help and the version, as a user types them; the help table, each command's own
/// parser, Docs/cli.md and the README's command list agree.
@Suite struct CommandHelpTests {
    /// The commands `blereplay help` lists.
    static func commands() throws -> [String] {
        let r = try CLI.run(["help"])
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "commands:") else { return [] }
        return lines[(start + 1)...].prefix { !$0.isEmpty }.compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    /// Option names (`db`, `o`, `verbose`) in a command's `--help`, without `-h, --help`.
    static func documentedOptions(_ help: String) -> Set<String> {
        var names: Set<String> = []
        for line in help.split(separator: "\n") where line.hasPrefix("  -") {
            // `  -o, --output DIR   help`: the spelling ends at the first double space.
            let spelling = line.dropFirst(2).components(separatedBy: "  ").first ?? ""
            for part in spelling.split(separator: ",") {
                if let word = part.split(separator: " ").first, word.hasPrefix("-") {
                    names.insert(String(word.drop(while: { $0 == "-" })))
                }
            }
        }
        return names.subtracting(["h", "help"])
    }

    /// The options the command's parser accepts, from its message for an unknown one.
    static func acceptedOptions(_ command: String) throws -> Set<String> {
        let r = try CLI.run([command, "--no-such-option-anywhere"])
        #expect(r.status == 2, "\(command): \(r.stderr)")
        guard let open = r.stderr.range(of: "(options: "), let close = r.stderr.range(of: "; --help lists them)") else {
            Issue.record("\(command): no option list in \(r.stderr)")
            return []
        }
        let list = r.stderr[open.upperBound..<close.lowerBound]
        return Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).drop(while: { $0 == "-" }) }.map(String.init))
    }

    @Test func everyCommandHasHelpThatMatchesItsParser() throws {
        let commands = try Self.commands()
        #expect(commands == ["import", "timeline", "diagnose", "gatt", "replay", "record", "report", "ingest", "export"])
        for command in commands {
            let long = try CLI.run([command, "--help"])
            #expect(long.status == 0, "\(command)")
            #expect(long.stdout.hasPrefix("usage: blereplay \(command) "), "\(long.stdout)")
            #expect(long.stderr == "")
            #expect(try CLI.run([command, "-h"]).stdout == long.stdout)
            #expect(try CLI.run(["help", command]).stdout == long.stdout)
            // Help wins over everything else on the line, even a missing argument.
            #expect(try CLI.run([command, "--json", "--help"]).status == 0)
            let documented = Self.documentedOptions(long.stdout)
            #expect(!documented.isEmpty || command == "gatt")
            #expect(documented == (try Self.acceptedOptions(command)), "\(command): help and parser differ")
            // One line per option.
            for line in long.stdout.split(separator: "\n") where line.hasPrefix("  -") {
                #expect(line.split(separator: " ", omittingEmptySubsequences: true).count >= 2, "\(line)")
            }
        }
    }

    @Test func versionAndHelpTopics() throws {
        let v = try CLI.run(["--version"])
        #expect(v.status == 0)
        #expect(v.stdout.range(of: #"^blereplay \d+\.\d+\.\d+ \(timeline schema \d+\)\n$"#, options: .regularExpression) != nil, "\(v.stdout)")
        let unknown = try CLI.run(["help", "frobnicate"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("unknown command 'frobnicate'"))
        #expect(try CLI.run(["--help"]).stdout == (try CLI.run(["help"])).stdout)
    }

    /// Docs/cli.md is what `blereplay help --markdown` prints (regenerate it with that command).
    @Test func docsMatchTheHelpTable() throws {
        let generated = try CLI.run(["help", "--markdown"])
        #expect(generated.status == 0)
        let doc = try String(contentsOf: CLI.packageRoot.appendingPathComponent("Docs/cli.md"), encoding: .utf8)
        #expect(doc == generated.stdout, "Docs/cli.md is stale: run `blereplay help --markdown > Docs/cli.md`")
    }

    /// The README's command list names every command, and every option it shows for a command
    /// (there and in its examples) is one that command documents.
    @Test func readmeAgreesWithTheHelp() throws {
        let readme = try String(contentsOf: CLI.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let commands = try Self.commands()
        var documented: [String: Set<String>] = [:]
        for c in commands { documented[c] = Self.documentedOptions(try CLI.run([c, "--help"]).stdout) }

        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: "## Commands"))
        let block = lines[(start + 1)...].drop { $0 != "```" }.dropFirst().prefix { $0 != "```" }
        for c in commands {
            #expect(block.contains { $0.hasPrefix("blereplay \(c) ") }, "README command list lacks \(c)")
        }
        // Every `blereplay COMMAND …` line in a code block, with its indented continuation lines.
        var inCode = false
        var current: String?
        for line in lines {
            if line.hasPrefix("```") { inCode.toggle(); current = nil; continue }
            guard inCode else { continue }
            var text = line
            if let r = line.range(of: "blereplay "), let word = line[r.upperBound...].split(separator: " ").first,
               documented[String(word)] != nil {
                current = String(word)
                text = String(line[r.upperBound...].dropFirst(word.count))
            } else if !line.hasPrefix(" ") {
                current = nil
            }
            guard let command = current else { continue }
            // Options up to the two-space gap before a description, and before a pipe to another program.
            let shown = text.components(separatedBy: "   ").first?.components(separatedBy: " | ").first ?? text
            for token in shown.split(whereSeparator: { " []|()".contains($0) }) where token.hasPrefix("-") && token.count > 1 {
                let name = String(token.drop(while: { $0 == "-" }).prefix { $0 != "=" })
                guard !name.isEmpty, name.first?.isLetter == true else { continue }
                #expect(documented[command]?.contains(name) == true, "README shows \(token) for \(command), its help does not: \(line)")
            }
        }
    }
}
