import Dispatch
import Foundation

/// The dispatch reference: how an app's `DispatchTime` deadline becomes a virtual delay
/// (DispatchQueue+VirtualClock.swift, Docs/replay.md "Your own timers").
///
/// The replay reads `DispatchTime.now()` once just before it runs the app's code for an event
/// (the scheduler's `willRunEvent`, and on entering `activate`) and measures every deadline set
/// during that code from that reading, not from the wall clock at the `asyncAfter` call. The
/// reading only serves to recover the offset the app added to its own `.now()`; the virtual
/// result does not depend on how long the app's code takes after its `.now()`.
extension CBReplay {
    /// Notes the wall-clock `DispatchTime` at which the app's code for the current event starts.
    func markDispatchReference() {
        dispatchReference = DispatchTime.now().uptimeNanoseconds
    }

    /// Whole milliseconds from the dispatch reference to `deadline` (0 for a deadline already past).
    func virtualDelayMilliseconds(until deadline: DispatchTime) -> UInt64 {
        let reference = dispatchReference ?? DispatchTime.now().uptimeNanoseconds
        let d = deadline.uptimeNanoseconds
        return d > reference ? (d - reference) / 1_000_000 : 0
    }
}
