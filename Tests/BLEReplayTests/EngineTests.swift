import Testing
@testable import BLEReplay

@Suite struct SchedulerTests {
    @Test func runsInTimeThenOrderThenSequence() {
        let s = Scheduler()
        var log: [String] = []
        s.schedule(at: 20) { log.append("c") }
        s.schedule(at: 10) { log.append("a") }
        s.schedule(at: 20, order: 5) { log.append("b") }     // hinted: before unhinted at the same time
        s.schedule(at: 20) { log.append("d") }
        s.schedule(at: 10, order: 1) { log.append("a0") }
        s.run()
        #expect(log == ["a0", "a", "b", "c", "d"])
        #expect(s.now == 20)
        #expect(s.eventsRun == 5)
    }

    @Test func cancelledEventsDoNotRun() {
        let s = Scheduler()
        var ran = false
        let id = s.schedule(at: 5) { ran = true }
        s.cancel(id)
        s.run()
        #expect(!ran)
        #expect(s.eventsRun == 0)
    }

    @Test func eventsScheduleMoreEventsAndLimitStops() {
        let s = Scheduler()
        var ticks: [VirtualTime] = []
        func tick() {
            ticks.append(s.now)
            s.schedule(after: 1_000) { tick() }
        }
        s.schedule(at: 0) { tick() }
        s.run(until: 3_500)
        #expect(ticks == [0, 1_000, 2_000, 3_000])
        #expect(s.now == 3_500)
    }

    @Test func neverSchedulesIntoThePast() {
        let s = Scheduler()
        var at: VirtualTime = -1
        s.schedule(at: 100) { s.schedule(at: 50) { at = s.now } }
        s.run()
        #expect(at == 100)
    }
}

@Suite struct SplitMix64Tests {
    /// Reference outputs of SplitMix64 for seed 0 (Vigna's splitmix64.c).
    @Test func matchesTheReferenceSequence() {
        var g = SplitMix64(seed: 0)
        #expect(g.next() == 0xE220_A839_7B1D_CDAF)
        #expect(g.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(g.next() == 0x06C4_5D18_8009_454F)
    }

    @Test func boundedDrawsStayInRangeAndRepeat() {
        var a = SplitMix64(seed: 42), b = SplitMix64(seed: 42)
        for _ in 0..<1000 {
            let x = a.below(7)
            #expect((0..<7).contains(x))
            #expect(x == b.below(7))
            let y = a.inRange(-5...5)
            #expect((-5...5).contains(y))
            #expect(y == b.inRange(-5...5))
        }
    }
}

@Suite struct VirtualDurationTests {
    @Test(arguments: [("12.5s", 12_500_000), ("300ms", 300_000), ("250us", 250), ("2m", 120_000_000),
                      ("+2s", 2_000_000), ("1.5", 1_500_000), ("0s", 0)] as [(String, Int64)])
    func parses(_ text: String, _ us: Int64) {
        #expect(VirtualDuration.parse(text) == us)
    }

    @Test(arguments: ["", "s", "-1s", "abc", "1.2.3s", "5 parsecs"])
    func rejects(_ text: String) {
        #expect(VirtualDuration.parse(text) == nil)
    }

    @Test func formats() {
        #expect(VirtualDuration.format(26_130_195) == "26.130195 s")
        #expect(VirtualDuration.short(4_000_000) == "4 s")
        #expect(VirtualDuration.short(1_500) == "1.5 ms")
    }
}

@Suite struct AnswerTableTests {
    /// The n-th identical request gets the n-th recorded answer, then the last one again.
    @Test func nthAnswerThenTheLast() {
        var t = AnswerTable()
        let read: [UInt8] = [0x0A, 0x21, 0x00]
        t.record(request: read, RecordedAnswer(response: [0x0B, 1], latency: 10, packetID: 1))
        t.record(request: read, RecordedAnswer(response: nil, latency: 0, packetID: nil))
        t.record(request: read, RecordedAnswer(response: [0x0B, 3], latency: 30, packetID: 3))
        #expect(t.answer(to: read, occurrence: 1)?.response == [0x0B, 1])
        #expect(t.answer(to: read, occurrence: 2)?.response == nil)
        #expect(t.answer(to: read, occurrence: 3)?.latency == 30)
        #expect(t.answer(to: read, occurrence: 9)?.packetID == 3)
        #expect(t.answer(to: [0x0A, 0x22, 0x00], occurrence: 1) == nil)
    }
}
