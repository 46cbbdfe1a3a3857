import BLECore
import BLEDecode

/// Runs the recorded central's actions against the recorded peripherals (Docs/replay.md
/// "Faithful replay"): each recorded connection comes up at its recorded time, and each of the
/// central's actions runs at its recorded delay after its anchor, through the simulated host
/// (so the host's rules - one request at a time, flow control, the ATT timeout - still apply).
final class RecordedCentralDriver: CentralHostObserver {
    let world: ReplayWorld
    let session: RecordedSession
    /// The models' results, until `schedule` takes their tables apart.
    private var models: ModelBuilder.Result
    /// Links by recorded connection, in the session's connection order (nil: none came up).
    private(set) var links: [SimulatedLink?] = []
    /// The peripheral model and behaviour each recorded connection plays, in connection order
    /// (nil: none): 12 bytes a link, where the table by connection id was 51 (issue 17).
    private(set) var played: [PlayedBehaviour?] = []
    /// Each connection's recorded central (by connection order), until its link takes it: its
    /// answers, and where its steps are in `steps`.
    private var centrals: [Script?] = []
    /// Every connection's central steps (`CentralStepTable`).
    let steps: CentralStepTable

    /// A connection's recorded central as its link plays it.
    struct Script {
        /// The central's answers to the peripheral's requests and indications.
        var answers: AnswerTable
        /// Its steps' place in `steps`.
        var steps: Range<Int>
    }

    /// Where a connection's behaviour is: `world.peripherals[model].model.behaviours[behaviour]`.
    struct PlayedBehaviour {
        var model: Int32
        var behaviour: Int32
    }

    /// A recorded connection's event not yet in the scheduler's queue: its coming up (or failed
    /// attempt), or its LE Create Connection. 16 bytes, as many of them wait as connections.
    struct Pending {
        var time: VirtualTime
        /// Its sequence number, less the first one set aside (`schedule`).
        var sequence: UInt32
        /// The connection's index times two, plus one for its LE Create Connection.
        var event: UInt32

        var connection: Int { Int(event >> 1) }
        var isCreate: Bool { event & 1 == 1 }
    }
    /// Every connection's events not yet scheduled, in the order they run, and the next one.
    private var pending: [Pending] = []
    private var nextPending = 0
    /// The sequence number of `pending`'s sequence 0.
    private var firstSequence: UInt64 = 0

    init(world: ReplayWorld, session: RecordedSession, models: ModelBuilder.Result) {
        self.world = world
        self.session = session
        self.models = models
        // Each link takes its recorded central when it comes up (68 bytes a link in a table, issue 17).
        let connectionCentrals = session.connections.map { models.centrals[$0.id] }
        var steps = CentralStepTable(capacity: connectionCentrals.reduce(0) { $0 + ($1?.steps.count ?? 0) })
        centrals = connectionCentrals.map { central in central.map { Script(answers: $0.answers, steps: steps.add($0.steps)) } }
        self.steps = steps
        self.models.centrals = [:]
        world.host.observer = self
        world.pduSource = session.pduSource
    }

    /// Schedules every recorded connection. Their events are numbered as if each were scheduled
    /// now, one after another, and enter the queue one at a time in the order they run, each when
    /// the one before it runs: the events run exactly as if all were queued now, without a closure
    /// and a queue entry waiting for each connection (issue 17: 61,424 of each).
    func schedule() {
        let now = world.scheduler.now
        var events: [Pending] = []
        events.reserveCapacity(session.connections.count)
        for (i, c) in session.connections.enumerated() {
            if c.role != "peripheral", let create = c.createOffset, create <= c.offset, create >= 0 {
                events.append(Pending(time: max(create, now), sequence: UInt32(events.count), event: UInt32(2 * i + 1)))
            }
            events.append(Pending(time: max(max(0, c.offset), now), sequence: UInt32(events.count), event: UInt32(2 * i)))
        }
        firstSequence = world.scheduler.reserveSequences(events.count)
        events.sort { $0.time != $1.time ? $0.time < $1.time : $0.sequence < $1.sequence }
        pending = events
        links = Array(repeating: nil, count: session.connections.count)
        played = session.connections.map { c in
            models.behaviourOf[c.id].map { PlayedBehaviour(model: Int32($0.model), behaviour: Int32($0.behaviour)) }
        }
        models.behaviourOf = [:]
        scheduleNext()
    }

    /// Puts the next pending event in the queue.
    private func scheduleNext() {
        guard nextPending < pending.count else {
            pending = []
            centrals = []
            return
        }
        let event = pending[nextPending]
        nextPending += 1
        world.scheduler.schedule(at: event.time, reserved: firstSequence &+ UInt64(event.sequence)) { [self] in
            if event.isCreate { create(event.connection) } else { establish(event.connection) }
            // Nothing after the next one runs before this event is over.
            scheduleNext()
        }
    }

    /// LE Create Connection (or Create Connection) for recorded connection `i` (trace only).
    private func create(_ i: Int) {
        let c = session.connections[i]
        if c.transport == .bredr {
            world.host.traceCreateBREDRConnection(peer: c.peer)
        } else {
            world.host.traceCreateConnection(peer: c.peer, parameters: c.parameters ?? .typical)
        }
    }

