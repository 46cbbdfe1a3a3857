import Dispatch

/// `DispatchSource.makeTimerSource(queue:)` in app code (a GCD timer polling RSSI, a connect
/// timeout): Dispatch fires a timer source on the wall clock, so during `CBReplay.run(for:)` it
/// does not tick in virtual time (a main-queue source never fires while the replay runs on another
/// thread). A timer source the replay ran itself would need `schedule(deadline:repeating:leeway:)`
/// and `setEventHandler(handler:)`, which Dispatch declares in protocol extensions, not as
/// requirements: a source of another class given to app code that holds `DispatchSourceTimer`
/// would reach Dispatch's implementations and trap. So this factory (Dispatch's with `flags:`
/// defaulted, which Swift's overload ranking prefers in files that import CoreBluetoothReplay)
/// builds Dispatch's own source and, in a replay, says so in `CBReplay.diagnostics` (once per
/// replay), as for a `DispatchWorkItem`. A call naming `flags:` is Dispatch's and not reported.
/// Use `asyncAfter(deadline:execute:)` (rescheduling itself for a repeating timer) or
/// `replay.clock` for timers the replay runs.
extension DispatchSource {
    public class func makeTimerSource(queue: DispatchQueue? = nil) -> any DispatchSourceTimer {
        CBReplay.current?.diagnose(.dispatchSourceTimer, key: "timer source",
                                   "a GCD timer source (DispatchSource.makeTimerSource) was created in the app's code: Dispatch " +
                                   "fires it on the wall clock, not in virtual time, so it does not tick during run(for:) " +
                                   "(asyncAfter(deadline:execute:) with a closure runs in virtual time)")
        return makeTimerSource(flags: [], queue: queue)
    }
}
