import BLECore

/// One table of the fleet report, rendered as a CSV file, a Markdown table and a sortable
/// HTML table from the same rows.
public struct ReportTable: Sendable {
    /// What a column holds; decides alignment, sorting and the CSV form.
    public enum Kind: Sendable {
        case text
        case number
        /// An error code or opcode: `0x13` on screen; the CSV has `NAME` (decimal) and `NAME_hex`.
        case code
        /// Microseconds: `1.250 s` on screen; the CSV has `NAME_us` (integer).
        case duration
    }

    public struct Column: Sendable {
        public var title: String
        /// Column name in the CSV header (snake_case).
        public var csv: String
        public var kind: Kind
        public init(_ title: String, _ csv: String, _ kind: Kind = .text) {
            self.title = title
            self.csv = csv
            self.kind = kind
        }
    }

    public enum Cell: Sendable {
        case text(String)
        case int(Int)
        /// A code with the hex digits to show (2 for error codes, 4 for HCI opcodes).
        case code(Int, digits: Int)
        case real(Double, digits: Int)
        case duration(Int64)
        case empty

        /// As shown in Markdown and HTML.
        public var display: String {
            switch self {
            case .text(let s): s
            case .int(let i): String(i)
            case .code(let c, let digits): hex(c, width: digits)
            case .real(let d, let digits): TextFormat.fixed(d, digits)
            case .duration(let us): TextFormat.duration(us)
            case .empty: ""
            }
        }

        /// The CSV field(s): a code gives two (decimal, hex), a duration its microseconds.
        public var csvFields: [String] {
            switch self {
            case .code(let c, let digits): [String(c), hex(c, width: digits)]
            case .duration(let us): [String(us)]
            case .real(let d, let digits): [TextFormat.fixed(d, digits)]
            case .empty: [""]
            default: [display]
            }
        }

        /// The value an HTML table sorts by, when it is a number.
        public var sortNumber: String? {
            switch self {
            case .int(let i): String(i)
            case .code(let c, _): String(c)
            case .real(let d, let digits): TextFormat.fixed(d, digits)
            case .duration(let us): String(us)
            default: nil
            }
        }
    }

    /// File stem of the CSV and anchor of the HTML table (`disconnect_reasons`).
    public var id: String
    public var title: String
    /// One or two sentences saying what is counted and how.
    public var note: String
    public var columns: [Column]
    public var rows: [[Cell]]

    public init(id: String, title: String, note: String, columns: [Column], rows: [[Cell]]) {
        self.id = id
        self.title = title
        self.note = note
        self.columns = columns
        self.rows = rows
    }

    /// The table as CSV (RFC 4180: CRLF-free, quoted where needed, header first).
    public func csv() -> String {
        var header: [String] = []
        for c in columns {
            switch c.kind {
            case .code: header += [c.csv, c.csv + "_hex"]
            case .duration: header.append(c.csv + "_us")
            default: header.append(c.csv)
            }
        }
        var out = header.map(Self.csvField).joined(separator: ",") + "\n"
        for row in rows {
            var fields: [String] = []
            for (i, cell) in row.enumerated() {
                if case .empty = cell, i < columns.count, columns[i].kind == .code {
                    fields += ["", ""]
                } else {
                    fields += cell.csvFields
                }
            }
            out += fields.map(Self.csvField).joined(separator: ",") + "\n"
        }
        return out
    }

    static func csvField(_ s: String) -> String {
        // A byte scan first: the characters are walked only when one of the bytes is there.
        guard s.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }),
              s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacing("\"", with: "\"\"") + "\""
    }

    /// The table in GitHub Markdown, at most `limit` rows (a line says how many were left out).
    public func markdown(limit: Int = 60) -> String {
        var out = "| " + columns.map { Self.markdownEscape($0.title) }.joined(separator: " | ") + " |\n"
        out += "|" + columns.map { $0.kind == .text ? "---|" : "---:|" }.joined() + "\n"
        if rows.isEmpty {
            return out + "| " + (["none"] + Array(repeating: "", count: max(0, columns.count - 1))).joined(separator: " | ") + " |\n"
        }
        for row in rows.prefix(limit) {
            out += "| " + row.map { Self.markdownEscape($0.display) }.joined(separator: " | ") + " |\n"
        }
        if rows.count > limit {
            out += "\n\(rows.count - limit) more rows in `\(id).csv`.\n"
        }
        return out
    }

    /// A cell's text as literal Markdown text. Device names, model and firmware strings and file
    /// names come from the air or the user: `<b>`, `*x*`, a backtick or `[x](y)` in one must show as
    /// written, not render, and a `|` or a line break must not end the cell or the row. Control
    /// characters are escaped as tshark escapes them (`TextFormat.printable`: a line break shows as
    /// `\n`); then every backslash, `` ` ``, `*`, `|`, `[`, `]`, `~` and `_` that could open or
    /// close emphasis (one inside a word cannot, CommonMark 6.2) is backslash-escaped, and `<`, `>`,
    /// `&` become entities so no HTML tag or entity is made.
    static func markdownEscape(_ text: String) -> String {
        let s = TextFormat.printable(text)
        // Most text has nothing to escape: a byte scan says so without walking its scalars.
        guard s.utf8.contains(where: { markdownSpecial.contains($0) }) else { return s }
        let scalars = Array(s.unicodeScalars)
        var out = ""
        out.reserveCapacity(s.utf8.count + 8)
        for (i, c) in scalars.enumerated() {
            switch c {
            case "\\", "`", "*", "|", "[", "]", "~":
                out += "\\"
                out.unicodeScalars.append(c)
            case "_":
                let inWord = i > 0 && i + 1 < scalars.count
                    && isWordScalar(scalars[i - 1]) && isWordScalar(scalars[i + 1])
                out += inWord ? "_" : "\\_"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// The bytes `markdownEscape` changes: \ ` * | [ ] ~ _ < > &.
    private static let markdownSpecial: Set<UInt8> = [0x5C, 0x60, 0x2A, 0x7C, 0x5B, 0x5D, 0x7E, 0x5F, 0x3C, 0x3E, 0x26]

    private static func isWordScalar(_ c: Unicode.Scalar) -> Bool {
        c.properties.isAlphabetic || c.properties.numericType != nil
    }
}
