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
/// false), as it cancels any pending connection. Powering off ends it too.
extension CBReplay {
    /// Whether the system connects `p` again after `link` ended; if so the connection is pending
    /// when this returns.
    func reconnectsBySystem(_ p: CBPeripheral, after link: SimulatedLink) -> Bool {
        guard p.autoReconnect, !link.centralRequestedDisconnect else { return false }
        p.state = .connecting
        world.host.connect(p.simulated)
        return true
    }
}
