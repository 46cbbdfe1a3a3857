/// A JSON value with deterministic serialization (object keys keep insertion order),
/// used by every `--json` output and report.
public indirect enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    public static func == (l: JSON, r: JSON) -> Bool { l.serialized() == r.serialized() }

    public init(_ v: Int?) { self = v.map { .int(Int64($0)) } ?? .null }
    public init(_ v: Int64?) { self = v.map { .int($0) } ?? .null }
    public init(_ v: String?) { self = v.map { .string($0) } ?? .null }

    /// Compact JSON (one line), or indented with `pretty`.
    public func serialized(pretty: Bool = false) -> String {
        var out = ""
        write(into: &out, pretty: pretty, indent: 0)
        return out
    }

    /// Appends the serialization to `out`, as a value nested `indent` levels deep (a document
    /// written a piece at a time, issue 17).
    public func write(into out: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += d.isFinite ? String(d) : "null"
        case .string(let s): out += JSON.quote(s)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                if pretty { JSON.newline(&out, depth: indent + 1) }
                item.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { JSON.newline(&out, depth: indent) }
            out += "]"
        case .object(let fields):
            if fields.isEmpty { out += "{}"; return }
            out += "{"
            for (i, (k, v)) in fields.enumerated() {
                if i > 0 { out += "," }
                if pretty { JSON.newline(&out, depth: indent + 1) }
                out += JSON.quote(k)
                out += pretty ? ": " : ":"
                v.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { JSON.newline(&out, depth: indent) }
            out += "}"
        }
    }

    /// A line break and `depth` levels of two-space indent, appended in place.
    public static func newline(_ out: inout String, depth: Int) {
        out += "\n"
        for _ in 0..<depth { out += "  " }
    }

    /// A JSON string literal (RFC 8259 escapes).
    public static func quote(_ s: String) -> String {
        // Most strings need no escape: a byte scan says so without walking their scalars.
        guard s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else { return "\"" + s + "\"" }
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 {
                    let h = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }
}
