import Dispatch
import Foundation

/// `DispatchQueue.asyncAfter(deadline:execute:)` and `DispatchQueue.async(execute:)` on the
/// replay's virtual clock, so an app's reconnect backoff or scan timeout written the iOS way
/// (`DispatchQueue.main.asyncAfter(deadline: .now() + delay) { central.connect(p) }`) runs in
/// virtual time, in order with the Bluetooth events, with no change beyond the import.
///
/// How: these overloads have no defaulted `qos`/`flags` parameters, so Swift's overload ranking
/// prefers them over Dispatch's `asyncAfter(deadline:qos:flags:execute:)` and
/// `async(group:qos:flags:execute:)` in every file that imports CoreBluetoothReplay. They act
/// only on a thread where a replay is current (inside `CBReplay.activate` or while
/// `CBReplay.run` delivers callbacks); anywhere else they forward to Dispatch unchanged.
/// Calls that name `qos:`, `flags:` or pass a `DispatchWorkItem` go to Dispatch (real time).
///
/// The delay is `deadline` minus the replay's **dispatch reference**: the `DispatchTime.now()`
/// the replay noted just before it began running the app's code for the current event (each
/// delegate callback, timer or `async` block, and the body of `activate`), truncated to whole
/// milliseconds. So `.now() + 7.5` evaluated anywhere in that callback is exactly 7.5 s of
/// virtual time after the callback's virtual instant, however long the thread then stalls before
/// `asyncAfter` is called: the real time spent after the app's `.now()` no longer counts, and
/// the real time spent before it (from the start of the callback) is dropped by the truncation
/// as long as it is under 1 ms. A deadline that is not a whole number of milliseconds is
/// truncated to the millisecond below; one already past runs at the current virtual time.
/// `DispatchTime.now()` itself, `Date()` and `Timer` still read the wall clock (Docs/replay.md,
/// "Your own timers").
extension DispatchQueue {
    public func asyncAfter(deadline: DispatchTime, execute work: @escaping () -> Void) {
        guard let replay = CBReplay.current else {
            let box = UncheckedWork(work)
            asyncAfter(deadline: deadline, qos: .unspecified, flags: [], execute: { box.work() })
            return
        }
        replay.clock.schedule(after: TimeInterval(replay.virtualDelayMilliseconds(until: deadline)) / 1000) { [self] in
            replay.onQueue(self, work)
        }
    }

    /// `async(execute:)`: in a replay, the work runs as the next event at the current virtual time.
    public func async(execute work: @escaping () -> Void) {
        guard let replay = CBReplay.current else {
            let box = UncheckedWork(work)
            async(group: nil, qos: .unspecified, flags: [], execute: { box.work() })
            return
        }
        replay.clock.schedule(after: 0) { [self] in replay.onQueue(self, work) }
    }
}

/// Carries the app's closure to Dispatch outside a replay (the caller chose the queue; Dispatch
/// runs it as it would have run the literal).
private struct UncheckedWork: @unchecked Sendable {
    let work: () -> Void
    init(_ work: @escaping () -> Void) { self.work = work }
}
