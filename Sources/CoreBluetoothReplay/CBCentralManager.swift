import BLECore
import BLEReplay
import Dispatch
import Foundation

/// `CBManager`.
open class CBManager: NSObject {
    public internal(set) var state: CBManagerState = .unknown
    /// `CBManager.authorization` (iOS 13.1): the current replay's `authorization` (on the thread
    /// running it, or inside `activate`); `.allowedAlways` outside a replay.
    open class var authorization: CBManagerAuthorization { CBReplay.current?.authorization ?? .allowedAlways }
    @available(*, deprecated, message: "use the class property CBManager.authorization (iOS 13.1)")
    public var authorization: CBManagerAuthorization { CBReplay.current?.authorization ?? .allowedAlways }
}

/// `CBCentralManager`, bound to the `CBReplay` current on the calling thread when it is created
/// (`CBReplay.activate`). The `queue` is accepted; in the deterministic mode every callback runs
/// on the thread that drives the simulation, in virtual-time order.
open class CBCentralManager: CBManager {
    public weak var delegate: (any CBCentralManagerDelegate)?
    public internal(set) var isScanning = false
    public let queue: DispatchQueue?
    public let restoreIdentifier: String?
    /// The replay this manager lives in: the one current when it was created, or, for one created
    /// outside any (a lazy singleton), the next one activated on that thread or `CBReplay.adopt`.
    /// Until then it is `.unknown` and calls nothing (CBReplay+RuntimeChecks.swift).
    public internal(set) var replay: CBReplay?
    var scanServices: [CBUUID]?
    var scanOptions: [String: Any]?
    var detached = false

    public convenience override init() {
        self.init(delegate: nil, queue: nil, options: nil)
    }

    public convenience init(delegate: (any CBCentralManagerDelegate)?, queue: DispatchQueue?) {
        self.init(delegate: delegate, queue: queue, options: nil)
    }

    public init(delegate: (any CBCentralManagerDelegate)?, queue: DispatchQueue?, options: [String: Any]? = nil) {
        self.delegate = delegate
        self.queue = queue
        restoreIdentifier = options?[CBCentralManagerOptionRestoreIdentifierKey] as? String
        replay = CBReplay.current
        super.init()
        if let replay {
            replay.attach(self)
        } else {
            CBReplay.park(self)
        }
    }

    open class func supports(_ features: CBCentralManager.Feature) -> Bool { features.isEmpty }

    /// Scans; with `serviceUUIDs` only peripherals advertising one of them are reported, and
    /// only once each unless `CBCentralManagerScanOptionAllowDuplicatesKey` is true. With
    /// `CBCentralManagerScanOptionSolicitedServiceUUIDsKey` (Apple: "causes the central manager to
    /// also scan for peripherals soliciting any of the services contained in the array"), the
    /// peripherals soliciting one of those are reported too (CBReplay+Host.swift `scanMatches`).
    /// As on iOS, iBeacon advertising is withheld: a pure iBeacon is never reported, any other
    /// device without its iBeacon structure (`CBScanAdvertisement`).
    open func scanForPeripherals(withServices serviceUUIDs: [CBUUID]?, options: [String: Any]? = nil) {
        let api = "scanForPeripherals(withServices:options:)"
        guard let replay, !detached, replay.admits(api), replay.isPoweredOn(self, api) else { return }
        scanServices = serviceUUIDs
        scanOptions = options
        isScanning = true
        let duplicates = Self.flag(options?[CBCentralManagerScanOptionAllowDuplicatesKey])
        // Soliciting is not a service the host's filter knows: it reports every advertiser, and
        // the manager keeps those advertising a service or soliciting one.
        let hostFilter = scanSolicited.isEmpty ? serviceUUIDs : nil
        replay.world.host.startScan(services: hostFilter?.map(\.bluetoothUUID), allowDuplicates: duplicates)
    }

    /// The services the current scan also looks for in solicitations (empty without the option,
    /// or when the scan has no service filter: then every advertiser is reported anyway).
    var scanSolicited: [CBUUID] {
        guard let services = scanServices, !services.isEmpty,
              let solicited = scanOptions?[CBCentralManagerScanOptionSolicitedServiceUUIDsKey] as? [CBUUID] else { return [] }
        return solicited
    }

    open func stopScan() {
        guard let replay, isScanning, replay.admits("stopScan()") else { return }
        isScanning = false
        replay.world.host.stopScan()
    }

    /// Connects when the peripheral next advertises; never times out by itself (as on iOS).
    /// Called while the peripheral is `.disconnecting` (after `cancelPeripheralConnection`), the
    /// request is kept: the delegate hears `didDisconnectPeripheral` for the cancelled link, then
    /// the connection is made as for a `connect` called then (Docs/replay.md "connect while
    /// disconnecting"). Apple: a connection request "does not time out" and is cancelled only by
    /// `cancelPeripheralConnection`, which names no state in which `connect` is ignored; no public
    /// report shows iOS dropping it. Not checked on a device.
    /// A `cancelPeripheralConnection` before the disconnection completes withdraws it.
    /// With `CBConnectPeripheralOptionEnableAutoReconnect` (iOS 17) the system connects again
    /// by itself when the link drops (CBReplay+AutoReconnect.swift).
    /// A peripheral the system already has a link to (one from `retrieveConnectedPeripherals`,
    /// or kept across `CBReplay.relaunch`) gives `didConnect` at once, as iOS does for a link
    /// another app or an earlier launch opened.
    open func connect(_ peripheral: CBPeripheral, options: [String: Any]? = nil) {
        guard let replay, !detached, replay.admits("connect(_:options:)"), replay.isPoweredOn(self, "connect(_:options:)") else { return }
        if peripheral.state == .connected, let link = peripheral.link, link.isUp {
            replay.world.scheduler.schedule(after: 0) { [self] in
                // Not after a `cancelPeripheralConnection` made meanwhile (CBReplay+Host.swift `didConnect`).
                guard peripheral.link === link, peripheral.state == .connected, !detached else { return }
                replay.callApp(self) { delegate?.centralManager(self, didConnect: peripheral) }
            }
            return
        }
        if peripheral.state == .disconnecting {
            // Held until the disconnection completes (CBReplay+Host.swift `didDisconnect`).
            peripheral.connectAfterDisconnect = .some(options)
            return
        }
        guard peripheral.state == .disconnected else { return }
        startConnecting(peripheral, options: options)
    }

