/// The only source of randomness in a replay: SplitMix64 (Steele, Lea, Flood 2014), seeded.
///
/// STYLE.md habit 7: same seed, same sequence, on every platform and Swift version. Helpers
/// draw integers and fractions without the standard library's unspecified algorithms.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public private(set) var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `0..<bound` (Lemire's multiply-high; bias below 2^-64 · bound, fine here).
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0)
        return Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// Uniform in `range` (closed).
    public mutating func inRange(_ range: ClosedRange<Int64>) -> Int64 {
        let width = UInt64(bitPattern: range.upperBound &- range.lowerBound) &+ 1
        if width == 0 { return Int64(bitPattern: next()) }
        return range.lowerBound &+ Int64(bitPattern: next().multipliedFullWidth(by: width).high)
    }

    /// Uniform in [0, 1) with 53 bits.
    public mutating func fraction() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// One element, uniformly.
    public mutating func pick<T>(_ items: [T]) -> T {
        items[below(items.count)]
    }
}
