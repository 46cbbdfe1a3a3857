/// A base64 decoder for the text between the btsnooz markers (RFC 4648 section 4 alphabet).
///
/// Whitespace is skipped (Android breaks lines every 128 characters); decoding stops at the
/// first `=`. Any other byte is an error at its index.
struct Base64Text {
    private var output: [UInt8] = []
    private var accumulator: UInt32 = 0
    private var bits = 0
    private(set) var ended = false

    init(capacity: Int = 0) { output.reserveCapacity(capacity) }

    /// The value of a base64 character, 64 for skippable whitespace, nil for anything else.
    @inline(__always) private static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"): 64
        default: nil
        }
    }

    /// Feeds text; returns the index in `text` of the first byte that is not base64, if any.
    mutating func feed(_ text: UnsafeRawBufferPointer) -> Int? {
        for index in 0..<text.count {
            let c = text[index]
            if ended {
                if c == UInt8(ascii: "=") || Self.value(c) == 64 { continue }
                return index
            }
            if c == UInt8(ascii: "=") {
                ended = true
                continue
            }
            guard let v = Self.value(c) else { return index }
            if v == 64 { continue }
            accumulator = accumulator << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        return nil
    }

    /// Decoded bytes so far.
    var bytes: [UInt8] { output }
    var count: Int { output.count }
}
