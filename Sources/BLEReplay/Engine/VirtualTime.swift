/// Virtual time: microseconds on the simulation's clock (DESIGN.md "Replay semantics", virtual time).
///
/// Zero is the start of the replay; for a faithful replay it is the capture's first HCI record.
public typealias VirtualTime = Int64

/// Durations as people type them in scripts and fault specifications.
public enum VirtualDuration {
    public static let microsecond: Int64 = 1
    public static let millisecond: Int64 = 1_000
    public static let second: Int64 = 1_000_000

    /// Parses `12.5s`, `300ms`, `250us`, `2m`, `1h` or a bare number of seconds (`1.5`);
    /// a leading `+` is allowed. Nil when the text is not a duration.
    public static func parse(_ text: String) -> Int64? {
        var t = Substring(text.trimmingSpaces())
        if t.hasPrefix("+") { t = t.dropFirst() }
        let units: [(String, Double)] = [("ms", 1_000), ("us", 1), ("µs", 1), ("s", 1_000_000),
                                         ("m", 60_000_000), ("h", 3_600_000_000)]
        var scale = 1_000_000.0
        for (suffix, factor) in units where t.hasSuffix(suffix) {
            t = t.dropLast(suffix.count)
            scale = factor
            break
        }
        guard !t.isEmpty, t.allSatisfy({ $0.isNumber || $0 == "." }), let v = Double(t), v.isFinite, v >= 0 else {
            return nil
        }
        let us = (v * scale).rounded()
        guard us < 9.0e15 else { return nil }
        return Int64(us)
    }

    /// `12.500000 s` style text with microsecond precision (what reports print).
    public static func format(_ us: Int64) -> String {
        let sign = us < 0 ? "-" : ""
        let a = us.magnitude
        let frac = String(a % 1_000_000)
        return "\(sign)\(a / 1_000_000).\(String(repeating: "0", count: 6 - frac.count))\(frac) s"
    }

    /// Compact text for messages: `4 s`, `1.5 s`, `250 ms`, `120 µs`.
    public static func short(_ us: Int64) -> String {
        let a = us.magnitude
        let sign = us < 0 ? "-" : ""
        if a >= 1_000_000 {
            if a % 1_000_000 == 0 { return "\(sign)\(a / 1_000_000) s" }
            var s = String(Double(a) / 1_000_000)
            if s.hasSuffix(".0") { s.removeLast(2) }
            return "\(sign)\(s) s"
        }
        if a >= 1_000 && a % 1_000 == 0 { return "\(sign)\(a / 1_000) ms" }
        if a >= 1_000 { return "\(sign)\(Double(a) / 1_000) ms" }
        return "\(sign)\(a) µs"
    }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\n" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\n" || l == "\r" { s = s.dropLast() }
        return String(s)
    }
}
