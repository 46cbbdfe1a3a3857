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
        let failures = cases.filter { $0.failure != nil }.count
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s += "<testsuites tests=\"\(cases.count)\" failures=\"\(failures)\">\n"
        let total = String(format3: cases.reduce(0) { $0 + $1.time })
        s += "  <testsuite name=\"\(XMLText.escape(suiteName))\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\" time=\"\(total)\">\n"
        for c in cases {
            let time = String(format3: c.time)
            s += "    <testcase classname=\"\(XMLText.escape(c.className))\" name=\"\(XMLText.escape(c.name))\" time=\"\(time)\""
            if let f = c.failure {
                s += ">\n      <failure message=\"\(XMLText.escape(f.message))\">\(XMLText.escape(f.detail))</failure>\n    </testcase>\n"
            } else {
                s += "/>\n"
            }
        }
        if !notes.isEmpty {
            s += "    <system-out>\(XMLText.escape(notes.map { "note: \($0)" }.joined(separator: "\n")))</system-out>\n"
        }
        s += "  </testsuite>\n</testsuites>\n"
        return s
    }
}

extension String {
    /// Three decimals without Foundation.
    init(format3 v: Double) {
        let ms = Int64((v * 1000).rounded())
        let frac = String(ms % 1000)
        self = "\(ms / 1000).\(String(repeating: "0", count: 3 - frac.count))\(frac)"
    }
}
