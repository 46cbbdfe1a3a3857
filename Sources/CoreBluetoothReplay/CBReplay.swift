import BLECore
import BLEDecode
import BLEReplay
import Foundation

/// A recorded capture brought to life for CoreBluetooth-style code (Docs/replay.md
/// "CoreBluetoothReplay"): the capture's peripherals, a simulated central host, and the
/// virtual clock the app's callbacks and timers run on.
///
/// ```swift
/// let replay = try CBReplay(capture: "Captures/heart-rate-supervision-timeout.btsnoop")
/// let app = replay.activate { HeartRateCentral(timers: replay.clock) }   // creates its CBCentralManager
/// replay.run(for: 120)                                                    // 120 s of virtual time
/// ```
///
/// `CBCentralManager(delegate:queue:options:)` binds to the replay that is current on the calling
/// thread (`activate`), so app code creates its manager exactly as on iOS.
public final class CBReplay: CentralHostObserver {
    public let world: ReplayWorld
    public private(set) var clock: CBReplayClock!
    public let session: RecordedSession
    /// The simulated Bluetooth radio as the app sees it.
    public private(set) var state: CBManagerState = .poweredOn
    /// The active manager (the latest one created and not detached by `relaunch`).
    public internal(set) weak var manager: CBCentralManager?
    var objects: [ObjectIdentifier: CBPeripheral] = [:]
    var restorable: [String: Restoration] = [:]
    /// The peripherals the system reconnects by itself (CBReplay+AutoReconnect.swift): the
    /// system's, so kept across `relaunch`.
    var autoReconnecting: Set<ObjectIdentifier> = []
    var poweringOff = false
    /// `DispatchTime.now()` (uptime ns) noted when the app's code for the current event began
    /// (CBReplay+DispatchReference.swift).
    var dispatchReference: UInt64?
    /// Marks the queue app code is running on (CBReplay+Queue.swift).
    let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    /// What the app's developer should know about the capture: one note per device the capture
    /// saw only as a remote central (the local device was the peripheral on every recorded
    /// connection to it), which the app can only meet as a peripheral with no GATT database.
    public let notes: [String]
    /// Peer keys the notes are about, and those already printed (once each, on `connect`).
    let remoteCentrals: Set<String>
    var printedNotes: Set<String> = []
    /// Print a note on standard error when the app connects to such a device (default true).
    public var printsNotes = true
    /// The app's CBPeripheralManager side, made when it creates one (CBReplay+PeripheralRole.swift).
    var peripheralRole: CBPeripheralRole?

    // MARK: Runtime checks (CBReplay+RuntimeChecks.swift, StallWatch.swift)
    /// Wall-clock seconds an event's app code may block the replay's thread before the process is
    /// stopped with the reason (0: never); see StallWatch.
    public var stallTimeout: TimeInterval = 30
    let diagnosticLog = DiagnosticLog()
    let stallWatch = StallWatch()
    /// Delegate types and methods already looked at by `noteDefaultCalled`.
    var checkedDefaults: Set<String> = []

    struct Restoration {
        var peripherals: [SimulatedPeripheral]
        var scanServices: [CBUUID]?
        var scanOptions: [String: Any]?
    }

    /// Loads a capture (or timeline) and builds its peripherals. Requests the recording never saw
    /// are answered from the reconstructed GATT database unless `configuration` says otherwise.
    public convenience init(capture path: String, configuration: ReplayConfiguration? = nil) throws {
        let loaded = try ReplaySource.load(path: path)
        guard let session = loaded.sessions.first else { throw RecordingLoader.Failure(message: "\(path): no capture in it") }
        self.init(session: session, configuration: configuration)
    }

    public init(session: RecordedSession, configuration: ReplayConfiguration? = nil) {
        var c = configuration ?? ReplayConfiguration()
        c.epoch = session.start
        c.keepTrace = true   // for writeCapture(to:)
        self.session = session
        world = ReplayWorld(peripherals: ModelBuilder.build(session).peripherals, configuration: c)
        remoteCentrals = LocalPeripheralRole.remoteCentrals(session)
        notes = remoteCentrals.sorted().compactMap { LocalPeripheralRole.note(session, key: $0) }
        clock = CBReplayClock(replay: self)
        world.host.observer = self
        world.scheduler.willRunEvent = { [unowned self] in
            markDispatchReference()
            stallWatch.tick(at: world.now)
        }
    }

    // MARK: Binding

