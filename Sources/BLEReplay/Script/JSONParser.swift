import BLECore

/// A small RFC 8259 parser into `BLECore.JSON` (objects keep their key order), for central
/// scripts. Errors name the byte offset.
public struct JSONParser {
    public struct Failure: Error, CustomStringConvertible {
        public var offset: Int
        public var reason: String
        public var description: String { "JSON error at byte \(offset): \(reason)" }
    }

    private let bytes: [UInt8]
    private var i = 0
    private var depth = 0

    public static func parse(_ bytes: [UInt8]) throws(Failure) -> JSON {
        var p = JSONParser(bytes: bytes)
        p.skipSpace()
        let v = try p.value()
        p.skipSpace()
        guard p.i == bytes.count else { throw Failure(offset: p.i, reason: "unexpected text after the value") }
        return v
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private mutating func skipSpace() {
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
    }

    private func fail(_ reason: String) -> Failure { Failure(offset: i, reason: reason) }

    private mutating func value() throws(Failure) -> JSON {
        guard i < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return try number()
        }
    }

    private mutating func literal(_ word: String) throws(Failure) {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, Array(bytes[i..<i + w.count]) == w else { throw fail("expected \(word)") }
        i += w.count
    }

    private mutating func object() throws(Failure) -> JSON {
        depth += 1
        defer { depth -= 1 }
        guard depth < 64 else { throw fail("nested too deeply") }
        i += 1
        var fields: [(String, JSON)] = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(fields) }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a key in quotes") }
            let key = try string()
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            i += 1
            skipSpace()
            fields.append((key, try value()))
            skipSpace()
            guard i < bytes.count else { throw fail("unexpected end of input in an object") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(fields) }
            throw fail("expected ',' or '}'")
        }
    }

    private mutating func array() throws(Failure) -> JSON {
        depth += 1
        defer { depth -= 1 }
        guard depth < 64 else { throw fail("nested too deeply") }
        i += 1
        var items: [JSON] = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
        while true {
            skipSpace()
            items.append(try value())
            skipSpace()
            guard i < bytes.count else { throw fail("unexpected end of input in an array") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            throw fail("expected ',' or ']'")
        }
    }

    private mutating func string() throws(Failure) -> String {
        i += 1
        var out: [UInt8] = []
        while i < bytes.count {
            let b = bytes[i]
            i += 1
            switch b {
            case UInt8(ascii: "\""):
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard i < bytes.count else { throw fail("unexpected end of input in a string") }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    guard i + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16) else {
                        throw fail("bad \\u escape")
                    }
                    i += 4
                    out += Array(String(Unicode.Scalar(v).map(Character.init) ?? "\u{FFFD}").utf8)
                default: throw fail("bad escape")
                }
            default:
                guard b >= 0x20 else { throw fail("control character in a string") }
                out.append(b)
            }
        }
        throw fail("unterminated string")
    }

    private mutating func number() throws(Failure) -> JSON {
        let start = i
        while i < bytes.count, "+-0123456789.eE".utf8.contains(bytes[i]) { i += 1 }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        if let n = Int64(text) { return .int(n) }
        if let d = Double(text), d.isFinite { return .double(d) }
        i = start
        throw fail("expected a value")
    }
}

extension JSON {
    /// The value for `key` in an object.
    public subscript(key: String) -> JSON? {
        if case .object(let fields) = self { return fields.first { $0.0 == key }?.1 }
        return nil
    }

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var arrayValue: [JSON]? { if case .array(let a) = self { return a }; return nil }
    public var objectKeys: [String] { if case .object(let f) = self { return f.map(\.0) }; return [] }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var doubleValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }
    public var intValue: Int? {
        switch self {
        case .int(let i): Int(exactly: i)
        case .double(let d): Int(exactly: d)
        default: nil
        }
    }
}
