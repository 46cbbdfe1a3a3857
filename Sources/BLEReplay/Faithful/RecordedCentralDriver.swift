import BLECore
import BLEDecode

/// Runs the recorded central's actions against the recorded peripherals (Docs/replay.md
/// "Faithful replay"): each recorded connection comes up at its recorded time, and each of the
/// central's actions runs at its recorded delay after its anchor, through the simulated host
/// (so the host's rules - one request at a time, flow control, the ATT timeout - still apply).
///
/// A link's run (its central's steps waiting for their anchors) is held in the driver's tables
/// by connection, not in an object per link (issue 17: 64 bytes a link of 61,424).
final class RecordedCentralDriver: CentralHostObserver {
    let world: ReplayWorld
    let session: RecordedSession
    /// Links by recorded connection, in the session's connection order (nil: none came up).
    private(set) var links: [SimulatedLink?] = []
    /// The peripheral model and behaviour each recorded connection plays, and its central's
    /// steps, in connection order (nil: none): 20 bytes a link, where the table by connection id
    /// was 51 (issue 17).
    private(set) var played: [PlayedBehaviour?] = []
    /// Each connection's recorded central's answers to the peripheral's requests and indications
    /// (by connection order), until its link takes them.
    private var centralAnswers: [AnswerTable?] = []
    /// Every connection's central steps (`CentralStepTable`).
    private let steps: CentralStepTable
    /// Each connection's central steps waiting for their anchors, by step index (`Anchor.sent(_:)`
    /// counts from the connection's first step), in connection order. An empty table holds no
    /// storage.
    private var waiting: [[Anchor: [(step: Int, delay: Int64)]]] = []

    /// Where a connection's behaviour is (`world.peripherals[model].model.behaviours[behaviour]`),
    /// and its central's steps (`steps[firstStep..<firstStep + stepCount]`).
    struct PlayedBehaviour {
        var model: Int32
        var behaviour: Int32
        var firstStep: Int32
        var stepCount: Int32
    }

    /// A recorded connection's event not yet in the scheduler's queue: its coming up (or failed
    /// attempt), its LE Create Connection, or its controller closing with the link up
    /// (`ControllerClosing`). 16 bytes, as many of them wait as connections.
    struct Pending {
        var time: VirtualTime
        /// Its sequence number, less the first one set aside (`schedule`).
        var sequence: UInt32
        /// The connection's index times four, plus `Kind`.
        var event: UInt32

        enum Kind: UInt32 {
            case establish = 0, create = 1, controllerClosed = 2
        }

        init(time: VirtualTime, sequence: UInt32, connection: Int, kind: Kind) {
            self.time = time
            self.sequence = sequence
            event = UInt32(truncatingIfNeeded: connection) << 2 | kind.rawValue
        }

        var connection: Int { Int(event >> 2) }
        var kind: Kind { Kind(rawValue: event & 3) ?? .establish }
    }
    /// Every connection's events not yet scheduled, in the order they run, and the next one.
    private var pending: [Pending] = []
    private var nextPending = 0
    /// The sequence number of `pending`'s sequence 0.
    private var firstSequence: UInt64 = 0

