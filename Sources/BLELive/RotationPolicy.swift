/// When `-o FILE.btsnoop` starts a new file (`--rotate SIZE|DURATION`).
///
/// Sizes: a whole number with `K`, `M` or `G` (powers of 1024; `KB`, `MiB` and the like
/// accepted), or plain bytes. Durations: `s`, `min`, `h`, `d`. A bare `m` is refused as
/// ambiguous (megabytes or minutes?). Segments are named by inserting the number before the
/// extension: `x.btsnoop` -> `x.1.btsnoop`, `x.2.btsnoop`, …; a name without an extension gets
/// `.1`, `.2`, …. Every segment is a complete btsnoop file with its own header.
public enum RotationPolicy: Sendable, Hashable, CustomStringConvertible {
    case size(bytes: Int)
    case duration(milliseconds: Int)

    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    public init(parsing text: String) throws(ParseError) {
        let digits = text.prefix(while: { $0.isASCII && $0.isNumber })
        let unit = text.dropFirst(digits.count).lowercased()
        guard let value = Int(digits), value > 0 else {
            throw ParseError(message: "--rotate takes a size (100M, 1G) or a duration (30min, 1h), not '\(text)'")
        }
        if text.dropFirst(digits.count) == "m" {
            throw ParseError(message: "--rotate \(text) is ambiguous: write \(value)M for megabytes or \(value)min for minutes")
        }
        let sizes: [String: Int] = ["": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
                                    "m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
                                    "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30]
        let durations: [String: Int] = ["s": 1000, "sec": 1000, "min": 60_000, "h": 3_600_000, "d": 86_400_000]
        if let multiplier = sizes[unit] {
            let (bytes, overflow) = value.multipliedReportingOverflow(by: multiplier)
            guard !overflow, bytes >= 1024 else {
                throw ParseError(message: "--rotate \(text): a segment must hold at least 1K")
            }
            self = .size(bytes: bytes)
        } else if let multiplier = durations[unit] {
            let (ms, overflow) = value.multipliedReportingOverflow(by: multiplier)
            guard !overflow else { throw ParseError(message: "--rotate \(text) is too long") }
            self = .duration(milliseconds: ms)
        } else {
            throw ParseError(message: "--rotate takes a size (100M, 1G) or a duration (30min, 1h), not '\(text)'")
        }
    }

    public var description: String {
        switch self {
        case .size(let bytes): "\(bytes) bytes"
        case .duration(let ms): "\(ms / 1000) s"
        }
    }

    /// The name of segment `number` (1-based) of `path`.
    public static func segmentPath(_ path: String, number: Int) -> String {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let name = path[slash...]
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return String(path[..<dot]) + ".\(number)" + String(path[dot...])
        }
        return path + ".\(number)"
    }
}
