import Dispatch
import Foundation

/// The `queue` a manager was created with (`CBCentralManager(delegate:queue:options:)`): iOS
/// delivers every delegate callback on it. The replay runs each callback, and each app timer
/// scheduled on a queue (`asyncAfter(deadline:execute:)`, `async(execute:)`), synchronously on
/// that queue at its virtual instant (`DispatchQueue.sync`), so `dispatchPrecondition(condition:
/// .onQueue(q))` holds and the order stays the simulation's. `nil` and the main queue run on the
/// thread that calls `run` (as before: a test drives the replay from it).
extension CBReplay {
    /// Runs app code for `manager` on its queue.
    func callApp(_ manager: CBCentralManager?, _ body: () -> Void) {
        onQueue(manager?.queue, body)
    }

    /// Runs app code for a peripheral manager on its queue.
    func callApp(_ manager: CBPeripheralManager?, _ body: () -> Void) {
        onQueue(manager?.queue, body)
    }

    /// Runs `body` on `queue` (inline for nil, the main queue, or when already on it).
    func onQueue(_ queue: DispatchQueue?, _ body: () -> Void) {
        // `DispatchQueue.main` is a new wrapper on each access on Linux: compare the label.
        guard let queue, queue.label != DispatchQueue.main.label, DispatchQueue.getSpecific(key: queueKey) != ObjectIdentifier(queue) else {
            body()
            return
        }
        queue.setSpecific(key: queueKey, value: ObjectIdentifier(queue))
        queue.sync { activate { body() } }
    }
}
