import BLECore
import BLEDecode

/// A central script as the remote central of the local GATT server that an app plays with
/// CBPeripheralManager (Docs/peripheral.md "A central script as the remote central"): the
/// phone or the watch nobody recorded. The recorded centrals stay away while it runs.
///
/// - **Scan** finds the local device at its next advertising event (every 100 ms, the interval
///   the replay's LE Set Advertising Parameters sets) once the app advertises, with the app's
///   advertising data; a service filter must match the advertised services.
/// - **Connect** brings the link up one connection setup after the local device's next
///   advertising event (a central can only connect to an advertiser), with the parameters of the
///   capture's first recorded remote central (else 30 ms / 4 s); the local controller reports
///   the local device as peripheral (LE Connection Complete role 0x01).
/// - **Requests** go over `RemoteCentralBearer` and reach the app's server as the recorded
///   central's do; notifications and indications come back to the script (the central's host
///   confirms indications).
/// - **Disconnect** ends the link from the central's side: the local controller reports 0x13 at
///   the next connection event; the script hears 0x16 (its own host terminated the link).
/// - **Faults** (`--inject`, the script's `inject`) act on this central as on any peer: its
///   `stop-reading`, a `disconnect` after the n-th PDU it received, at a time, and so on.
public final class ScriptedRemoteCentral: ScriptCentralSide {
    unowned let world: ReplayWorld
    let driver: LocalServerDriver
    /// The remote central's device on the link: the first recorded remote central's, else one
    /// made for the script.
    let identity: SimulatedPeripheral
    /// The runner the script runs in; events are reported to it.
    public weak var runner: ScriptRunner?
    private var scanServices: [BluetoothUUID]?
    private var scanning = false
    private var scanEvent: Scheduler.EventID?
    private var connecting: SimulatedPeripheral?
    private var connectEvent: Scheduler.EventID?
    private var bearer: RemoteCentralBearer?
    private var disconnecting = false

    /// The advertising interval of the local device (LE Set Advertising Parameters 0x00A0 × 0.625 ms).
    static let advertisingInterval: Int64 = 100_000

    public init(world: ReplayWorld, driver: LocalServerDriver) {
        self.world = world
        self.driver = driver
        if let first = driver.centrals.first {
            identity = world.peripherals[first.model]
        } else {
            identity = world.addPeripheral(PeripheralModel(
                key: "scripted central", address: nil, name: nil,
                advertising: AdvertisingModel(advertisingData: [], scanResponse: nil, interval: Self.advertisingInterval, rssi: -60,
                                              connectable: false, synthesized: true, reportCount: 0),
                gatt: .init(), extractor: BehaviourExtractor(gatt: nil), behaviours: []))
            identity.setAdvertising(false)
        }
        driver.scriptedCentral = self
    }

    var host: CentralHost { world.host }

    /// The local device as the script sees it: its advertised name and data, now.
    func localDevice() -> SimulatedPeripheral {
        let (data, scanResponse) = driver.advertisement()
        let adv = AdvertisingModel(advertisingData: data, scanResponse: scanResponse, interval: Self.advertisingInterval, rssi: -60,
                                   connectable: true, synthesized: false, reportCount: 0)
        let model = PeripheralModel(key: RecordedLocalServer.key, address: nil, name: adv.localName, advertising: adv,
                                    gatt: .init(), extractor: BehaviourExtractor(gatt: nil), behaviours: [])
        let p = SimulatedPeripheral(model: model, index: 0, world: world)
        p.advertisingEnabled = false
        return p
    }

    /// The local device's next advertising event, when it advertises.
    private func nextAdvertisingEvent() -> VirtualTime? {
        guard driver.isAdvertising() else { return nil }
        return (world.now / Self.advertisingInterval + 1) * Self.advertisingInterval
    }

    /// The app started advertising: a pending scan or connection can go on.
    func advertisingStarted() {
        if scanning { scheduleScan() }
        if connecting != nil { scheduleConnect() }
    }

    // MARK: ScriptCentralSide

    public func startScan(services: [BluetoothUUID]?, allowDuplicates: Bool) {
        scanning = true
        scanServices = services.flatMap { $0.isEmpty ? nil : $0 }
        scheduleScan()
    }

    private func scheduleScan() {
        guard scanning, scanEvent == nil, let at = nextAdvertisingEvent() else { return }
        scanEvent = world.scheduler.schedule(at: at) { [self] in
            scanEvent = nil
            guard scanning, driver.isAdvertising() else { return }
            let p = localDevice()
            if let filter = scanServices, !p.model.advertising.serviceUUIDs.contains(where: filter.contains) {
                scheduleScan()
                return
            }
            runner?.centralHost(host, didDiscover: p, report: AdvertisingEvent(
                time: world.now, advertisingData: p.model.advertising.advertisingData, scanResponse: p.model.advertising.scanResponse,
                rssi: p.model.advertising.rssi, connectable: true))
            scheduleScan()
        }
    }

    public func stopScan() {
        scanning = false
        world.scheduler.cancel(scanEvent)
        scanEvent = nil
    }

    public func connect(_ p: SimulatedPeripheral) {
        guard connecting == nil, bearer == nil else { return }
        connecting = p
        scheduleConnect()
    }

    private func scheduleConnect() {
        guard connecting != nil, connectEvent == nil, let at = nextAdvertisingEvent() else { return }
        connectEvent = world.scheduler.schedule(at: at.saturatingAdding(CentralHost.connectionSetupDelay)) { [self] in
            connectEvent = nil
            guard connecting != nil else { return }
            guard driver.isAdvertising() else { return }   // it stopped: wait for the next start
            connecting = nil
            let bearer = RemoteCentralBearer(world: world)
            self.bearer = bearer
            disconnecting = false
            let link = driver.connectScripted(identity, central: self)
            bearer.onValue = { [weak self, unowned link] pdu in
                guard let self else { return }
                runner?.centralHost(host, link: link, didReceiveValue: pdu)
            }
            runner?.centralHost(host, didConnect: link)
        }
    }

    public func cancelConnect(_ p: SimulatedPeripheral) {
        guard connecting != nil else { return }
        connecting = nil
        world.scheduler.cancel(connectEvent)
        connectEvent = nil
        runner?.centralHost(host, didFailToConnect: p, reason: HCIStatusCode(0x02))
    }

    public func disconnect(_ link: SimulatedLink) {
        guard link.isUp, !disconnecting else { return }
        disconnecting = true
        link.centralRequestedDisconnect = true   // the central (this script) asked: no error for it
        world.scheduler.schedule(at: link.nextConnectionEvent(after: world.now)) { [self] in
            host.peerTerminated(link, reason: HCIStatusCode(0x13))
        }
    }

    public func client(for link: SimulatedLink) -> GATTClient {
        GATTClient(host: host, link: link, transport: bearer ?? RemoteCentralBearer(world: world))
    }

    public func target(named: String?) -> SimulatedPeripheral? { localDevice() }

    // MARK: From the link

    /// A PDU of the local server reached the central (PeerSession.receive).
    func received(_ pdu: [UInt8], on link: SimulatedLink) {
        bearer?.received(pdu, on: link)
    }

    /// The link is gone. The script hears the reason its own controller reports: 0x16 when it
    /// asked for the disconnection, else the link's.
    func linkDown(_ link: SimulatedLink, reason: HCIStatusCode) {
        bearer?.linkDown()
        bearer = nil
        let own = disconnecting
        disconnecting = false
        runner?.centralHost(host, didDisconnect: link, reason: own ? HCIStatusCode(0x16) : reason)
    }
}
