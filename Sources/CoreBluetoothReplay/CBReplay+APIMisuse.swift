import Foundation

/// Calls iOS drops or trims with a line in the system log rather than an error (Docs/replay.md
/// "How iOS behaves"): the replay drops or trims them the same way and notes each in
/// `CBReplay.diagnostics`, so the log line a developer would see in Console is not lost.
extension CBReplay {
    /// iOS's check at the start of a manager's or a peripheral's command: while the manager is not
    /// `.poweredOn` CoreBluetooth logs "API MISUSE: <CBCentralManager …> can only accept this
    /// command while in the powered on state" and the call does nothing (no delegate callback).
    /// Returns whether `manager` is powered on; notes the dropped call when it is not.
    func isPoweredOn(_ manager: CBManager, _ api: String) -> Bool {
        guard manager.state != .poweredOn else { return true }
        diagnose(.apiMisuse, key: api,
                 "API MISUSE: \(type(of: manager)) can only accept this command while in the powered on state: " +
                 "\(api) was called while the state was \(manager.state); the call was dropped, as iOS drops it")
        return false
    }

    /// iOS's next check in a `CBPeripheral` command: unless the peripheral is connected,
    /// CoreBluetooth logs "API MISUSE: <CBPeripheral …> can only accept commands while in the
    /// connected state" and the call does nothing (no delegate callback, ever). The replay drops
    /// it the same way and notes it (once per method).
    func notConnected(_ peripheral: CBPeripheral, _ api: String) {
        diagnose(.apiMisuse, key: "not connected \(api)",
                 "API MISUSE: \(peripheral) can only accept commands while in the connected state: \(api) was called " +
                 "while the peripheral was \(peripheral.state); the call was dropped, as iOS drops it")
    }

    /// Something iOS logs and leaves out while doing the rest of the call.
    func noteIgnored(key: String, _ message: String) {
        diagnose(.ignoredAsIOSDoes, key: key, message)
    }
}
