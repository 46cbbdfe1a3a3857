import BLECore
import BLEDecode

/// Runs a central script on the simulated host (Docs/replay.md "Central scripts"): one step at
/// a time, each finishing through a callback on the virtual clock; an unexpected disconnection
/// either restarts the script after the reconnect policy's backoff or ends it.
public final class ScriptRunner: CentralHostObserver {
    let world: ReplayWorld
    let script: CentralScript
    var host: CentralHost { world.host }

    struct Frame {
        var steps: [CentralScript.Labeled]
        var index: Int
        var remaining: Int
        var iteration: Int
    }
    var frames: [Frame] = []
    /// Bumped whenever the running step is abandoned, so late callbacks are ignored.
    var generation = 0
    var currentLabel = ""

    enum Wait {
        case none
        case scan(services: [BluetoothUUID], name: String?, address: String?)
        case connect
        case notifications(handle: UInt16, remaining: Int, value: [UInt8]?)
        case disconnect(CentralScript.DisconnectExpectation)
        case disconnecting
    }
    var wait = Wait.none
    var timer: Scheduler.EventID?

    var target: SimulatedPeripheral?
    var link: SimulatedLink?
    var gatt: GATTClient?
    var services: [GATTClient.Service] = []
    var characteristics: [(service: GATTClient.Service, characteristic: GATTClient.Characteristic)] = []
    var descriptors: [UInt16: [GATTClient.Descriptor]] = [:]

    public private(set) var checks: [ScriptCheck] = []
    public private(set) var events: [String] = []
    public private(set) var reconnectDelays: [Int64] = []
    public private(set) var finished = false
    var stopped = false
    var reconnects = 0

    /// Where the script runs: the local central host, or a remote central (`ScriptCentralSide`).
    var side: any ScriptCentralSide

    /// A script as the local central, on the simulated host.
    public init(world: ReplayWorld, script: CentralScript) {
        self.world = world
        self.script = script
        side = HostCentralSide(world: world)
        world.host.observer = self
    }

    /// A script on another side (the remote central facing an app's GATT server), which reports
    /// back through this runner's `CentralHostObserver` methods.
    public init(world: ReplayWorld, script: CentralScript, side: any ScriptCentralSide) {
        self.world = world
        self.script = script
        self.side = side
    }

    /// Starts at virtual time 0 (or now).
    public func start() {
        frames = [Frame(steps: script.steps, index: 0, remaining: 0, iteration: 1)]
        world.scheduler.schedule(after: 0) { [self] in advance() }
    }

    public var result: ScriptResult {
        ScriptResult(script: script.name, capture: "", checks: checks, events: events, finished: finished,
                     eventsRun: world.scheduler.eventsRun, simulatedSpan: world.now, reconnectDelays: reconnectDelays)
    }

    // MARK: Control flow

    func advance() {
        guard !stopped else { return }
        while let top = frames.last, top.index >= top.steps.count {
            if top.remaining > 1 {
                frames[frames.count - 1].index = 0
                frames[frames.count - 1].remaining -= 1
                frames[frames.count - 1].iteration += 1
            } else {
                frames.removeLast()
            }
        }
        guard let top = frames.last else {
            finished = true
            stop("script finished")
            return
        }
        let labeled = top.steps[top.index]
        frames[frames.count - 1].index += 1
        currentLabel = labeled.label + (frames.count > 1 && top.iteration > 1 ? " (iteration \(top.iteration))" : "")
            + (reconnects > 0 ? " (after reconnect \(reconnects))" : "")
        generation += 1
        run(labeled.step, generation: generation)
    }

    /// The running step finished; the next one starts in a new event (no deep recursion).
    func stepDone(_ g: Int) {
        guard g == generation, !stopped else { return }
        wait = .none
        world.scheduler.cancel(timer)
        timer = nil
        world.scheduler.schedule(after: 0) { [self] in advance() }
    }

    func check(_ passed: Bool, _ message: String) {
        checks.append(ScriptCheck(label: currentLabel, passed: passed, message: message, time: world.now))
    }

    func note(_ text: String) {
        events.append("\(TimeLabel.replay(world.now))  \(text)")
    }

    func stop(_ why: String) {
        guard !stopped else { return }
        stopped = true
        note(why)
        world.scheduler.cancel(timer)
        side.stopScan()
        world.scheduler.stopRequested = true
    }

    /// A failure after which the script cannot go on.
    func abort(_ message: String) {
        check(false, message)
        stop("script stopped: \(message)")
    }

    func startTimer(_ g: Int, after delay: Int64, _ onTimeout: @escaping () -> Void) {
        world.scheduler.cancel(timer)
        timer = world.scheduler.schedule(after: delay) { [self] in
            guard g == generation, !stopped else { return }
            onTimeout()
        }
    }