    /// A connection request to the host, pending until the peripheral next advertises.
    /// With `CBConnectPeripheralOptionStartDelayKey` (Apple: "a delay before the system makes a
    /// connection", an NSNumber of seconds) the request reaches the host only after that much
    /// virtual time; the peripheral is `.connecting` meanwhile, and `cancelPeripheralConnection`
    /// withdraws it with nothing sent.
    func startConnecting(_ peripheral: CBPeripheral, options: [String: Any]?) {
        guard let replay else { return }
        replay.setAutoReconnect(Self.flag(options?[CBConnectPeripheralOptionEnableAutoReconnect]), for: peripheral)
        peripheral.state = .connecting
        replay.world.scheduler.cancel(peripheral.delayedConnect)
        peripheral.delayedConnect = nil
        let delay = Self.seconds(options?[CBConnectPeripheralOptionStartDelayKey])
        guard delay > 0 else {
            replay.noteConnect(to: peripheral.simulated)
            replay.world.host.connect(peripheral.simulated)
            return
        }
        peripheral.delayedConnect = replay.world.scheduler.schedule(after: Int64((delay * 1_000_000).rounded())) { [self] in
            peripheral.delayedConnect = nil
            guard replay.activeManager === self, peripheral.state == .connecting, peripheral.link == nil,
                  replay.state == .poweredOn else { return }
            replay.noteConnect(to: peripheral.simulated)
            replay.world.host.connect(peripheral.simulated)
        }
    }

    /// A number of seconds as CoreBluetooth reads an option (an NSNumber, or a Swift number
    /// bridged to one); 0 when absent or not a number.
    static func seconds(_ value: Any?) -> Double {
        if let n = value as? NSNumber { return max(0, n.doubleValue) }
        if let d = value as? Double { return max(0, d) }
        if let i = value as? Int { return max(0, Double(i)) }
        return 0
    }

    /// Cancels a pending connection or disconnects; the delegate hears
    /// `didDisconnectPeripheral` with no error. Like every command, dropped with an "API MISUSE"
    /// diagnostic while the manager is not `.poweredOn` (CBReplay+APIMisuse.swift).
    open func cancelPeripheralConnection(_ peripheral: CBPeripheral) {
        guard let replay, !detached, replay.admits("cancelPeripheralConnection(_:)"),
              replay.isPoweredOn(self, "cancelPeripheralConnection(_:)") else { return }
        switch peripheral.state {
        case .connecting where peripheral.link == nil:
            peripheral.state = .disconnected
            replay.world.scheduler.cancel(peripheral.delayedConnect)   // a start delay not yet over
            peripheral.delayedConnect = nil
            replay.world.host.cancelConnect(peripheral.simulated)
            replay.world.scheduler.schedule(after: 0) { [self] in
                replay.callApp(self) {
                    delegate?.centralManager(self, didDisconnectPeripheral: peripheral, timestamp: replay.clock.absoluteTime,
                                             isReconnecting: false, error: nil)
                }
            }
        case .disconnecting:
            peripheral.connectAfterDisconnect = nil
        case .connected, .connecting:
            peripheral.state = .disconnecting
            if let link = peripheral.link { replay.world.host.disconnect(link, reason: 0x13) }
        default:
            break
        }
    }

    /// A Boolean option as CoreBluetooth reads it (an NSNumber, or a Swift Bool bridged to one).
    static func flag(_ value: Any?) -> Bool {
        (value as? Bool) ?? (value as? NSNumber)?.boolValue ?? false
    }

    /// Peripherals known to the system by identifier: every recorded peripheral, except a pure
    /// iBeacon, which iOS never shows CoreBluetooth (`CBScanAdvertisement`): an app never had a
    /// `CBPeripheral` for it, so it cannot retrieve (or connect to) one.
    open func retrievePeripherals(withIdentifiers identifiers: [UUID]) -> [CBPeripheral] {
        guard let replay else { return [] }
        return identifiers.compactMap { id in
            replay.world.peripherals.first { CBReplay.identifier(for: $0.model) == id }
                .flatMap { CBScanAdvertisement($0.model.advertising).isWithheld ? nil : replay.object(for: $0) }
        }
    }

    /// Peripherals connected now whose (recorded) GATT database has one of `serviceUUIDs`.
    open func retrieveConnectedPeripherals(withServices serviceUUIDs: [CBUUID]) -> [CBPeripheral] {
        guard let replay else { return [] }
        let wanted = Set(serviceUUIDs.map(\.bluetoothUUID))
        return replay.world.host.links.map(\.peripheral)
            .filter { p in p.model.gatt.services.contains { wanted.contains($0.uuid) } || p.model.advertising.serviceUUIDs.contains(where: wanted.contains) }
            .map { replay.object(for: $0) }
    }

    /// Accepted; the replay reports no connection events (Docs/replay.md "Not modelled").
    open func registerForConnectionEvents(options: [CBConnectionEventMatchingOption: Any]? = nil) {}
}
