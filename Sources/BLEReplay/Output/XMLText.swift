/// XML text and attribute escaping for JUnit output.
enum XMLText {
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                // XML 1.0 forbids most control characters.
                if u.value < 0x20 && u != "\n" && u != "\t" && u != "\r" { out += "?" } else { out.unicodeScalars.append(u) }
            }
        }
        return out
    }
}

/// A JUnit XML document (the subset CI systems read: testsuites > testsuite > testcase > failure).
public struct JUnitReport: Sendable {
    public struct TestCase: Sendable {
        public var className: String
        public var name: String
        /// The testcase's duration in seconds (virtual seconds: the simulation's clock), as the
        /// JUnit XML schema's `testcase/@time` is a duration, never a timestamp.
        public var time: Double
        public var failure: (message: String, detail: String)?

        public init(className: String, name: String, time: Double, failure: (message: String, detail: String)?) {
            self.className = className
            self.name = name
            self.time = time
            self.failure = failure
        }
    }

    public var suiteName: String
    public var cases: [TestCase]
    /// Notes on the run as a whole, written as the suite's `<system-out>` (one per line), where
    /// CI shows a suite's output.
    public var notes: [String]

    public init(suiteName: String, cases: [TestCase], notes: [String] = []) {
        self.suiteName = suiteName
        self.cases = cases
        self.notes = notes
    }

    public func xml() -> String {
        var s = Self.head(suiteName: suiteName, tests: cases.count, failures: cases.filter { $0.failure != nil }.count,
                          time: cases.reduce(0) { $0 + $1.time })
        for c in cases { s += Self.xml(c) }
        s += Self.systemOut(notes)
        s += Self.tail
        return s
    }

    /// The document up to its first testcase: the suite's counts and its total `time` (the sum of
    /// its cases' times, in their order).
    static func head(suiteName: String, tests: Int, failures: Int, time: Double) -> String {
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s += "<testsuites tests=\"\(tests)\" failures=\"\(failures)\">\n"
        s += "  <testsuite name=\"\(XMLText.escape(suiteName))\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" time=\"\(String(format3: time))\">\n"
        return s
    }

    /// One testcase element.
    static func xml(_ c: TestCase) -> String {
        var s = "    <testcase classname=\"\(XMLText.escape(c.className))\" name=\"\(XMLText.escape(c.name))\" time=\"\(String(format3: c.time))\""
        if let f = c.failure {
            s += ">\n      <failure message=\"\(XMLText.escape(f.message))\">\(XMLText.escape(f.detail))</failure>\n    </testcase>\n"
        } else {
            s += "/>\n"
        }
        return s
    }

    /// The suite's `<system-out>` of `notes` (nothing without notes): `systemOutOpen`, each
    /// note's `systemOutNote` with line breaks between them, `systemOutClose`. Escaping works
    /// character by character, so the pieces may be written one by one.
    static func systemOut(_ notes: [String]) -> String {
        guard !notes.isEmpty else { return "" }
        return systemOutOpen + notes.map(systemOutNote).joined(separator: "\n") + systemOutClose
    }

    static let systemOutOpen = "    <system-out>"
    static let systemOutClose = "</system-out>\n"
    static func systemOutNote(_ note: String) -> String { XMLText.escape("note: \(note)") }

    static let tail = "  </testsuite>\n</testsuites>\n"
}

extension String {
    /// Three decimals without Foundation.
    init(format3 v: Double) {
        let ms = Int64((v * 1000).rounded())
        let frac = String(ms % 1000)
        self = "\(ms / 1000).\(String(repeating: "0", count: 3 - frac.count))\(frac)"
    }
}
