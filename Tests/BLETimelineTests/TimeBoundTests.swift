import Testing
@testable import BLETimeline

/// `--since`/`--until` values: seconds from the time origin, or a UTC time; hostile timestamps saturate.
@Suite("time bounds and relative times")
struct TimeBoundTests {
    @Test func secondsFromTheOrigin() {
        #expect(TimeBound(parsing: "12.5") == .relative(12_500_000))
        #expect(TimeBound(parsing: "0.000001") == .relative(1))
        #expect(TimeBound(parsing: "-1.5") == .relative(-1_500_000))
        #expect(TimeBound(parsing: "3") == .relative(3_000_000))
        #expect(TimeBound(parsing: "1.1234567") == nil)   // finer than a microsecond
        #expect(TimeBound(parsing: "abc") == nil)
        #expect(TimeBound(parsing: "99999999999999999999") == nil)
    }

    @Test func utcTimes() {
        // `timeline --json` of Captures/heart-rate-healthy.btsnoop: frame 128 is ts_us 1772359203281608,
        // `-v` prints it as 2026-03-01T10:00:03.281608Z.
        #expect(TimeBound(parsing: "2026-03-01T10:00:03.281608Z") == .absolute(1_772_359_203_281_608))
        #expect(TimeBound(parsing: "2026-03-01 10:00:03.281608") == .absolute(1_772_359_203_281_608))
        #expect(TimeBound(parsing: "2026-03-01T10:00Z") == .absolute(1_772_359_200_000_000))
        #expect(TimeBound(parsing: "2026-03-01") == .absolute(1_772_323_200_000_000))
        #expect(TimeBound(parsing: "1970-01-01T00:00:00Z") == .absolute(0))
        #expect(TimeBound(parsing: "2026-13-01") == nil)
        #expect(TimeBound(parsing: "2026-03-01T25:00Z") == nil)
    }

    @Test func hostileTimestampsSaturate() {
        #expect(TimeBound.relative(10).absolute(origin: .max - 1) == .max)
        #expect(TimeBound.relative(-10).absolute(origin: .min + 1) == .min)
        #expect(TimelineQuery.relative(.min, origin: .max) == .min)
        #expect(TimelineQuery.relative(.max, origin: .min) == .max)
        #expect(PacketRow.seconds(.min) == "-9223372036854.775808")
    }
}
