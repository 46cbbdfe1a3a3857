/// Arithmetic on numbers read from a capture, which can be anything (STYLE lesson 15).
///
/// A timestamp near either end of the 64-bit range, a latency between two such timestamps, an
/// interval times its unit: the standard operators trap on overflow (SIGILL). These clamp to the
/// type's range instead, so a hostile value gives a huge (or tiny) number, never a crash. Use
/// them wherever an operand came from input; `Int(exactly:)` and `init(clamping:)` for the
/// conversions.
extension FixedWidthInteger {
    /// `self + other`, clamped to `min...max` instead of trapping.
    @inlinable
    public func saturatingAdding(_ other: Self) -> Self {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other < 0 ? .min : .max
    }

    /// `self - other`, clamped to `min...max` instead of trapping.
    @inlinable
    public func saturatingSubtracting(_ other: Self) -> Self {
        let (difference, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return difference }
        return other < 0 ? .max : .min
    }

    /// `self * other`, clamped to `min...max` instead of trapping.
    @inlinable
    public func saturatingMultiplied(by other: Self) -> Self {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        guard overflow else { return product }
        return (self < 0) != (other < 0) ? .min : .max
    }
}

extension Sequence where Element: FixedWidthInteger {
    /// The sum of the elements, clamped to the type's range instead of trapping.
    @inlinable
    public func saturatingSum() -> Element {
        reduce(0) { $0.saturatingAdding($1) }
    }
}

extension FixedWidthInteger where Self: SignedInteger {
    /// `abs(self)`, with `min` giving `max` instead of trapping.
    @inlinable
    public var saturatingMagnitude: Self { self == .min ? .max : Swift.abs(self) }
}
