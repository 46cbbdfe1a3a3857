import BLECore
import BLEReplay
import Dispatch
import Foundation

/// `CBPeripheralManager`: the app's own GATT server and advertising, bound to the `CBReplay`
/// current on the calling thread when it is created (`CBReplay.activate`), like CBCentralManager.
/// The replay's recorded remote centrals (the capture's connections on which the local device
/// was the peripheral) connect to it at their recorded instants while it advertises, and their
/// requests arrive as delegate calls on the virtual clock (Docs/peripheral.md).
///
/// One app may hold a central manager and a peripheral manager at once.
open class CBPeripheralManager: CBManager {
    public weak var delegate: (any CBPeripheralManagerDelegate)?
    public internal(set) var isAdvertising = false
    public let queue: DispatchQueue?
    public let restoreIdentifier: String?
    /// The replay this manager lives in: the one current when it was created, or, for one created
    /// outside any (a lazy singleton), the next one activated on that thread or `CBReplay.adopt`.
    /// Until then it is `.unknown` and calls nothing, as a CBCentralManager (CBReplay+RuntimeChecks.swift).
    public internal(set) var replay: CBReplay?
    var detached = false
    /// Published services, in the order added (their handles follow it).
    var services: [CBMutableService] = []
    var database = CBLocalDatabase()
    var advertisementData: [String: Any]?
    /// Per link to a remote central: its server and state (CBPeripheralManager+Server.swift).
    var links: [ObjectIdentifier: CBPeripheralLinkState] = [:]
    /// One CBCentral per remote device (its identifier stays across connections).
    var centralObjects: [String: CBCentral] = [:]
    /// An updateValue found the transmit queue full: peripheralManagerIsReady follows.
    var owesReady = false

    public convenience override init() {
        self.init(delegate: nil, queue: nil, options: nil)
    }

    public convenience init(delegate: (any CBPeripheralManagerDelegate)?, queue: DispatchQueue?) {
        self.init(delegate: delegate, queue: queue, options: nil)
    }

    public init(delegate: (any CBPeripheralManagerDelegate)?, queue: DispatchQueue?, options: [String: Any]? = nil) {
        self.delegate = delegate
        self.queue = queue
        restoreIdentifier = options?[CBPeripheralManagerOptionRestoreIdentifierKey] as? String
        replay = CBReplay.current
        super.init()
        if let replay {
            replay.attach(self)
        } else {
            CBReplay.park(self)
        }
    }

    @available(*, deprecated, message: "use CBManager.authorization (iOS 13)")
    open class func authorizationStatus() -> CBPeripheralManagerAuthorizationStatus {
        switch CBManager.authorization {
        case .notDetermined: .notDetermined
        case .restricted: .restricted
        case .denied: .denied
        case .allowedAlways: .authorized
        }
    }

    // MARK: Advertising

    /// Advertises the local name and service UUIDs, the only two keys iOS takes ("supports two
    /// of the keys", Apple's `startAdvertising(_:)`); any other key (manufacturer data, Tx power
    /// level, service data, …) is left out, as iOS logs and leaves it out, and noted in
    /// `CBReplay.diagnostics`. What does not fit the 31-byte legacy advertising PDU goes as
    /// CBAdvertisingLayout says (Docs/peripheral.md "Advertising"). While the manager is not
    /// `.poweredOn` the call is dropped with an "API MISUSE" diagnostic, no callback.
    open func startAdvertising(_ advertisementData: [String: Any]?) {
        guard let replay, !detached, replay.admits("startAdvertising(_:)"), replay.isPoweredOn(self, "startAdvertising(_:)") else { return }
        var data = advertisementData ?? [:]
        let unsupported = data.keys.filter { $0 != CBAdvertisementDataLocalNameKey && $0 != CBAdvertisementDataServiceUUIDsKey }.sorted()
        if !unsupported.isEmpty {
            for key in unsupported { data[key] = nil }
            replay.noteIgnored(key: "startAdvertising \(unsupported)",
                               "startAdvertising(_:) left out \(unsupported.joined(separator: ", ")): iOS advertises only " +
                               "\(CBAdvertisementDataLocalNameKey) and \(CBAdvertisementDataServiceUUIDsKey), logs the other keys " +
                               "and advertises without them")
        }
        replay.world.scheduler.schedule(after: 0) { [self] in
            guard !detached, state == .poweredOn else { return }
            let error: (any Error)? = isAdvertising ? CBError(.alreadyAdvertising) : nil
            if error == nil {
                let layout = CBAdvertisingLayout(data)
                replay.traceAdvertising(layout)
                self.advertisementData = data
                isAdvertising = true
                replay.peripheralRoleAdvertisingStarted()
            }
            replay.callApp(self) { delegate?.peripheralManagerDidStartAdvertising(self, error: error) }
        }
    }

    open func stopAdvertising() {
        guard let replay, isAdvertising, replay.admits("stopAdvertising()") else { return }
        isAdvertising = false
        advertisementData = nil
        replay.traceAdvertisingDisabled()
    }