    /// Takes the models' tables apart by connection: the caller lets its copy of them go.
    init(world: ReplayWorld, session: RecordedSession, models: ModelBuilder.Result) {
        self.world = world
        self.session = session
        var steps = CentralStepTable(capacity: session.connections.reduce(0) { $0 + (models.centrals[$1.id]?.steps.count ?? 0) })
        var answers: [AnswerTable?] = []
        answers.reserveCapacity(session.connections.count)
        played = session.connections.map { c in
            let central = models.centrals[c.id]
            answers.append(central?.answers)
            let range = steps.add(central?.steps ?? [])
            return models.behaviourOf[c.id].map {
                PlayedBehaviour(model: Int32($0.model), behaviour: Int32($0.behaviour), firstStep: Int32(range.lowerBound),
                                stepCount: Int32(range.count))
            }
        }
        centralAnswers = answers
        self.steps = steps
        world.host.observer = self
        world.pduSource = session.pduSource
        world.completionTimes = session.completionTimes
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
                events.append(Pending(time: max(create, now), sequence: UInt32(events.count), connection: i, kind: .create))
            }
            events.append(Pending(time: max(max(0, c.offset), now), sequence: UInt32(events.count), connection: i, kind: .establish))
            // The controller closed at its recorded instant (time anchoring, as the connection
            // came up: Docs/replay.md "Anchoring rules", rule 6), ahead of a link the capture
            // brings up on the same handle after it.
            if c.isEstablished, let closing = c.controllerClosing {
                let at = max(0, c.offset).saturatingAdding(max(0, closing.time))
                events.append(Pending(time: max(at, now), sequence: UInt32(events.count), connection: i, kind: .controllerClosed))
            }
        }
        firstSequence = world.scheduler.reserveSequences(events.count)
        events.sort { $0.time != $1.time ? $0.time < $1.time : $0.sequence < $1.sequence }
        pending = events
        links = Array(repeating: nil, count: session.connections.count)
        waiting = Array(repeating: [:], count: session.connections.count)
        scheduleNext()
    }

    /// Puts the next pending event in the queue.
    private func scheduleNext() {
        guard nextPending < pending.count else {
            pending = []
            centralAnswers = []
            return
        }
        let event = pending[nextPending]
        nextPending += 1
        world.scheduler.schedule(at: event.time, reserved: firstSequence &+ UInt64(event.sequence)) { [self] in
            switch event.kind {
            case .create: create(event.connection)
            case .establish: establish(event.connection)
            case .controllerClosed: closeController(event.connection)
            }
            // Nothing after the next one runs before this event is over.
            scheduleNext()
        }
    }

    /// LE Create Connection (or Create Connection) for recorded connection `i` (trace only).
    private func create(_ i: Int) {
        let c = session.connections[i]
        if c.transport == .bredr {
            world.host.traceCreateBREDRConnection(peer: c.peer, controller: c.controller)
        } else {
            world.host.traceCreateConnection(peer: c.peer, parameters: c.parameters ?? .typical, controller: c.controller)
        }
    }

    /// Recorded connection `i` comes up (or its attempt fails, as recorded).
    private func establish(_ i: Int) {
        let host: CentralHost = world.host
        let c = session.connections[i]
        let model = played[i]
        let peripheral = model.map { world.peripherals[Int($0.model)] }
        let localCentral = c.role != "peripheral"
        let answers = centralAnswers[i]
        centralAnswers[i] = nil
        guard c.isEstablished, let peripheral, let model, let answers else {
            host.traceFailedAttempt(peer: c.peer, status: c.status, parameters: c.parameters ?? .typical, localCentral: localCentral,
                                    controller: c.controller)
            return
        }
        // A peripheral a `stop-advertising` fault silenced is never connected to: an LE link the
        // local central makes comes up at the peer's connectable advertising (Core v5.4 Vol 6 Part
        // B 4.4.4), and the attempt stays pending, as an iOS connect does (the verdict: no link).
        if c.transport == .le, localCentral, !c.beganBeforeCapture, world.advertisingStopped.contains(peripheral.index) { return }
        let link = host.establish(peripheral, handle: c.handle, behaviour: Int(model.behaviour),
                                  localCentral: localCentral, transport: c.transport, controller: c.controller)
        links[i] = link
        if c.completionRange.upperBound <= session.completionTimes.count { link.recordedCompletions = c.completionRange }
        host.setServerAnswers(answers, for: link)
        start(i, model)
    }

    /// Recorded connection `i`'s controller closed or reset with the link up (`ControllerClosing`):
    /// every link of that controller still up ends now, with no reason. When several links went
    /// with one record, the first of them closes the controller and the others find their link
    /// gone.
    private func closeController(_ i: Int) {
        let c = session.connections[i]
        guard let closing = c.controllerClosing, let link = links[i], link.isUp else { return }
        world.host.closeController(link.controller, note: closing.note)
    }

    /// Step `index` (from the connection's first) of the central of connection `run` plays.
    private func step(_ index: Int, of run: PlayedBehaviour) -> RecordedCentral.Step {
        steps[Int(run.firstStep) + index]
    }

    /// Files connection `i`'s central steps under their anchors, and fires the link's start.
    private func start(_ i: Int, _ run: PlayedBehaviour) {
        let byTime = world.configuration.anchoring == .time
        var filing = AnchorFiling<(step: Int, delay: Int64)>()
        for k in 0..<Int(run.stepCount) {
            let s = step(k, of: run)
            filing.add((k, byTime ? s.offset : s.delay), to: byTime ? .linkStart : s.anchor, in: &waiting[i])
        }
        filing.flush(into: &waiting[i])
        fire(.linkStart, on: i)
    }

    /// Schedules connection `i`'s steps that waited for `anchor`.
    private func fire(_ anchor: Anchor, on i: Int) {
        guard let items = waiting[i].removeValue(forKey: anchor), let run = played[i] else { return }
        if waiting[i].isEmpty { waiting[i] = [:] }
        for (k, delay) in items {
            // Unowned: the world's queue must not hold the driver, which holds the world.
            world.scheduler.schedule(after: delay, order: step(k, of: run).packetID) { [unowned self] in perform(k, on: i) }
        }
    }

    /// Connection `i`'s central step `k`, on its link while the link is up.
    private func perform(_ k: Int, on i: Int) {
        guard let link = links[i], link.isUp, let run = played[i] else { return }
        let s = step(k, of: run)
        switch s.action {
        case .send(let pdu):
            world.host.send(pdu.bytes, on: link, bearer: s.bearer, transmitted: { [unowned self] in fire(.sent(k), on: i) },
                            completion: { [unowned self] result in
                switch result {
                case .response, .error: fire(.completed(k), on: i)
                case .timeout: fire(.timedOut(k), on: i)
                case .disconnected: break
                }
            })
        case .disconnect(let reason):
            world.host.disconnect(link, reason: reason, recorded: true)
            fire(.sent(k), on: i)
        }
    }
}

