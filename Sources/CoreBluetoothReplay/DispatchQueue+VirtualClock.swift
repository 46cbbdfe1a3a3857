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
/// The same goes for `asyncAfter(deadline:qos:execute:)`, `asyncAfter(deadline:flags:execute:)`,
/// `async(qos:execute:)` and `async(flags:execute:)` (each shadows Dispatch's form with the other
/// parameter defaulted; a QoS or a barrier changes nothing on the virtual clock, where events run
/// one at a time). A call naming both `qos:` and `flags:` is Dispatch's own (an overload with the
/// same parameters would be ambiguous) and runs on the wall clock, as does a `DispatchWorkItem`
/// (DispatchWorkItem+Replay.swift says so in `CBReplay.diagnostics`).
///
/// `async(execute:)` on a global (concurrent) queue runs the work at once, on that queue, before
/// returning: iOS starts it on another thread with no order against the caller, so running it
/// first is one of the orders iOS allows, and the one in which an app that waits for it
/// (`DispatchQueue.global().async { …; sem.signal() }; sem.wait()`) does not deadlock.
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
        virtualAsyncAfter(replay, deadline: deadline, work)
    }

    /// The virtual-clock forms, shared by every overload above and below.
    func virtualAsyncAfter(_ replay: CBReplay, deadline: DispatchTime, _ work: @escaping () -> Void) {
        replay.clock.schedule(after: TimeInterval(replay.virtualDelayMilliseconds(until: deadline)) / 1000) { [self] in
            replay.onQueue(self, work)
        }
    }

    func virtualAsync(_ replay: CBReplay, _ work: @escaping () -> Void) {
        if isGlobal {
            replay.onQueue(self, work)
            return
        }
        replay.clock.schedule(after: 0) { [self] in replay.onQueue(self, work) }
    }

    /// `async(execute:)`: in a replay, the work runs as the next event at the current virtual time
    /// (on a global queue: at once, see above).
    public func async(execute work: @escaping () -> Void) {
        guard let replay = CBReplay.current else {
            let box = UncheckedWork(work)
            async(group: nil, qos: .unspecified, flags: [], execute: { box.work() })
            return
        }
        virtualAsync(replay, work)
    }

    public func asyncAfter(deadline: DispatchTime, qos: DispatchQoS, execute work: @escaping () -> Void) {
        guard let replay = CBReplay.current else {
            let box = UncheckedWork(work)
            asyncAfter(deadline: deadline, qos: qos, flags: [], execute: { box.work() })
            return
        }
        virtualAsyncAfter(replay, deadline: deadline, work)
    }

    public func asyncAfter(deadline: DispatchTime, flags: DispatchWorkItemFlags, execute work: @escaping () -> Void) {
        guard let replay = CBReplay.current else {
            let box = UncheckedWork(work)
            asyncAfter(deadline: deadline, qos: .unspecified, flags: flags, execute: { box.work() })
            return
        }
        virtualAsyncAfter(replay, deadline: deadline, work)
    }

    public func async(qos: DispatchQoS, execute work: @escaping () -> Void) {
        guard let replay = CBReplay.current else {
            let box = UncheckedWork(work)
            async(group: nil, qos: qos, flags: [], execute: { box.work() })
            return
        }
        virtualAsync(replay, work)
    }

    public func async(flags: DispatchWorkItemFlags, execute work: @escaping () -> Void) {
        guard let replay = CBReplay.current else {
            let box = UncheckedWork(work)
            async(group: nil, qos: .unspecified, flags: flags, execute: { box.work() })
            return
        }
        virtualAsync(replay, work)
    }

    /// The global queues' labels on Linux and Darwin (`com.apple.root.default-qos`, ...).
    var isGlobal: Bool { label.hasPrefix("com.apple.root.") }
}

/// Carries the app's closure to Dispatch outside a replay (the caller chose the queue; Dispatch
/// runs it as it would have run the literal).
struct UncheckedWork: @unchecked Sendable {
    let work: () -> Void
    init(_ work: @escaping () -> Void) { self.work = work }
}
