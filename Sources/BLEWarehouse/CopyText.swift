/// PostgreSQL's COPY text format (PostgreSQL documentation, COPY, "Text Format"): one line per
/// row, columns separated by a tab, `\N` for NULL; a backslash, tab, newline or carriage return
/// inside a value is written as `\\`, `\t`, `\n`, `\r`, and the other control characters as
/// octal `\ooo`, so no byte of a value can end a column, a row or the data.
public enum CopyText {
    public static func appendRow(_ row: [String?], to out: inout [UInt8]) {
        for (i, value) in row.enumerated() {
            if i > 0 { out.append(0x09) }
            guard let value else {
                out += [0x5C, 0x4E]   // \N
                continue
            }
            appendValue(WarehouseText.storable(value), to: &out)
        }
        out.append(0x0A)
    }

    static func appendValue(_ value: String, to out: inout [UInt8]) {
        for b in value.utf8 {
            switch b {
            case 0x5C: out += [0x5C, 0x5C]
            case 0x09: out += [0x5C, 0x74]
            case 0x0A: out += [0x5C, 0x6E]
            case 0x0D: out += [0x5C, 0x72]
            case 0x00..<0x20, 0x7F:
                out += [0x5C, 0x30 + (b >> 6), 0x30 + ((b >> 3) & 7), 0x30 + (b & 7)]
            default:
                out.append(b)
            }
        }
    }
}

/// Text as the warehouse stores it. PostgreSQL's `text` cannot hold U+0000 (the one character
/// it refuses), so a NUL inside a name read from a capture is stored as U+2400 SYMBOL FOR NULL,
/// visibly; every other character is stored as it is. (Swift strings are valid UTF-8: bytes a
/// capture held that were not are U+FFFD already, as in the timeline.)
public enum WarehouseText {
    public static let nulReplacement: Character = "\u{2400}"

    public static func storable(_ s: String) -> String {
        guard s.utf8.contains(0) else { return s }
        return String(String.UnicodeScalarView(s.unicodeScalars.map { $0 == "\0" ? "\u{2400}" : $0 }))
    }
}
