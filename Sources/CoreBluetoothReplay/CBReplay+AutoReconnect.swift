import BLEReplay

/// `CBConnectPeripheralOptionEnableAutoReconnect` (iOS 17), as Apple documents the key: "After a
/// peripheral device connects, this setting enables the system to initiate a connection to the
/// peer device automatically when the link drops. The system uses
/// centralManager(_:didDisconnectPeripheral:timestamp:isReconnecting:error:) to notify the caller
/// about the disconnection."
///
/// The replay: a link that was up and that the app did not end itself (`cancelPeripheralConnection`)
/// is connected again by the system at once: the delegate hears the disconnection with
/// `isReconnecting` true and the mapped error, the peripheral is `.connecting` (the system's
/// pending connection; not checked on a device), and `didConnect` follows when the peripheral
/// next advertises, as for the app's own `connect`. `connect` while it is pending changes nothing;
/// `cancelPeripheralConnection` ends it (`didDisconnectPeripheral` with no error, isReconnecting
/// false), as it cancels any pending connection. Powering off drops the link without it. The
/// option belongs to the system's connection, not to the app's objects: after `relaunch` the
/// restored peripheral is reconnected the same way.
extension CBReplay {
    /// Notes the option of the app's latest `connect` to `p`.
    func setAutoReconnect(_ on: Bool, for p: CBPeripheral) {
        if on { autoReconnecting.insert(ObjectIdentifier(p.simulated)) } else { autoReconnecting.remove(ObjectIdentifier(p.simulated)) }
    }

    /// Whether the system connects `p` again after `link` ended; if so the connection is pending
    /// when this returns.
    func reconnectsBySystem(_ p: CBPeripheral, after link: SimulatedLink) -> Bool {
        guard autoReconnecting.contains(ObjectIdentifier(p.simulated)), !link.centralRequestedDisconnect else { return false }
        p.state = .connecting
        world.host.connect(p.simulated)
        return true
    }
}
