import BLEReplay
import Foundation

/// The virtual clock, for the app's own timers (reconnect backoff, watchdogs): `schedule(after:)`
/// runs the work at that virtual delay, in order with the Bluetooth events.
public final class CBReplayClock {
    unowned let replay: CBReplay

    init(replay: CBReplay) { self.replay = replay }

    /// Seconds of virtual time since the replay started.
    public var now: TimeInterval { TimeInterval(replay.world.now) / 1_000_000 }

    /// Identifies a scheduled piece of work.
    public struct Timer: Hashable, Sendable {
        let id: Scheduler.EventID
    }

    @discardableResult
    public func schedule(after seconds: TimeInterval, _ work: @escaping () -> Void) -> Timer {
        let us = Int64((max(0, seconds) * 1_000_000).rounded())
        return Timer(id: replay.world.scheduler.schedule(after: us, work))
    }

    public func cancel(_ timer: Timer) {
        replay.world.scheduler.cancel(timer.id)
    }
}