    /// Recorded connection `i` comes up (or its attempt fails, as recorded).
    private func establish(_ i: Int) {
        let host: CentralHost = world.host
        let c = session.connections[i]
        let model = played[i]
        let peripheral = model.map { world.peripherals[Int($0.model)] }
        let localCentral = c.role != "peripheral"
        let central = centrals[i]
        centrals[i] = nil
        guard c.isEstablished, let peripheral, let model, let central else {
            host.traceFailedAttempt(peer: c.peer, status: c.status, parameters: c.parameters ?? .typical, localCentral: localCentral)
            return
        }
        // A peripheral a `stop-advertising` fault silenced is never connected to: an LE link the
        // local central makes comes up at the peer's connectable advertising (Core v5.4 Vol 6 Part
        // B 4.4.4), and the attempt stays pending, as an iOS connect does (the verdict: no link).
        if c.transport == .le, localCentral, !c.beganBeforeCapture, world.advertisingStopped.contains(peripheral.index) { return }
        let link = host.establish(peripheral, handle: c.handle, behaviour: Int(model.behaviour),
                                  localCentral: localCentral, transport: c.transport)
        links[i] = link
        link.recordedCompletions = c.completions
        host.setServerAnswers(central.answers, for: link)
        // Held by what can still fire its anchors (the host's callbacks for its sends),
        // and by nothing once nothing can: no table of runs (issue 17).
        ScriptRun(driver: self, link: link, steps: central.steps).start()
    }

    /// One link's recorded central actions, waiting for their anchors.
    final class ScriptRun {
        unowned let driver: RecordedCentralDriver
        let link: SimulatedLink
        /// Its steps' place in the driver's `steps`; a step's index (`Anchor.sent(_:)`) counts
        /// from the first.
        let steps: Range<Int>
        var waiting: [Anchor: [(step: Int, delay: Int64)]] = [:]

        init(driver: RecordedCentralDriver, link: SimulatedLink, steps: Range<Int>) {
            self.driver = driver
            self.link = link
            self.steps = steps
        }

        var world: ReplayWorld { driver.world }

        /// Step `i` of this link's central.
        func step(_ i: Int) -> RecordedCentral.Step { driver.steps[steps.lowerBound + i] }

        func start() {
            let byTime = world.configuration.anchoring == .time
            var filing = AnchorFiling<(step: Int, delay: Int64)>()
            for i in 0..<steps.count {
                let s = step(i)
                filing.add((i, byTime ? s.offset : s.delay), to: byTime ? .linkStart : s.anchor, in: &waiting)
            }
            filing.flush(into: &waiting)
            fire(.linkStart)
        }

        func fire(_ anchor: Anchor) {
            guard let items = waiting.removeValue(forKey: anchor) else { return }
            if waiting.isEmpty { waiting = [:] }
            for (step, delay) in items {
                world.scheduler.schedule(after: delay, order: self.step(step).packetID) { [self] in perform(step) }
            }
        }

        func perform(_ i: Int) {
            guard link.isUp else { return }
            let s = step(i)
            switch s.action {
            case .send(let pdu):
                world.host.send(pdu.bytes, on: link, bearer: s.bearer, transmitted: { [self] in fire(.sent(i)) }, completion: { [self] result in
                    switch result {
                    case .response, .error: fire(.completed(i))
                    case .timeout: fire(.timedOut(i))
                    case .disconnected: break
                    }
                })
            case .disconnect(let reason):
                world.host.disconnect(link, reason: reason, recorded: true)
                fire(.sent(i))
            }
        }
    }
}

extension CentralHost {
    /// LE Create Connection for a recorded attempt (trace only).
    func traceCreateConnection(peer: PeerAddress?, parameters: ConnectionParameters) {
        let address = peer ?? PeerAddress(address: BluetoothAddress(mostSignificantFirst: [0, 0, 0, 0, 0, 0]), type: 0)
        trace.command(HCIPacketBuilder.leCreateConnection(peer: address, parameters: parameters), at: now)
        trace.event(HCIPacketBuilder.commandStatus(HCIPacketBuilder.Opcode.leCreateConnection), at: now)
    }

    /// Create Connection (Core v5.4 Vol 4 Part E 7.1.5) for a recorded BR/EDR link (trace only):
    /// BD_ADDR, packet types DM1..DH5, page scan repetition R1, clock offset 0, role switch allowed.
    func traceCreateBREDRConnection(peer: PeerAddress?) {
        let address = peer ?? PeerAddress(address: BluetoothAddress(mostSignificantFirst: [0, 0, 0, 0, 0, 0]), type: 0)
        trace.command(HCIPacketBuilder.command(0x0405, address.littleEndianBytes + [0x18, 0xCC, 0x01, 0x00, 0x00, 0x00, 0x01]), at: now)
        trace.event(HCIPacketBuilder.commandStatus(0x0405), at: now)
    }

    /// A recorded attempt that never made a link: as central, cancelled (0x02, after LE Create
    /// Connection Cancel) or refused with another status; as peripheral (`localCentral` false),
    /// advertising that ended without a connection, e.g. high duty cycle directed advertising
    /// timed out (0x3C). The LE Connection Complete keeps the local role the recording reported
    /// (Core v5.4 Vol 4 Part E 7.7.65.1), and only a central cancels a Create Connection.
    func traceFailedAttempt(peer: PeerAddress?, status: UInt8, parameters: ConnectionParameters, localCentral: Bool) {
        let address = peer ?? PeerAddress(address: BluetoothAddress(mostSignificantFirst: [0, 0, 0, 0, 0, 0]), type: 0)
        if localCentral && status == 0x02 {
            trace.command(HCIPacketBuilder.command(HCIPacketBuilder.Opcode.leCreateConnectionCancel), at: now)
            trace.event(HCIPacketBuilder.commandComplete(HCIPacketBuilder.Opcode.leCreateConnectionCancel, [0]), at: now)
        }
        trace.event(HCIPacketBuilder.leConnectionComplete(status: status, handle: 0, centralRole: localCentral, peer: address,
                                                          parameters: parameters), at: now)
    }
}
