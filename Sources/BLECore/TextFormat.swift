/// Small text formatting helpers shared by the analysis, the renderers and the CLI.
public enum TextFormat {
    /// `12.345 s`, `30.00 ms`, `850 µs`.
    public static func duration(_ us: Int64) -> String {
        if us >= 1_000_000 { return fixed(Double(us) / 1_000_000, 3) + " s" }
        if us >= 1000 { return fixed(Double(us) / 1000, 2) + " ms" }
        return "\(us) µs"
    }

    /// A number with `digits` decimals, without Foundation.
    public static func fixed(_ v: Double, _ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let r = (abs(v) * scale).rounded()
        // Beyond what an Int64 holds (durations between absurd timestamps): Swift's own notation.
        guard r.isFinite, r < 9.0e18 else { return "\(v)" }
        let whole = Int64(r / scale)
        let frac = Int64(r) - whole * Int64(scale)
        let fracText = String(frac)
        let sign = v < 0 && r != 0 ? "-" : ""
        if digits == 0 { return "\(sign)\(whole)" }
        return "\(sign)\(whole).\(String(repeating: "0", count: max(0, digits - fracText.count)))\(fracText)"
    }

    /// `HH:MM:SS.mmm` (UTC) of an epoch-microsecond timestamp.
    public static func clock(_ us: Int64) -> String {
        let iso = Timestamp.iso8601(us)   // 2024-12-30T10:15:02.123456Z
        let t = iso.split(separator: "T").last.map(String.init) ?? iso
        return String(t.prefix(12))
    }

    public static func padded(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }

    /// Wraps text at `width` columns with an indent for continuation lines.
    public static func wrap(_ text: String, width: Int, indent: String) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !current.isEmpty && current.count + 1 + word.count > width {
                lines.append(indent + current)
                current = String(word)
            } else {
                current += (current.isEmpty ? "" : " ") + word
            }
        }
        if !current.isEmpty { lines.append(indent + current) }
        return lines
    }
}