    static let threadKey = "CoreBluetoothReplay.CBReplay.current"

    /// The replay `CBCentralManager` binds to when created on this thread.
    public static var current: CBReplay? { Thread.current.threadDictionary[threadKey] as? CBReplay }

    /// Runs `body` with this replay current on this thread (create the app's managers inside).
    public func activate<T>(_ body: () throws -> T) rethrows -> T {
        let previous = Thread.current.threadDictionary[Self.threadKey]
        Thread.current.threadDictionary[Self.threadKey] = self
        defer { Thread.current.threadDictionary[Self.threadKey] = previous }
        adoptParked()
        markDispatchReference()
        return try body()
    }

    // MARK: Running

    /// Runs `seconds` of virtual time (deterministic: no wall clock is read).
    public func run(for seconds: TimeInterval) {
        run(until: clock.now + seconds)
    }

    /// Runs until the virtual clock reads `seconds`.
    /// The replay is current on this thread while it runs, so the app's
    /// `DispatchQueue.asyncAfter(deadline:execute:)` and `async(execute:)` calls made from its
    /// callbacks go onto the virtual clock (DispatchQueue+VirtualClock.swift).
    public func run(until seconds: TimeInterval) {
        stallWatch.begin(timeout: stallTimeout)
        defer {
            stallWatch.end()
            noteRunLoopTimers()
        }
        activate { world.run(until: Int64((seconds * 1_000_000).rounded())) }
    }

