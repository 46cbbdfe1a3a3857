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

    /// Whole milliseconds of virtual delay for `deadline`, the same on a loaded machine as on a
    /// quiet one.
    ///
    /// The app computed `deadline` as its own `.now()` plus the delay it meant, at some instant
    /// between the reference (the start of its code for this event) and this call; so the delay
    /// lies between `deadline - now` and `deadline - reference`. How wide that window is depends
    /// on how long the machine took to run the app's code before its `.now()`: microseconds when
    /// quiet, milliseconds under load. The delay taken is the roundest one in the window (a
    /// multiple of 1 s, then 0.5 s, 0.25 s, 0.1 s, 50 ms, 25 ms, 10 ms, 5 ms, 1 ms, the first
    /// that falls in it), so a delay an app writes as 7.5 s, 250 ms or 2^k s comes out exact
    /// however long the thread stalled; a delay finer than the window is cut to the millisecond
    /// below its upper end (as before). 0 for a deadline already past.
    func virtualDelayMilliseconds(until deadline: DispatchTime) -> UInt64 {
        let now = DispatchTime.now().uptimeNanoseconds
        let reference = min(dispatchReference ?? now, now)
        let d = deadline.uptimeNanoseconds
        guard d > reference else { return 0 }
        let hi = d - reference
        let lo = d > now ? d - now : 0
        for grain: UInt64 in [1_000_000_000, 500_000_000, 250_000_000, 100_000_000, 50_000_000, 25_000_000,
                              10_000_000, 5_000_000, 1_000_000] {
            let (q, r) = lo.quotientAndRemainder(dividingBy: grain)
            let (m, overflow) = (r == 0 ? q : q + 1).multipliedReportingOverflow(by: grain)
            if !overflow, m <= hi { return m / 1_000_000 }
        }
        return hi / 1_000_000
    }
}
