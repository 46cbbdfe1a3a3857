import BLEReplay
import Foundation

/// The virtual clock, for the app's own timers (reconnect backoff, watchdogs): `schedule(after:)`
/// runs the work at that virtual delay, in order with the Bluetooth events.
public final class CBReplayClock {
    unowned let replay: CBReplay

    init(replay: CBReplay) { self.replay = replay }

    /// Seconds of virtual time since the replay started.
    public var now: TimeInterval { TimeInterval(replay.world.now) / 1_000_000 }

    /// Seconds from 2001-01-01 00:00 UTC to 1970-01-01 (CoreFoundation's reference date).
    public static let absoluteTimeIntervalSince1970: Double = 978_307_200

    /// The virtual instant as a `CFAbsoluteTime` (seconds since 2001-01-01 UTC): virtual time zero
    /// is the recording's first record, at its wall-clock date, so a timestamp the app gets
    /// (`didDisconnectPeripheral(…timestamp:…)`) is the date the event would have had.
    public var absoluteTime: CFAbsoluteTime {
        (Double(replay.world.configuration.epoch) + Double(replay.world.now)) / 1_000_000 - Self.absoluteTimeIntervalSince1970
    }

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
