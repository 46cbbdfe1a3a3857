/// A small command-line parser: positionals, `--flag`, `--option value` / `--option=value`,
/// repeatable options, and `-v`-style short flags. Validation is separate from running.
struct Arguments {
    struct UsageError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    var positionals: [String] = []
    private var options: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// - Parameters:
    ///   - valued: option names that take a value (without dashes).
    ///   - flagNames: option names that take none.
    init(_ argv: [String], valued: Set<String>, flagNames: Set<String>) throws(UsageError) {
        var i = 0
        var onlyPositionals = false
        while i < argv.count {
            let a = argv[i]
            i += 1
            if onlyPositionals || !a.hasPrefix("-") || a == "-" {
                positionals.append(a)
                continue
            }
            if a == "--" { onlyPositionals = true; continue }
            var name = String(a.drop(while: { $0 == "-" }))
            var inlineValue: String?
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if valued.contains(name) {
                if let inlineValue {
                    options[name, default: []].append(inlineValue)
                } else {
                    guard i < argv.count else { throw UsageError(message: "option \(a) needs a value") }
                    options[name, default: []].append(argv[i])
                    i += 1
                }
            } else if flagNames.contains(name) {
                guard inlineValue == nil else { throw UsageError(message: "option --\(name) takes no value") }
                flags.insert(name)
            } else {
                throw UsageError(message: "unknown option \(a) (options: \(Self.spell(valued.union(flagNames))); --help lists them)")
            }
        }
    }

    /// `-o, --db, --json`: option names as a user types them, sorted.
    static func spell(_ names: Set<String>) -> String {
        names.sorted().map { ($0.count == 1 ? "-" : "--") + $0 }.joined(separator: ", ")
    }

    /// Whether `argv` asks for help (`-h` or `--help` before any `--`).
    static func asksForHelp(_ argv: [String]) -> Bool {
        for a in argv {
            if a == "--" { return false }
            if a == "-h" || a == "--help" { return true }
        }
        return false
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func value(_ name: String) -> String? { options[name]?.last }
    func values(_ name: String) -> [String] { options[name] ?? [] }

    func int(_ name: String) throws(UsageError) -> Int? {
        guard let v = value(name) else { return nil }
        guard let n = Int(v) else { throw UsageError(message: "--\(name) takes a whole number, not '\(v)'") }
        return n
    }
}
