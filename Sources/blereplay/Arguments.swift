/// A small command-line parser: positionals, `--flag`, `--option value` / `--option=value`,
/// repeatable options, and `-v`-style short flags. Validation is separate from running.
///
/// An option that takes one value and is given twice with different values is a usage error
/// (`--connection 1 --connection 2` would otherwise show connection 2 alone, and `-o a --output b`
/// write one of the two files); spellings of one option (`-o`/`--output`) count together.
/// Options declared `repeatable` (`replay --inject`) keep every value.
struct Arguments {
    struct UsageError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    var positionals: [String] = []
    private var options: [String: [String]] = [:]
    private var flags: Set<String> = []
    /// Spellings of one option (`-o, --output`): the names a command accepts from one group
    /// are one option.
    static let aliasGroups: [Set<String>] = [["o", "output"], ["v", "verbose"]]

    /// - Parameters:
    ///   - valued: option names that take a value (without dashes).
    ///   - flagNames: option names that take none.
    ///   - repeatable: valued options that may be given several times (`values(_:)` has them all).
    init(_ argv: [String], valued: Set<String>, flagNames: Set<String>, repeatable: Set<String> = []) throws(UsageError) {
        /// Each valued option as typed, with its value, in order.
        var given: [(name: String, typed: String, value: String)] = []
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
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard i < argv.count else { throw UsageError(message: "option \(a) needs a value") }
                    value = argv[i]
                    i += 1
                }
                options[name, default: []].append(value)
                given.append((name, a.split(separator: "=", maxSplits: 1).first.map(String.init) ?? a, value))
            } else if flagNames.contains(name) {
                guard inlineValue == nil else { throw UsageError(message: "option --\(name) takes no value") }
                flags.insert(name)
            } else {
                throw UsageError(message: "unknown option \(a) (options: \(Self.spell(valued.union(flagNames))); --help lists them)")
            }
        }
        try Self.checkSingleValues(given, valued: valued, repeatable: repeatable)
    }

    /// Refuses an option of one value given again with another value (spellings of one option together).
    private static func checkSingleValues(_ given: [(name: String, typed: String, value: String)], valued: Set<String>,
                                          repeatable: Set<String>) throws(UsageError) {
        func option(_ name: String) -> Set<String> {
            aliasGroups.first { $0.contains(name) }.map { $0.intersection(valued) } ?? [name]
        }
        for (index, first) in given.enumerated() where !repeatable.contains(first.name) {
            let same = option(first.name)
            guard let other = given[(index + 1)...].first(where: { same.contains($0.name) && $0.value != first.value }) else { continue }
            throw UsageError(message: "\(first.typed) '\(first.value)' and \(other.typed) '\(other.value)': "
                             + "\(spell(same)) takes one value; give it once")
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
