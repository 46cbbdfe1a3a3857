import BLECore
import BLEDecode
import Testing

// Shared by the ATT, SMP and advertising tests: fixtures built from named byte segments
// (the segments are the byte breakdown, and their boundaries say where a cut PDU must fail),
// and a seeded SplitMix64 for the no-crash tests.

/// One field of a fixture, in wire order.
struct Segment: Sendable {
    enum Rule: Sendable {
        /// The field must be whole: a PDU cut at or inside it is truncated at its first byte.
        case fixed
        /// A variable-length tail: a PDU cut anywhere in it (or before it) still decodes.
        case variable
        /// Like `fixed`, but the PDU may validly end just before it (the next list entry).
        case optionalStart
    }
    var name: String
    var bytes: [UInt8]
    var rule: Rule
}

/// A fixed field.
func f(_ name: String, _ bytes: UInt8...) -> Segment { Segment(name: name, bytes: bytes, rule: .fixed) }
/// A fixed field given as an array.
func f(_ name: String, _ bytes: [UInt8]) -> Segment { Segment(name: name, bytes: bytes, rule: .fixed) }
/// A variable-length tail.
func v(_ name: String, _ bytes: UInt8...) -> Segment { Segment(name: name, bytes: bytes, rule: .variable) }
/// A variable-length tail given as an array.
func v(_ name: String, _ bytes: [UInt8]) -> Segment { Segment(name: name, bytes: bytes, rule: .variable) }
/// The first field of an optional further list entry.
func next(_ name: String, _ bytes: UInt8...) -> Segment { Segment(name: name, bytes: bytes, rule: .optionalStart) }

/// What decoding the first `n` bytes of a fixture must give.
enum PrefixOutcome: Equatable, CustomStringConvertible {
    case decodes
    case truncated(at: Int)
    var description: String {
        switch self {
        case .decodes: "decodes"
        case .truncated(let at): "truncated at \(at)"
        }
    }
}

/// A valid PDU with its expected reading.
struct PDUFixture: Sendable, CustomTestStringConvertible {
    var name: String
    var segments: [Segment]
    /// The one-line summary expected.
    var summary: String
    /// `fields` expected, each as `name: value`.
    var fields: [String]
    /// Prefix lengths that decode although the segment rules say otherwise (e.g. a 16-byte
    /// UUID cut to 2 bytes reads as a 16-bit UUID).
    var extraValidPrefixes: Set<Int> = []
    /// False when the segment rules cannot describe the cuts (checked by a dedicated test).
    var checkPrefixes = true

    var testDescription: String { name }
    var bytes: [UInt8] { segments.flatMap(\.bytes) }

    func expectedOutcome(prefix n: Int) -> PrefixOutcome {
        if n >= bytes.count || extraValidPrefixes.contains(n) { return .decodes }
        var start = 0
        for segment in segments {
            let end = start + segment.bytes.count
            if n >= start && n < end {
                switch segment.rule {
                case .variable: return .decodes
                case .optionalStart where n == start: return .decodes
                default: return .truncated(at: start)
                }
            }
            start = end
        }
        return .decodes
    }
}

/// Decodes every proper prefix of `fixture` at `baseOffset` and checks the outcome: a valid
/// shorter PDU must re-encode to the same bytes; a cut one must be `.truncated` at the
/// absolute offset of the field it cut.
func checkPrefixes(_ fixture: PDUFixture, layer: DecodeError.Layer, baseOffset: Int = 1000,
                   decode: (ArraySlice<UInt8>, Int) throws(DecodeError) -> [UInt8]) {
    let bytes = fixture.bytes
    for n in 0..<bytes.count {
        let expected = fixture.expectedOutcome(prefix: n)
        do {
            let encoded = try decode(bytes[0..<n], baseOffset)
            #expect(expected == .decodes, "prefix \(n) of \(fixture.name) decoded; expected \(expected)")
            #expect(encoded == Array(bytes[0..<n]), "prefix \(n) of \(fixture.name) did not re-encode")
        } catch {
            #expect(error.layer == layer)
            switch expected {
            case .decodes:
                Issue.record("prefix \(n) of \(fixture.name) failed: \(error); expected to decode")
            case .truncated(let at):
                #expect(error.kind == .truncated && error.offset == baseOffset + at,
                        "prefix \(n) of \(fixture.name): \(error); expected truncated at \(baseOffset + at)")
            }
        }
    }
}

/// Parses `"0b 01 ff"` or `"0b01ff"`.
func bytes(hex text: String) -> [UInt8] {
    let digits = Array(text.filter(\.isHexDigit))
    return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(digits[$0...$0 + 1]), radix: 16) }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny seeded generator for reproducible fuzzing.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` random bytes.
    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
    }
}