    /// Asks the connected `central` for the class's connection interval (`.low` 15 ms, `.medium`
    /// 30 ms, `.high` 120 ms: the replay's assumption, Apple publishes none), as iOS asks with an
    /// L2CAP Connection Parameter Update Request (Core v5.4 Vol 3 Part A 4.20). The central
    /// answers at its connection event after the request's, and an accepted update moves the link
    /// 6 connection events later (Vol 6 Part B 5.1.1); from then its notifications and
    /// `peripheralManagerIsReady(toUpdateSubscribers:)` follow the new interval. A recorded central
    /// whose recording shows it refusing an update refuses; its recorded updates keep their times
    /// (CBPeripheralManager+ConnectionLatency.swift, Docs/peripheral.md "Connection latency"). For
    /// a central that is not connected nothing is sent and the call is noted as an "API MISUSE"
    /// diagnostic, as iOS logs one; likewise while the manager is not `.poweredOn`.
    open func setDesiredConnectionLatency(_ latency: CBPeripheralManagerConnectionLatency, for central: CBCentral) {
        let api = "setDesiredConnectionLatency(_:for:)"
        guard let replay, !detached, replay.admits(api), replay.isPoweredOn(self, api) else { return }
        guard let state = linksInHandleOrder.first(where: { $0.central === central && $0.server.link?.isUp == true }) else {
            replay.diagnose(.apiMisuse, key: "\(api) not connected",
                            "API MISUSE: \(api) was called for \(central), which is not connected to the local device: " +
                            "the call was dropped (nothing was sent), as iOS drops it with an API misuse in its log")
            return
        }
        state.requestConnectionLatency(latency)
    }

    // MARK: Services

    /// Publishes a service; `peripheralManager(_:didAdd:error:)` follows. A service the system
    /// keeps for itself (Generic Access, Generic Attribute, ANCS) is not published: `didAdd` comes
    /// with CBError `.uuidNotAllowed`. What iOS refuses with
    /// an NSInternalInconsistencyException (a cached value that is not read-only, a service or a
    /// characteristic added twice, an included service not yet published) traps here
    /// (CBPeripheralManager+Publishing.swift). While the manager is not `.poweredOn` the call is
    /// dropped with an "API MISUSE" diagnostic, no callback. Connected centrals that configured
    /// Service Changed for indications get one naming the new service's handles (Core v5.4 Vol 3
    /// Part G 7.1). A characteristic with `.broadcast` or `.extendedProperties`, which Apple does
    /// not allow on a local characteristic, is declared without them and noted
    /// (`CBLocalDatabase.notDeclaredLocally`).
    open func add(_ service: CBMutableService) {
        guard let replay, !detached, replay.admits("add(_:)"), replay.isPoweredOn(self, "add(_:)") else { return }
        checkPublishable(service)
        if Self.isReserved(service) {
            // The system's own service (CBPeripheralManager+Publishing.swift): not published.
            replay.world.scheduler.schedule(after: 0) { [self] in
                guard !detached else { return }
                replay.callApp(self) { delegate?.peripheralManager(self, didAdd: service, error: CBError(.uuidNotAllowed)) }
            }
            return
        }
        noteLocallyDisallowedProperties(service, replay)
        services.append(service)
        database.add(service)
        if let range = database.ranges[ObjectIdentifier(service)] {
            for state in linksInHandleOrder { state.servicesChanged(range) }
        }
        replay.world.scheduler.schedule(after: 0) { [self] in
            guard !detached else { return }
            replay.callApp(self) { delegate?.peripheralManager(self, didAdd: service, error: nil) }
        }
    }

    /// Unpublishes a service. The other services keep their handles (CBLocalDatabase), and every
    /// central's subscription to one of its characteristics ends with it: `subscribedCentrals`
    /// empties and `updateValue` for it sends nothing (no `didUnsubscribeFrom`: the central did
    /// not unsubscribe). Connected centrals that configured Service Changed for indications get
    /// one naming the handles the service held (Core v5.4 Vol 3 Part G 7.1). While the manager is
    /// not `.poweredOn` the call is dropped with an "API MISUSE" diagnostic, as `add(_:)` is.
    open func remove(_ service: CBMutableService) {
        guard let replay, !detached, replay.admits("remove(_:)"), replay.isPoweredOn(self, "remove(_:)") else { return }
        unpublish(services.filter { $0 === service })
    }

    /// Unpublishes every service the app added (the system's stay), as `remove(_:)` each.
    open func removeAllServices() {
        guard let replay, !detached, replay.admits("removeAllServices()"), replay.isPoweredOn(self, "removeAllServices()") else { return }
        unpublish(services)
    }

    /// Unpublishes `gone`; connected centrals that configured Service Changed for indications
    /// get one naming the handles the services held (Core v5.4 Vol 3 Part G 7.1).
    func unpublish(_ gone: [CBMutableService]) {
        guard !gone.isEmpty else { return }
        let affected = gone.compactMap { database.ranges[ObjectIdentifier($0)] }
        for state in links.values { state.servicesRemoved(gone) }
        services.removeAll { s in gone.contains { $0 === s } }
        database.remove(gone)
        if let low = affected.map(\.lowerBound).min(), let high = affected.map(\.upperBound).max() {
            for state in linksInHandleOrder { state.servicesChanged(low...high) }
        }
    }

