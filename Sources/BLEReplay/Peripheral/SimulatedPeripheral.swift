import BLECore

/// A recorded peripheral brought to life: it advertises while unconnected and someone listens,
/// and on each link behaves like the recorded connection in turn (Docs/replay.md "Peripheral model").
public final class SimulatedPeripheral {
    public let model: PeripheralModel
    // The flags in the model's last word, not each in a word of its own (issue 17).
    /// Cleared by `stop-advertising` faults (or a test).
    public internal(set) var advertisingEnabled = true
    var isConnecting = false
    /// `index`, in the 4 bytes after the flags: a peripheral fits a 144-byte allocation where it
    /// took 160 (issue 17; a world holds fewer than 2^31 peripherals).
    private let worldIndex: Int32
    /// Where it is in the world's peripherals.
    public var index: Int { Int(worldIndex) }
    unowned let world: ReplayWorld
    public private(set) var connectionCount = 0
    var advertisingEvent: Scheduler.EventID?
    /// Its sessions, one per link up (by link handle): a peer has a link or two at a time, so the
    /// first on its own and the others in a short list, not a table (a dictionary per peer was 90
    /// bytes a link, a list of one 40, issue 17). `otherSessions` is empty while `firstSession` is nil.
    private var firstSession: PeerSession?
    /// Held by the world (`ReplayWorld.otherPeerSessions`), not in a word of every peer's: few
    /// peers have two links at once, and without it (and with `phase` computed) a peripheral fits
    /// a 128-byte allocation where it took 144 (issue 17).
    private var otherSessions: [PeerSession] {
        get { world.otherPeerSessions[index] ?? [] }
        set { world.otherPeerSessions[index] = newValue.isEmpty ? nil : newValue }
    }
    /// True while a link to it is up.
    var hasSessions: Bool { firstSession != nil }
    /// Its sessions in link-handle order.
    var sessionsByHandle: [PeerSession] {
        guard let firstSession else { return [] }
        return ([firstSession] + otherSessions).sorted { $0.link.handle < $1.link.handle }
    }
    /// Advertising events fall at `phase + k * interval` plus a random advDelay of 0-10 ms.
    var phase: Int64 { (Int64(index) * 7_300) % max(1, model.advertising.interval) }

    init(model: PeripheralModel, index: Int, world: ReplayWorld) {
        self.model = model
        worldIndex = Int32(index)
        self.world = world
        advertisingEnabled = model.advertisesOnLE
    }

    /// The behaviour of recorded connection `index`, or the next in turn (then the last again).
    func behaviour(for index: Int?) -> PeerBehaviour? {
        behaviourIndex(for: index).map { model.behaviours[$0] }
    }

    /// Where `behaviour(for: index)` is in the model's behaviours.
    func behaviourIndex(for index: Int?) -> Int? {
        guard !model.behaviours.isEmpty else { return nil }
        return min(index ?? connectionCount, model.behaviours.count - 1)
    }

    /// The parameters the next connection will use.
    var nextParameters: ConnectionParameters { behaviour(for: nil)?.parameters ?? .typical }

    /// Stops (or restarts) advertising.
    public func setAdvertising(_ enabled: Bool) {
        advertisingEnabled = enabled
        advertisingDemandChanged()
    }

    func advertisingDemandChanged() {
        let wanted = advertisingEnabled && firstSession == nil && !isConnecting && world.host.wantsAdvertising(from: self)
        if wanted, advertisingEvent == nil {
            let interval = max(1, model.advertising.interval)
            let now = world.scheduler.now
            let k = now < phase ? 0 : now.saturatingSubtracting(phase) / interval + 1
            let delay = world.rng.inRange(0...9_999)
            advertisingEvent = world.scheduler.schedule(at: phase.saturatingAdding(k.saturatingMultiplied(by: interval)).saturatingAdding(delay)) { [self] in
                advertisingEvent = nil
                world.host.advertisingEvent(from: self)
                advertisingDemandChanged()
            }
        } else if !wanted, let e = advertisingEvent {
            world.scheduler.cancel(e)
            advertisingEvent = nil
        }
    }

    /// A link came up, behaving like the model's behaviour `behaviour` (none: nil).
    func linkEstablished(_ link: SimulatedLink, behaviour: Int?) {
        connectionCount += 1
        let session = PeerSession(peripheral: self, link: link, behaviour: behaviour)
        removeSession(on: link.handle)
        if firstSession == nil { firstSession = session } else { otherSessions.append(session) }
        session.start()
    }

    /// A link ended. When it was the last recorded connection's and was lost as the recording
    /// shows the peer gone after it (`PeripheralModel.goneAfterLastConnection`), the peripheral
    /// stops advertising for good: a connect to it stays pending, as iOS's does, with no callback.
    func linkEnded(_ link: SimulatedLink) {
        removeSession(on: link.handle)
        if model.goneAfterLastConnection, connectionCount >= model.behaviours.count, link.endReason?.rawValue == 0x08 {
            advertisingEnabled = false
        }
    }

    /// The session on the link with `link`'s handle.
    func session(on link: SimulatedLink) -> PeerSession? {
        let handle = link.handle
        if let firstSession, firstSession.link.handle == handle { return firstSession }
        return otherSessions.first { $0.link.handle == handle }
    }

    /// Forgets the session on the link with `handle`, if any.
    private func removeSession(on handle: UInt16) {
        if let first = firstSession, first.link.handle == handle {
            firstSession = otherSessions.isEmpty ? nil : otherSessions.removeFirst()
        }
        otherSessions.removeAll { $0.link.handle == handle }
    }

    /// A PDU from the central on one of the link's ATT bearers (`ATTClientBearer`); the answer goes
    /// back on the same bearer.
    func receive(_ pdu: [UInt8], on link: SimulatedLink, bearer: UInt16? = nil) {
        session(on: link)?.receive(pdu, bearer: bearer)
    }

    /// How long the peripheral takes to acknowledge the central's disconnection, and the reason
    /// the controller then reports (recorded, else two connection intervals and 0x16). With
    /// `recorded` (the recorded central's own Disconnect, faithful replay), nil when the recording
    /// ended before the controller reported it: the replay must not add an ending it lacks.
    func terminationResponse(for link: SimulatedLink, recorded: Bool = false) -> (Int64, HCIStatusCode)? {
        if let b = session(on: link)?.behaviour {
            if recorded && b.disconnectUnfinished { return nil }
            return (b.terminationDelay, b.terminationReason)
        }
        return (2 * link.parameters.interval, HCIStatusCode(0x16))
    }

    /// `stop-reading@t=`: the peer stops reading on every link it has now.
    func stopReadingNow() {
        for session in sessionsByHandle { session.stopReading() }
    }

    /// Applies a fault that fires at a moment rather than after a request.
    func disconnectNow(reason: HCIStatusCode) {
        for session in sessionsByHandle {
            session.disconnect(reason: reason)
        }
    }
}
