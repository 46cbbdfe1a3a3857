import CoreBluetoothReplay
import Dispatch
import Foundation
import Testing

/// `DispatchQueue.main.asyncAfter(deadline:execute:)` written as apps write it (this target is in
/// Swift 5 mode), on the virtual clock (DispatchQueue+VirtualClock.swift,
/// CBReplay+DispatchReference.swift): the virtual firing instant does not depend on how much real
/// time passes between the app's `.now()` and its `asyncAfter` call.
@Suite struct AsyncAfterTests {
    /// An app that computes a deadline in a callback, stalls for real (a slow thread, a busy CI
    /// machine), and only then hands the deadline to `asyncAfter`.
    final class StallingApp: NSObject, CBCentralManagerDelegate {
        let clock: CBReplayClock
        let queue = DispatchQueue.main
        let stall: useconds_t
        var central: CBCentralManager!
        var scheduledAt: TimeInterval?
        var fired: [(label: String, at: TimeInterval)] = []

        init(replay: CBReplay, stall: useconds_t) {
            clock = replay.clock
            self.stall = stall
            super.init()
            central = replay.activate { CBCentralManager(delegate: self, queue: nil) }
        }

        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            guard central.state == .poweredOn, scheduledAt == nil else { return }
            scheduledAt = clock.now
            let scanTimeout = DispatchTime.now() + 7.5
            let short = DispatchTime.now() + .milliseconds(250)
            usleep(stall)
            queue.asyncAfter(deadline: scanTimeout) { [self] in fired.append(("7.5 s", clock.now)) }
            usleep(stall)
            queue.asyncAfter(deadline: short) { [self] in
                fired.append(("250 ms", clock.now))
                // A deadline set from inside a virtual timer, after another stall.
                let again = DispatchTime.now() + 2
                usleep(stall)
                queue.asyncAfter(deadline: again) { [self] in fired.append(("2 s", clock.now)) }
            }
        }
    }

    @Test(arguments: [useconds_t(0), 5_000, 30_000])
    func aStallAfterTheDeadlineIsComputedDoesNotMoveTheTimer(stall: useconds_t) throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = StallingApp(replay: replay, stall: stall)
        replay.run(for: 10)
        let t0 = try #require(app.scheduledAt)
        #expect(app.fired.map(\.label) == ["250 ms", "2 s", "7.5 s"])
        // Exact virtual instants (the clock counts whole microseconds).
        #expect(app.fired.map { Int64((($0.at - t0) * 1_000_000).rounded()) } == [250_000, 2_250_000, 7_500_000])
    }

    /// A deadline already past runs at the current virtual time, after the events already due.
    @Test func aPastDeadlineRunsNow() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        var at: TimeInterval?
        replay.run(for: 1)
        replay.world.scheduler.schedule(after: 0) {
            DispatchQueue(label: "x").asyncAfter(deadline: DispatchTime(uptimeNanoseconds: 1)) { at = replay.clock.now }
        }
        replay.run(for: 1)
        #expect(at == 1)
    }
}
