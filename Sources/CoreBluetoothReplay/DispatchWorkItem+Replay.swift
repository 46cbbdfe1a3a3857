import Dispatch
import Foundation

/// `DispatchWorkItem { … }` in app code: Dispatch schedules work items itself
/// (`asyncAfter(deadline:execute: DispatchWorkItem)` has no defaulted parameter to shadow, so an
/// overload would make every call ambiguous), so an item runs on the wall clock, not in virtual
/// time. These initialisers (Dispatch's with `qos:`/`flags:` defaulted) build the same item and,
/// in a replay, say so in `CBReplay.diagnostics` (once per replay), so a test sees that a timeout
/// written with a work item did not run in virtual time. Use `asyncAfter(deadline:execute:)` with
/// a closure and a flag for cancellation, or `replay.clock`, for timers the replay runs.
extension DispatchWorkItem {
    public convenience init(block: @escaping () -> Void) {
        self.init(qos: .unspecified, flags: [], replayBlock: block)
    }

    public convenience init(qos: DispatchQoS, block: @escaping () -> Void) {
        self.init(qos: qos, flags: [], replayBlock: block)
    }

    public convenience init(flags: DispatchWorkItemFlags, block: @escaping () -> Void) {
        self.init(qos: .unspecified, flags: flags, replayBlock: block)
    }

    private convenience init(qos: DispatchQoS, flags: DispatchWorkItemFlags, replayBlock block: @escaping () -> Void) {
        let box = UncheckedWork(block)
        self.init(qos: qos, flags: flags, block: { box.work() })
        CBReplay.current?.diagnose(.dispatchWorkItem, key: "work item",
                                   "a DispatchWorkItem was created in the app's code: Dispatch runs it on the wall clock, " +
                                   "not in virtual time (asyncAfter(deadline:execute:) with a closure runs in virtual time)")
    }
}