    // MARK: Host events

    public func centralHost(_ host: CentralHost, didDiscover peripheral: SimulatedPeripheral, report: AdvertisingEvent) {
        guard case .scan(_, let name, let address) = wait else { return }
        if let address, peripheral.model.key.uppercased() != address.uppercased() { return }
        if let name, !peripheral.model.isNamed(name) { return }
        if let only = script.peripheral, peripheral.model.key.uppercased() != only.uppercased(),
           !peripheral.model.isNamed(only) { return }
        target = peripheral
        side.stopScan()
        check(true, "found \(peripheral.model.label), RSSI \(report.rssi) dBm\(report.connectable ? "" : ", not connectable")")
        stepDone(generation)
    }

    public func centralHost(_ host: CentralHost, didConnect link: SimulatedLink) {
        guard case .connect = wait else { return }
        self.link = link
        let client = side.client(for: link)
        gatt = client
        services = []
        characteristics = []
        descriptors = [:]
        note("connected to \((target ?? link.peripheral).model.label), handle \(hex(link.handle, width: 4)), \(link.parameters.description)")
        let g = generation
        client.exchangeMTU(script.mtu) { [self] r in
            guard g == generation else { return }
            switch r {
            case .success(let mtu): check(true, "connected; ATT MTU \(mtu)")
            case .failure(let f): check(true, "connected; MTU exchange failed (\(f)), MTU 23")
            }
            stepDone(g)
        }
    }

    public func centralHost(_ host: CentralHost, didFailToConnect peripheral: SimulatedPeripheral, reason: HCIStatusCode) {
        note("connection attempt to \(peripheral.model.label) ended: \(hex(reason.rawValue)) \(reason.name)")
    }

    public func centralHost(_ host: CentralHost, link: SimulatedLink, didReceiveValue pdu: [UInt8]) {
        guard case .notifications(let handle, let remaining, let value) = wait,
              let p = try? ATTPDU(decoding: pdu[...]), p.attributeHandle == handle else { return }
        if let value, p.value != value {
            check(false, "notification value \(hexString(p.value ?? [])), expected \(hexString(value))")
        }
        if remaining <= 1 {
            check(true, "notifications received")
            stepDone(generation)
        } else {
            wait = .notifications(handle: handle, remaining: remaining - 1, value: value)
        }
    }

    public func centralHost(_ host: CentralHost, didDisconnect link: SimulatedLink, reason: HCIStatusCode) {
        guard link === self.link else { return }
        self.link = nil
        gatt = nil
        let cb = link.cbError(for: reason, mapping: world.configuration.disconnectMapping)
        let cbText = cb.flatMap(CoreBluetoothNames.errorName) ?? "no error"
        note("disconnected: \(hex(reason.rawValue)) \(reason.name) (app sees \(cbText))")
        switch wait {
        case .disconnect(let e):
            var problems: [String] = []
            if let r = e.reason, r != reason { problems.append("reason \(hex(reason.rawValue)), expected \(hex(r.rawValue))") }
            if let c = e.cbError, c != cb { problems.append("\(cbText), expected \(CoreBluetoothNames.errorName(c) ?? String(c))") }
            check(problems.isEmpty, problems.isEmpty ? "disconnected with \(hex(reason.rawValue)) \(reason.name), \(cbText)"
                                                     : problems.joined(separator: "; "))
            stepDone(generation)
        case .disconnecting:
            check(true, "disconnected (\(hex(reason.rawValue)) \(reason.name))")
            stepDone(generation)
        default:
            unexpectedDisconnect(reason: reason, cbText: cbText)
        }
    }

    func unexpectedDisconnect(reason: HCIStatusCode, cbText: String) {
        generation += 1
        wait = .none
        world.scheduler.cancel(timer)
        guard let policy = script.reconnect, reconnects < policy.attempts else {
            check(false, "unexpected disconnection \(hex(reason.rawValue)) \(reason.name) (\(cbText))"
                  + (script.reconnect != nil ? "; no reconnect attempts left" : ""))
            stop("script stopped")
            return
        }
        let delay = policy.delay(attempt: reconnects, rng: &world.rng)
        reconnects += 1
        reconnectDelays.append(delay)
        note("reconnect attempt \(reconnects) of \(policy.attempts) in \(VirtualDuration.short(delay))")
        let g = generation
        world.scheduler.schedule(after: delay) { [self] in
            guard g == generation, !stopped else { return }
            frames = [Frame(steps: script.steps, index: 0, remaining: 0, iteration: 1)]
            advance()
        }
    }
}