    /// Wall-clock mode, for code that schedules with DispatchQueue timers: virtual time follows
    /// the wall clock (times `speed`) and the current thread's run loop runs between events, so
    /// main-queue timers fire when run on the main thread. NOT deterministic (Docs/replay.md).
    public func runWallClock(for seconds: TimeInterval, speed: Double = 1) {
        let start = ContinuousClock.now
        let v0 = world.now
        let end = v0 + Int64((seconds * 1_000_000).rounded())
        while world.now < end {
            let (s, atto) = (ContinuousClock.now - start).components
            let elapsed = Double(s) + Double(atto) / 1e18
            let target = min(end, v0 + Int64(elapsed * speed * 1_000_000))
            activate { world.run(until: target) }
            if target >= end { break }
            RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.001))
            Thread.sleep(forTimeInterval: 0.0005)
        }
    }

    /// Writes what happened as btsnoop (H4) for Wireshark or btmon.
    public func writeCapture(to path: String) throws {
        try world.trace.writeBtsnoop(to: path)
    }

    /// Called when the app connects: a device the capture saw only as a remote central gets its
    /// note printed on standard error, once.
    func noteConnect(to peripheral: SimulatedPeripheral) {
        let key = peripheral.model.key
        guard remoteCentrals.contains(key), printedNotes.insert(key).inserted, printsNotes,
              let note = LocalPeripheralRole.note(session, key: key) else { return }
        StandardStreams.error("CoreBluetoothReplay note: \(note)")
    }

    /// The simulated peripheral with this address (or name), for tests that steer it.
    public func peripheral(_ addressOrName: String) -> SimulatedPeripheral? {
        world.peripheral(addressOrName) ?? world.peripherals.first { $0.model.name == addressOrName }
    }

    // MARK: State a test can change

    /// What `CBManager.authorization` reports. Unless a test sets it, it follows the radio state
    /// as on iOS: `.denied` while the state is `.unauthorized`, else `.allowedAlways`.
    public var authorization: CBManagerAuthorization {
        get { authorizationOverride ?? (state == .unauthorized ? .denied : .allowedAlways) }
        set { authorizationOverride = newValue }
    }
    var authorizationOverride: CBManagerAuthorization?

    /// Changes the radio state (poweredOn, poweredOff, unauthorized, ...); the manager hears
    /// `centralManagerDidUpdateState` at the current virtual time. Leaving poweredOn drops every
    /// link and pending connection without per-peripheral callbacks, as iOS does.
    public func setState(_ newState: CBManagerState) {
        world.scheduler.schedule(after: 0) { [self] in
            guard newState != state else { return }
            if state == .poweredOn {
                poweringOff = true
                world.host.resetController()
                poweringOff = false
                for p in objects.values {
                    p.state = .disconnected
                    p.link = nil
                    p.gatt = nil
                    p.invalidateAttributes()
                }
                manager?.isScanning = false
            }
            state = newState
            peripheralRoleStateChanged(to: newState)   // CBReplay+PeripheralRole.swift
            if let m = manager, !m.detached {
                m.state = newState
                callApp(m) { m.delegate?.centralManagerDidUpdateState(m) }
            }
        }
    }

    /// Simulates the system terminating the app and relaunching it: the managers stop hearing
    /// anything, but the system keeps their connections, pending connections and scan. A manager
    /// created next with the same restore identifier hears `centralManager(_:willRestoreState:)`
    /// (new CBPeripheral objects for those peripherals) before `centralManagerDidUpdateState`.
    public func relaunch() {
        if let m = manager, let id = m.restoreIdentifier {
            let mine = world.host.links.map(\.peripheral) + world.host.pendingConnections
            restorable[id] = Restoration(peripherals: mine, scanServices: m.isScanning ? m.scanServices : nil,
                                         scanOptions: m.isScanning ? m.scanOptions : nil)
        }
        manager?.detached = true
        manager = nil
        objects = [:]
        relaunchPeripheralRole()   // CBReplay+PeripheralRole.swift
    }

    // MARK: Internals

    /// Makes `m` the active manager. The replay runs one `CBCentralManager` at a time (iOS runs
    /// several side by side): an earlier one still active stops hearing, and `diagnostics` and
    /// standard error say so (`.secondCentralManager`) rather than leaving it silent.
    func attach(_ m: CBCentralManager) {
        if let old = manager, old !== m, !old.detached {
            let message = "a second CBCentralManager was created while one was active: the replay runs one central manager " +
                "at a time, so the earlier one (delegate \(old.delegate.map { String(describing: type(of: $0)) } ?? "nil")) " +
                "hears nothing more; on iOS both would work side by side (Docs/replay.md \"Known limits\")"
            diagnose(.secondCentralManager, key: "\(ObjectIdentifier(m).hashValue)", message)
            StandardStreams.error("CoreBluetoothReplay: \(message)")
        }
        manager?.detached = true
        manager = m
        world.scheduler.schedule(after: 0) { [self] in
            guard manager === m, !m.detached else { return }
            if let id = m.restoreIdentifier, let r = restorable.removeValue(forKey: id) {
                var dict: [String: Any] = [:]
                let restored = r.peripherals.map { object(for: $0) }
                if !restored.isEmpty { dict[CBCentralManagerRestoredStatePeripheralsKey] = restored }
                if let s = r.scanServices {
                    dict[CBCentralManagerRestoredStateScanServicesKey] = s
                    m.isScanning = true
                    m.scanServices = s
                    m.scanOptions = r.scanOptions   // the solicited services go on being looked for
                }
                if let o = r.scanOptions { dict[CBCentralManagerRestoredStateScanOptionsKey] = o }
                callApp(m) { m.delegate?.centralManager(m, willRestoreState: dict) }
            }
            m.state = state
            callApp(m) { m.delegate?.centralManagerDidUpdateState(m) }
        }
    }

    /// The CBPeripheral for a simulated peripheral (one object per peripheral until `relaunch`).
    func object(for p: SimulatedPeripheral) -> CBPeripheral {
        if let o = objects[ObjectIdentifier(p)] { return o }
        let o = CBPeripheral(replay: self, simulated: p)
        if let link = world.host.links.first(where: { $0.peripheral === p }) {
            o.link = link
            o.gatt = GATTClient(host: world.host, link: link)
            o.gatt?.pairsWhenRequired = true
            o.state = .connected
        } else if world.host.pendingConnections.contains(where: { $0 === p }) {
            o.state = .connecting
        }
        objects[ObjectIdentifier(p)] = o
        return o
    }

    func mappedError(for reason: HCIStatusCode, cancelledByApp: Bool) -> CBError.Code? {
        world.configuration.disconnectMapping.cbError(for: reason, cancelledByApp: cancelledByApp)
            .map { CBError.Code(rawValue: $0) ?? .unknown }
    }

    /// A stable identifier per peripheral: the address in the last 6 bytes of a version-4-shaped UUID.
    public static func identifier(for model: PeripheralModel) -> UUID {
        var b = model.address?.address.array ?? []
        if b.isEmpty {
            let n = UInt64(model.key.filter(\.isNumber)) ?? 0
            b = (0..<6).map { UInt8(truncatingIfNeeded: n >> (8 * (5 - $0))) }
        }
        return UUID(uuid: (0, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, b[0], b[1], b[2], b[3], b[4], b[5]))
    }

    var activeManager: CBCentralManager? {
        guard let m = manager, !m.detached else { return nil }
        return m
    }
}
