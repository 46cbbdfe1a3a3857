import BLEAnalysis
import BLECore
import BLEDecode
import BLEReplay
import Foundation

/// The peripheral role of a replay (Docs/peripheral.md): the app's CBPeripheralManager, the
/// driver that brings the recorded remote centrals to it, and what the system keeps for state
/// restoration.
final class CBPeripheralRole {
    weak var manager: CBPeripheralManager?
    let driver: LocalServerDriver
    /// Per restore identifier: the services and advertisement data the system kept.
    var restorable: [String: Restoration] = [:]

    struct Restoration {
        var services: [CBMutableService]
        /// The database as published (its handles, which the connected centrals hold).
        var database: CBLocalDatabase
        var advertisement: [String: Any]?
        /// The links to remote centrals and their subscriptions, which the system keeps.
        var links: [ObjectIdentifier: CBPeripheralLinkState]
        var centrals: [String: CBCentral]
    }

    init(driver: LocalServerDriver) {
        self.driver = driver
    }
}

extension CBReplay {
    /// The recorded remote centrals' answers compared with the app's, and what diverged.
    public var localServerDriver: LocalServerDriver { peripheralSide.driver }

    var peripheralSide: CBPeripheralRole {
        if let r = peripheralRole { return r }
        let r = CBPeripheralRole(driver: LocalServerDriver(world: world, session: session))
        r.driver.isAdvertising = { [weak r] in r?.manager.map { !$0.detached && $0.isAdvertising && $0.state == .poweredOn } ?? false }
        r.driver.advertisement = { [weak r] in
            let layout = CBAdvertisingLayout(r?.manager?.advertisementData ?? [:])
            return (layout.advertisingData, layout.scanResponse)
        }
        r.driver.willConnect = { [weak self, weak r] server in
            guard let self, let m = r?.manager, !m.detached else { return }
            bind(server, to: m)
        }
        peripheralRole = r
        return r
    }

    var activePeripheralManager: CBPeripheralManager? {
        guard let m = peripheralRole?.manager, !m.detached else { return nil }
        return m
    }

    /// Makes `m` the active peripheral manager. The replay runs one `CBPeripheralManager` at a
    /// time (iOS runs several side by side, their services in one GATT database): an earlier one
    /// still active stops hearing, its services and advertising go with it, and `diagnostics` and
    /// standard error say so (`.secondPeripheralManager`), as for a second CBCentralManager.
    func attach(_ m: CBPeripheralManager) {
        let role = peripheralSide
        if let old = role.manager, old !== m, !old.detached {
            let message = "a second CBPeripheralManager was created while one was active: the replay runs one peripheral " +
                "manager at a time, so the earlier one (delegate \(old.delegate.map { String(describing: type(of: $0)) } ?? "nil"), " +
                "\(old.services.count) published service(s)\(old.isAdvertising ? ", advertising" : "")) hears nothing more and its " +
                "services and advertising are gone; on iOS both would work side by side (Docs/peripheral.md \"One peripheral manager at a time\")"
            diagnose(.secondPeripheralManager, key: "\(ObjectIdentifier(m).hashValue)", message)
            StandardStreams.error("CoreBluetoothReplay: \(message)")
        }
        role.manager?.detached = true
        role.manager = m
        role.driver.start()
        world.scheduler.schedule(after: 0) { [self] in
            guard role.manager === m, !m.detached else { return }
            if let id = m.restoreIdentifier, let r = role.restorable.removeValue(forKey: id) {
                m.services = r.services
                m.database = r.database
                m.centralObjects = r.centrals
                m.links = r.links
                for state in r.links.values { state.manager = m }
                var dict: [String: Any] = [:]
                if !r.services.isEmpty { dict[CBPeripheralManagerRestoredStateServicesKey] = r.services }
                if let a = r.advertisement {
                    dict[CBPeripheralManagerRestoredStateAdvertisementDataKey] = a
                    m.advertisementData = a
                    m.isAdvertising = true
                }
                callApp(m) { m.delegate?.peripheralManager(m, willRestoreState: dict) }
            }
            m.state = state
            callApp(m) { m.delegate?.peripheralManagerDidUpdateState(m) }
        }
    }

