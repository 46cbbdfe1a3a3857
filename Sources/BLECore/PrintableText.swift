extension TextFormat {
    /// `text` with its control characters escaped as tshark escapes them in a field (Wireshark
    /// `format_text`): `\a \b \t \n \v \f \r`, other C0 characters and DEL as octal (`\033`,
    /// `\177`), C1 characters (U+0080–U+009F) as `\u0085`. Everything else is kept.
    ///
    /// Names, strings and values come from the air: a device named "Door\nLock" (or one whose
    /// name holds a terminal escape sequence) printed raw would break the one-line-per-packet
    /// text outputs and could drive the reader's terminal. Text outputs pass each line through
    /// this; JSON and CSV quote by their own rules, and the timeline keeps the bytes as read.
    public static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar.value {
            case 0x07: out += "\\a"
            case 0x08: out += "\\b"
            case 0x09: out += "\\t"
            case 0x0A: out += "\\n"
            case 0x0B: out += "\\v"
            case 0x0C: out += "\\f"
            case 0x0D: out += "\\r"
            case 0x00..<0x20, 0x7F:
                let octal = String(scalar.value, radix: 8)
                out += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
            default:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
