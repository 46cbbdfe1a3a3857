import Foundation
import Testing
@testable import BLEReport
import BLECore

/// The report's escapes (HTML, Markdown cells, CSV fields, JSON strings) give the same text
/// whether or not their byte scan finds something to escape: text with nothing to escape comes
/// back as it is, text with something is escaped character by character as before.
@Suite struct EscapingTests {
    /// Plain text in several scripts, with and without each special character of each escape.
    static let texts = ["", "plain", "Überweisung café", "心拍計 ❤️", "e\u{301}", "a\r\nb",
                        "x", "1,5", "say \"hi\"", "a|b", "line\nbreak", "tab\there", "back\\slash",
                        "<b>&amp;</b>", "it's", "\u{1}ctl", "|\u{301}", "&\u{301}", ",\u{301}"]

    /// HTML text and attribute values (HTML 5.2 8.3): & < > " ' as character references.
    static let htmlReferences: [Character: String] = ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;"]

    @Test(arguments: texts)
    func html(text: String) {
        #expect(SVGCharts.escape(text) == text.map { Self.htmlReferences[$0] ?? String($0) }.joined())
    }

    /// GitHub Markdown table cells: control characters as tshark escapes them (a line break is
    /// `\n`), then the CommonMark punctuation that could make formatting (\\ ` * | [ ] ~, and a `_`
    /// not inside a word) backslash-escaped, `<` `>` `&` as character references (no HTML tag).
    @Test(arguments: texts)
    func markdown(text: String) {
        let scalars = Array(TextFormat.printable(text).unicodeScalars)
        func word(_ i: Int) -> Bool {
            scalars.indices.contains(i) && (scalars[i].properties.isAlphabetic || scalars[i].properties.numericType != nil)
        }
        var expected = ""
        for (i, c) in scalars.enumerated() {
            switch c {
            case "\\", "`", "*", "|", "[", "]", "~": expected += "\\" + String(c)
            case "_": expected += word(i - 1) && word(i + 1) ? "_" : "\\_"
            case "<": expected += "&lt;"
            case ">": expected += "&gt;"
            case "&": expected += "&amp;"
            default: expected.unicodeScalars.append(c)
            }
        }
        #expect(ReportTable.markdownEscape(text) == expected)
    }

    /// Known answers: what renders as formatting in GitHub Markdown shows as written.
    @Test func markdownKnownAnswers() {
        #expect(ReportTable.markdownEscape("<b>A</b>") == "&lt;b&gt;A&lt;/b&gt;")
        #expect(ReportTable.markdownEscape("*x* `c` [l](u)") == #"\*x\* \`c\` \[l\](u)"#)
        #expect(ReportTable.markdownEscape("a|b\nc") == #"a\|b\\nc"#)
        #expect(ReportTable.markdownEscape("GATT_CONN_TIMEOUT") == "GATT_CONN_TIMEOUT")
        #expect(ReportTable.markdownEscape("_y_ HOME2_") == #"\_y\_ HOME2\_"#)
        #expect(ReportTable.markdownEscape("Door\u{1B}[2J") == #"Door\\033\[2J"#)
    }

    /// CSV (RFC 4180 2.6-2.7): a field with a comma, quote or line break is quoted, quotes doubled.
    @Test(arguments: texts)
    func csv(text: String) {
        let quoted = text.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }
        #expect(ReportTable.csvField(text) == (quoted ? "\"" + text.replacing("\"", with: "\"\"") + "\"" : text))
    }

    /// JSON strings (RFC 8259 7): quote, backslash and control characters escaped, the rest as is.
    static let jsonEscapes: [Unicode.Scalar: String] = ["\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"]

    @Test(arguments: texts)
    func json(text: String) {
        let body = text.unicodeScalars.map { u in
            Self.jsonEscapes[u] ?? (u.value < 0x20 ? String(format: "\\u%04x", u.value) : String(u))
        }.joined()
        #expect(JSON.quote(text) == "\"" + body + "\"")
    }
}