    /// A recorded central is about to connect: its requests go to the manager's server.
    func bind(_ server: LocalServerLink, to m: CBPeripheralManager) {
        let key = server.recorded?.peer ?? server.peer?.model.key ?? "connection"
        let central: CBCentral
        if let c = m.centralObjects[key] {
            central = c
        } else {
            let model = server.recorded.map { world.peripherals[$0.model].model } ?? server.peer?.model
            central = CBCentral(identifier: model.map(CBReplay.identifier(for:)) ?? UUID())
            m.centralObjects[key] = central
        }
        central.server = server
        server.appDatabase = { [weak m] in m?.database.gatt ?? .init() }
        let state = CBPeripheralLinkState(server: server, central: central, manager: m)
        server.onPDU = { [weak state] pdu in state?.received(pdu) }
        m.links[ObjectIdentifier(server)] = state
    }

    func peripheralRoleAdvertisingStarted() {
        peripheralSide.driver.advertisingStarted()
    }

    // MARK: Host events on links where the local device is the peripheral

    /// A link to a remote central ended: its subscriptions end. While the app is terminated
    /// (`relaunch`, before a manager restores the state) the system's kept copy of the link goes
    /// too, so the restored manager gets no dead link and no subscriber that is gone; no one
    /// hears of it then (no manager is running).
    func peripheralRole(didDisconnect link: SimulatedLink) {
        guard let server = link.localServer, let role = peripheralRole else { return }
        let key = ObjectIdentifier(server)
        if let m = role.manager, let state = m.links.removeValue(forKey: key), !m.detached {
            state.linkEnded()
        }
        for id in role.restorable.keys {
            role.restorable[id]?.links.removeValue(forKey: key)?.linkEnded()
        }
        role.driver.linkEnded()
    }

    func peripheralRole(linkIsReady link: SimulatedLink) {
        activePeripheralManager?.transmitQueueHasRoom()
    }

    /// The radio state changed (setState): the manager hears it; leaving poweredOn ends its
    /// advertising and (with the links, which the controller reset drops) its subscriptions. A
    /// state below `.poweredOff` (resetting, unsupported, unauthorized, unknown) also clears the
    /// local database: the app must add its services again (Apple,
    /// `peripheralManagerDidUpdateState(_:)`, on a state below powered off); `.poweredOff`
    /// keeps them.
    func peripheralRoleStateChanged(to newState: CBManagerState) {
        guard let m = activePeripheralManager else { return }
        if newState != .poweredOn {
            m.isAdvertising = false
            m.advertisementData = nil
        }
        if newState.rawValue < CBManagerState.poweredOff.rawValue { m.unpublish(m.services) }
        m.state = newState
        callApp(m) { m.delegate?.peripheralManagerDidUpdateState(m) }
    }

    /// `relaunch`: the system keeps the published services and the advertising of a manager
    /// with a restore identifier for the next one created with it.
    func relaunchPeripheralRole() {
        guard let role = peripheralRole, let m = role.manager else { return }
        if let id = m.restoreIdentifier {
            role.restorable[id] = CBPeripheralRole.Restoration(services: m.services, database: m.database, advertisement: m.isAdvertising ? m.advertisementData : nil,
                                                               links: m.links, centrals: m.centralObjects)
        }
        m.detached = true
        role.manager = nil
    }

    // MARK: Trace

    /// LE Set Advertising Parameters / Data / Scan Response Data / Enable (Core v5.4 Vol 4 Part
    /// E 7.8.5, 7.8.7, 7.8.8, 7.8.9), as the local host sends them.
    func traceAdvertising(_ layout: CBAdvertisingLayout) {
        let now = world.now
        func command(_ opcode: UInt16, _ parameters: [UInt8]) {
            world.trace.command(HCIPacketBuilder.command(opcode, parameters), at: now)
            world.trace.event(HCIPacketBuilder.commandComplete(opcode, [0]), at: now)
        }
        // 0x00A0 (100 ms) both ends, ADV_IND, public address, all channels, no filter.
        command(0x2006, [0xA0, 0x00, 0xA0, 0x00, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0x07, 0x00])
        func padded(_ d: [UInt8]) -> [UInt8] { [UInt8(d.count)] + d + [UInt8](repeating: 0, count: max(0, 31 - d.count)) }
        command(0x2008, padded(layout.advertisingData))
        command(0x2009, padded(layout.scanResponse))
        command(0x200A, [0x01])
    }

    func traceAdvertisingDisabled() {
        world.trace.command(HCIPacketBuilder.command(0x200A, [0x00]), at: world.now)
        world.trace.event(HCIPacketBuilder.commandComplete(0x200A, [0]), at: world.now)
    }
}
