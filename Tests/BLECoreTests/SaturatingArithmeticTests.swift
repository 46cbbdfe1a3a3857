import Testing
@testable import BLECore

/// Arithmetic on values from a capture clamps instead of trapping (STYLE lesson 15, issue 17).
@Suite("Saturating arithmetic and extreme timestamps")
struct SaturatingArithmeticTests {
    @Test func clampsAtBothEnds() {
        #expect(Int64.max.saturatingAdding(1) == .max)
        #expect(Int64.min.saturatingAdding(-1) == .min)
        #expect(Int64.max.saturatingSubtracting(Int64.min) == .max)
        #expect(Int64.min.saturatingSubtracting(Int64.max) == .min)
        #expect(Int64.min.saturatingMultiplied(by: -1) == .max)
        #expect((Int64.max / 2 + 1).saturatingMultiplied(by: 2) == .max)
        #expect(Int64(-3).saturatingMultiplied(by: .max) == .min)
        #expect(UInt16(3).saturatingSubtracting(5) == 0)
        #expect([Int64.max, 1, 2].saturatingSum() == .max)
        #expect(Int64.min.saturatingMagnitude == .max)
    }

    @Test func exactWithinRange() {
        #expect(Int64(45_000).saturatingSubtracting(1_000) == 44_000)
        #expect(Int64(-7).saturatingAdding(3) == -4)
        #expect(Int64(1250).saturatingMultiplied(by: 3200) == 4_000_000)
        #expect([Int64(1), 2, 3].saturatingSum() == 6)
        #expect(Int64(-5).saturatingMagnitude == 5)
    }

    /// ISO 8601 at the ends of the range (proleptic Gregorian, Hinnant's algorithm, checked with
    /// Python's integer arithmetic): Int64.max µs is 294247-01-10T04:00:54.775807Z and Int64.min
    /// µs is -290308-12-21T19:59:05.224192Z. Int64.min trapped in `us - secs * 1_000_000`.
    @Test func iso8601AtTheEnds() {
        #expect(Timestamp.iso8601(.max) == "294247-01-10T04:00:54.775807Z")
        #expect(Timestamp.iso8601(.min) == "-290308-12-21T19:59:05.224192Z")
        #expect(Timestamp.iso8601(0) == "1970-01-01T00:00:00.000000Z")
        #expect(Timestamp.iso8601(-1) == "1969-12-31T23:59:59.999999Z")
    }

    /// Plausible: btsnoop's epoch (a zero btsnoop timestamp) to the end of year 9999.
    @Test func plausibleRange() {
        #expect(Timestamp.isPlausible(-Timestamp.btsnoopEpochOffset))
        #expect(!Timestamp.isPlausible(-Timestamp.btsnoopEpochOffset - 1))
        #expect(Timestamp.isPlausible(253_402_300_800 * 1_000_000 - 1))
        #expect(!Timestamp.isPlausible(253_402_300_800 * 1_000_000))
        #expect(!Timestamp.isPlausible(.max) && !Timestamp.isPlausible(.min))
        #expect(Timestamp.isPlausible(1_777_881_600_000_000))   // 2026-05-04
    }

    /// A duration between absurd timestamps prints instead of trapping in `Int64(Double)`.
    @Test func hugeDurationsPrint() {
        #expect(TextFormat.fixed(1e300, 2) == "\(1e300)")
        #expect(TextFormat.duration(.max) == "9223372036854.776 s")
        #expect(TextFormat.duration(.min) == "-9223372036854775808 µs")
        #expect(TextFormat.fixed(12.5, 2) == "12.50")
    }
}
