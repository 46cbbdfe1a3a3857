import BLECore

/// What a central script runs on (Docs/replay.md "Central scripts"): the simulated central host
/// facing the capture's peripherals (`HostCentralSide`), or a remote central facing the local GATT
/// server an app plays with CBPeripheralManager (`ScriptedRemoteCentral`). The side reports back
/// through the runner's `CentralHostObserver` methods.
public protocol ScriptCentralSide: AnyObject {
    func startScan(services: [BluetoothUUID]?, allowDuplicates: Bool)
    func stopScan()
    func connect(_ p: SimulatedPeripheral)
    func cancelConnect(_ p: SimulatedPeripheral)
    /// The script's `disconnect` step.
    func disconnect(_ link: SimulatedLink)
    /// The GATT client the script's operations run on, for a new link.
    func client(for link: SimulatedLink) -> GATTClient
    /// What a `connect` without a scan connects to: the named peripheral, else the first the
    /// recording shows connected.
    func target(named: String?) -> SimulatedPeripheral?
}

/// The simulated central host as a script's side: the script is the local central.
final class HostCentralSide: ScriptCentralSide {
    unowned let world: ReplayWorld
    var host: CentralHost { world.host }

    init(world: ReplayWorld) { self.world = world }

    func startScan(services: [BluetoothUUID]?, allowDuplicates: Bool) { host.startScan(services: services, allowDuplicates: allowDuplicates) }
    func stopScan() { host.stopScan() }
    func connect(_ p: SimulatedPeripheral) { host.connect(p) }
    func cancelConnect(_ p: SimulatedPeripheral) { host.cancelConnect(p) }
    func disconnect(_ link: SimulatedLink) { host.disconnect(link) }
    func client(for link: SimulatedLink) -> GATTClient { GATTClient(host: host, link: link) }
    /// The script's `peripheral` (an address or a name, as scans accept it), or without one the
    /// first recorded peripheral; nil when the capture holds no such device (a script naming a
    /// device must not pass against another).
    func target(named: String?) -> SimulatedPeripheral? {
        guard let named else { return world.peripherals.first { !$0.model.behaviours.isEmpty } }
        return world.peripheral(named) ?? world.peripherals.first { $0.model.isNamed(named) }
    }
}
