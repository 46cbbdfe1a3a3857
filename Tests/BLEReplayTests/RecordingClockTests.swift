@testable import BLEReplay
import BLECore
import BLETimeline
import Testing

/// The capture's clock as a replay reads it (`RecordingClock`, issue 17): never backwards.
@Suite("recording clock")
struct RecordingClockTests {
    /// Records in frame order: a step back, a jump forward, two records under the new latest time,
    /// an absurd one (Int64.max Unix µs), then forward again.
    @Test func aRecordThatStepsBackIsSimultaneousWithTheLatestBeforeIt() {
        var clock = RecordingClock(firstPlausible: 1_000)
        let raw: [Int64] = [1_000, 500, 2_000, 1_500, 1_999, .max, 3_000]
        let times = raw.enumerated().map { clock.next(frame: $0.offset + 1, raw: $0.element) }
        #expect(times == [1_000, 1_000, 2_000, 2_000, 2_000, 2_000, 3_000])
        #expect(clock.stepsBack == 3)
        #expect(clock.absurd == 1)
        #expect(clock.largestStep?.frame == 2 && clock.largestStep?.by == 500)
        // Looked up again by frame: the moved records get their clock time, the others their own.
        for (i, r) in raw.enumerated() { #expect(clock.time(frame: i + 1, raw: r) == times[i]) }
        #expect(clock.note?.contains("steps back at 3 record(s) (the largest step 500 µs, at packet 2)") == true)
    }

    /// A clock set back (a step of more than 1 s) is a reset, not a record out of order: the
    /// records after it keep their spacing, shifted by the step (they all collapsed into the last
    /// record's instant before, 1 h of traffic in one microsecond). A small step (500 µs, records
    /// merged out of order) is still clamped and shifts nothing.
    @Test func aClockSetBackKeepsTheSpacingAfterIt() {
        var clock = RecordingClock(firstPlausible: 10_000_000)
        let hour: Int64 = 3_600_000_000
        let raw: [Int64] = [10_000_000, 12_000_000, 12_000_000 - hour, 12_250_000 - hour, 12_249_500 - hour, 13_000_000 - hour, .max, 14_000_000 - hour]
        let times = raw.enumerated().map { clock.next(frame: $0.offset + 1, raw: $0.element) }
        #expect(times == [10_000_000, 12_000_000, 12_000_000, 12_250_000, 12_250_000, 13_000_000, 13_000_000, 14_000_000])
        #expect(clock.stepsBack == 2 && clock.resets == 1 && clock.absurd == 1)
        #expect(clock.largestStep?.frame == 3 && clock.largestStep?.by == hour)
        for (i, r) in raw.enumerated() { #expect(clock.time(frame: i + 1, raw: r) == times[i]) }
        #expect(clock.note?.contains("where it was set back by more than 1 s (1 time(s)), the records after it keep their spacing") == true,
                "\(clock.note ?? "")")
    }

    @Test func aForwardClockIsUntouched() {
        var clock = RecordingClock(firstPlausible: 10)
        for (i, t) in [Int64(10), 10, 11, 5_000_000].enumerated() { #expect(clock.next(frame: i + 1, raw: t) == t) }
        #expect(clock.note == nil)
        #expect(clock.time(frame: 3, raw: 11) == 11)
    }

    /// Absurd records before the first plausible one take its time; a capture with no plausible
    /// record at all keeps its first record's time.
    @Test func absurdTimestampsNeverMoveTheClock() {
        var clock = RecordingClock(firstPlausible: 7_000)
        #expect(clock.next(frame: 1, raw: .min) == 7_000)
        #expect(clock.next(frame: 2, raw: 7_000) == 7_000)
        var none = RecordingClock(firstPlausible: nil)
        #expect(none.next(frame: 1, raw: .max) == .max)
        #expect(none.next(frame: 2, raw: .min) == .max)
        #expect(none.next(frame: 3, raw: 1 << 62) == .max)
    }
}