extension CentralHost {
    /// LE Create Connection for a recorded attempt (trace only).
    func traceCreateConnection(peer: PeerAddress?, parameters: ConnectionParameters, controller: UInt16 = 0) {
        let address = peer ?? PeerAddress(address: BluetoothAddress(mostSignificantFirst: [0, 0, 0, 0, 0, 0]), type: 0)
        trace.command(HCIPacketBuilder.leCreateConnection(peer: address, parameters: parameters), at: now, controller: controller)
        trace.event(HCIPacketBuilder.commandStatus(HCIPacketBuilder.Opcode.leCreateConnection), at: now, controller: controller)
    }

    /// Create Connection (Core v5.4 Vol 4 Part E 7.1.5) for a recorded BR/EDR link (trace only):
    /// BD_ADDR, packet types DM1..DH5, page scan repetition R1, clock offset 0, role switch allowed.
    func traceCreateBREDRConnection(peer: PeerAddress?, controller: UInt16 = 0) {
        let address = peer ?? PeerAddress(address: BluetoothAddress(mostSignificantFirst: [0, 0, 0, 0, 0, 0]), type: 0)
        trace.command(HCIPacketBuilder.command(0x0405, address.littleEndianBytes + [0x18, 0xCC, 0x01, 0x00, 0x00, 0x00, 0x01]), at: now,
                      controller: controller)
        trace.event(HCIPacketBuilder.commandStatus(0x0405), at: now, controller: controller)
    }

    /// A recorded attempt that never made a link: as central, cancelled (0x02, after LE Create
    /// Connection Cancel) or refused with another status; as peripheral (`localCentral` false),
    /// advertising that ended without a connection, e.g. high duty cycle directed advertising
    /// timed out (0x3C). The LE Connection Complete keeps the local role the recording reported
    /// (Core v5.4 Vol 4 Part E 7.7.65.1), and only a central cancels a Create Connection.
    func traceFailedAttempt(peer: PeerAddress?, status: UInt8, parameters: ConnectionParameters, localCentral: Bool,
                            controller: UInt16 = 0) {
        let address = peer ?? PeerAddress(address: BluetoothAddress(mostSignificantFirst: [0, 0, 0, 0, 0, 0]), type: 0)
        if localCentral && status == 0x02 {
            trace.command(HCIPacketBuilder.command(HCIPacketBuilder.Opcode.leCreateConnectionCancel), at: now, controller: controller)
            trace.event(HCIPacketBuilder.commandComplete(HCIPacketBuilder.Opcode.leCreateConnectionCancel, [0]), at: now,
                        controller: controller)
        }
        trace.event(HCIPacketBuilder.leConnectionComplete(status: status, handle: 0, centralRole: localCentral, peer: address,
                                                          parameters: parameters), at: now, controller: controller)
    }
}