    /// Notes each characteristic of `service` declared with properties Apple does not allow on a
    /// local one (`CBLocalDatabase.notDeclaredLocally`), which the replay leaves out.
    func noteLocallyDisallowedProperties(_ service: CBMutableService, _ replay: CBReplay) {
        for c in service.characteristics ?? [] where !c.properties.isDisjoint(with: CBLocalDatabase.notDeclaredLocally) {
            let names = [(CBCharacteristicProperties.broadcast, "broadcast"), (.extendedProperties, "extendedProperties")]
                .filter { c.properties.contains($0.0) }.map { "." + $0.1 }.joined(separator: " and ")
            replay.diagnose(.notAllowedLocally, key: "\(ObjectIdentifier(c).hashValue)",
                            "characteristic \(c.uuid.uuidString) of service \(service.uuid.uuidString) was published with \(names): " +
                            "Apple: \"you can't use the broadcast and extendedProperties characteristic properties when creating a mutable " +
                            "characteristic\" (CBMutableCharacteristic.properties); the replay declares it without them " +
                            "(the system publishes no descriptor for them) — what iOS does with them was not established")
        }
    }

    /// The links to remote centrals in connection-handle order (a Dictionary has no order).
    var linksInHandleOrder: [CBPeripheralLinkState] {
        links.values.sorted { $0.server.link?.handle ?? 0 < $1.server.link?.handle ?? 0 }
    }

    // MARK: Answers and updates

    /// Answers a read, or the first of the writes `didReceiveWrite` delivered together. A call
    /// for a request that awaits no answer from it (answered already, not the first of its
    /// array) is ignored and noted in `CBReplay.diagnostics` (`.respondMisuse`); one for a write
    /// without response (many apps answer every didReceiveWrite) or for a request whose link
    /// has ended is ignored.
    open func respond(to request: CBATTRequest, withResult result: CBATTError.Code) {
        guard let replay, !detached, replay.admits("respond(to:withResult:)") else { return }
        for state in links.values where state.answer(request, result: result) { return }
        let uuid = request.characteristic.uuid.uuidString
        let why: String? = if request.answered {
            "a second time for the same \(uuid) request: the first answer went out; call it exactly once per request"
        } else if links.values.contains(where: { $0.pendingWrite?.requests.dropFirst().contains { $0 === request } == true }) {
            "with a request other than the first of the didReceiveWrite array (\(uuid) at offset \(request.offset)): " +
                "Apple: \"To respond properly, pass in the first request of the requests array\"; the write stays unanswered"
        } else {
            nil
        }
        if let why {
            replay.diagnose(.respondMisuse, key: why,
                            "respond(to:withResult:) was called \(why); the call was ignored")
        }
    }

    /// Sends a notification (or an indication, when the central subscribed for those) to the
    /// subscribed centrals (`nil`: all of them). False when the transmit queue is full: nothing
    /// is sent, and `peripheralManagerIsReady(toUpdateSubscribers:)` follows when there is room.
    /// An indication awaiting its confirmation fills a central's queue (one at a time, Core v5.4
    /// Vol 3 Part F 3.4.7.2); one unconfirmed for 30 s closes it for good and ends the link
    /// (3.3.3; CBPeripheralLinkState.indicationTimedOut).
    /// A value longer than a central's `maximumUpdateValueLength` is cut to it. While the manager
    /// is not `.poweredOn` nothing is sent and the answer is false, with an "API MISUSE"
    /// diagnostic, as iOS refuses the command (an app's send loop keeps its values).
    open func updateValue(_ value: Data, for characteristic: CBMutableCharacteristic, onSubscribedCentrals centrals: [CBCentral]?) -> Bool {
        let api = "updateValue(_:for:onSubscribedCentrals:)"
        guard let replay, !detached, replay.admits(api), replay.isPoweredOn(self, api) else { return false }
        let targets = links.values.filter { s in
            s.subscriptions[ObjectIdentifier(characteristic)] != nil && (centrals?.contains { $0 === s.central } ?? true)
        }.sorted { $0.server.link?.handle ?? 0 < $1.server.link?.handle ?? 0 }
        guard !targets.isEmpty else { return true }
        guard targets.allSatisfy({ $0.canSendValue() }) else {
            owesReady = true
            return false
        }
        for s in targets { s.sendValue(Array(value), for: characteristic) }
        return true
    }

    open func publishL2CAPChannel(withEncryption encryptionRequired: Bool) {
        guard let replay, replay.admits("publishL2CAPChannel(withEncryption:)") else { return }
        replay.world.scheduler.schedule(after: 0) { [self] in
            replay.callApp(self) { delegate?.peripheralManager(self, didPublishL2CAPChannel: 0, error: CBError(.operationNotSupported)) }
        }
    }

    open func unpublishL2CAPChannel(_ PSM: CBL2CAPPSM) {}
}
