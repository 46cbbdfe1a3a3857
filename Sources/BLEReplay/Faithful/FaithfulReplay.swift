import BLECore

/// The result of replaying one capture faithfully.
public struct FaithfulReplayResult: Sendable {
    public var session: String
    public var path: String
    /// Every connection's verdict, in connection order; empty when they were handed out one by
    /// one as they were made and not kept (`FaithfulReplay.run(_:configuration:keepingVerdicts:each:)`).
    /// The counts below hold either way.
    public var verdicts: [ConnectionVerdict]
    /// Connections judged, reproduced, and not reproduced for a capture gap (`ConnectionVerdict.captureGap`).
    public var connectionCount = 0
    public var reproducedCount = 0
    public var captureGapCount = 0
    /// BR/EDR connections without ATT: not replayed (GATT over BR/EDR is).
    public var classicConnections: Int
    public var firedFaults: [String]
    /// Faults asked for that never fired (`ReplayWorld.unfiredFaults`), in the `--inject` grammar:
    /// the run fails, since it did not test what it was asked to.
    public var unfiredFaults: [String] = []
    public var eventsRun: Int
    /// Simulated span (µs).
    public var simulatedSpan: Int64
    public var notes: [String]

    public var allReproduced: Bool { reproducedCount == connectionCount }
    /// Every connection reproduced or is a capture gap.
    public var allSettled: Bool { reproducedCount + captureGapCount == connectionCount }
    /// Every connection reproduced (or is a capture gap the capture cannot settle) and every fault fired.
    public var passed: Bool { allSettled && unfiredFaults.isEmpty }

    /// Counts `v` (made in connection order) and keeps it when `keep`.
    mutating func add(_ v: ConnectionVerdict, keep: Bool) {
        connectionCount += 1
        if v.reproduced { reproducedCount += 1 } else if v.captureGap != nil { captureGapCount += 1 }
        if keep { verdicts.append(v) }
    }
}

/// Faithful replay (Docs/replay.md "Faithful replay"): the recorded central against the recorded
/// peripherals, compared with the recording connection by connection.
public enum FaithfulReplay {
    /// The configuration a faithful replay starts from: strict about unrecorded requests, the
    /// recorded central decides what happens after an ATT timeout, the recorded controller's
    /// buffers, and the capture's own start time for the written trace.
    public static func configuration(for session: RecordedSession, base: ReplayConfiguration) -> ReplayConfiguration {
        var c = base
        c.disconnectOnATTTimeout = false
        c.epoch = session.start
        // btmon's Close Index and Delete Index are monitor notes: only datalink 2001 carries them.
        c.severalControllers = session.connections.contains { $0.controller != 0 || $0.controllerClosing?.monitorOpcode != nil }
        if let size = session.aclBufferSize { c.aclBufferSize = size }
        if let count = session.aclBufferCount, count > 0 { c.aclBufferCount = count }
        return c
    }

    /// The capture's gaps inside a connection's life (from its first record to its end or the
    /// capture's), as the verdict names them: `packet 212: the capture's writer dropped 3 ...`.
    static func gap(in c: RecordedConnection, _ gaps: [CaptureGap]) -> String? {
        let from = c.offset, to = c.offset &+ c.end
        let inside = gaps.filter { $0.time >= from && $0.time <= to }
        guard !inside.isEmpty else { return nil }
        return inside.map { g in (g.packetID.map { "packet \($0): " } ?? "") + g.reason }.joined(separator: "; ")
    }

    /// Builds the world, runs it to the capture's end, and compares.
    public static func run(_ session: RecordedSession, configuration base: ReplayConfiguration) -> (FaithfulReplayResult, ReplayWorld) {
        run(session, configuration: base, keepingVerdicts: true, releasingLinks: false) { _ in }
    }

    /// Builds the world, runs it to the capture's end, and compares connection by connection once
    /// it stopped: each verdict goes to `each` as it is made, and is kept in the result only with
    /// `keepingVerdicts` (issue 17: a text report writes each one out, and 61,424 links then hold
    /// no verdict). With `releasingLinks`, what a link logged is dropped once its verdict is made
    /// (nothing reads it after; the world's links keep their endings and counts).
    public static func run(_ session: RecordedSession, configuration base: ReplayConfiguration, keepingVerdicts: Bool,
                           releasingLinks: Bool = true, each: (ConnectionVerdict) -> Void) -> (FaithfulReplayResult, ReplayWorld) {
        var session = session
        return run(&session, configuration: base, keepingVerdicts: keepingVerdicts, releasingLinks: releasingLinks, owned: false,
                   each: each)
    }

    /// `run(session, ...)`, and `session` gives up its GATT databases and advertising once the
    /// peripheral models are made of them (nothing reads them after): when the caller held the
    /// only copy, their memory goes before the simulation runs (issue 17: a database and a key
    /// for each of 61,424 unnamed peers, 170 bytes a link).
    public static func run(_ session: inout RecordedSession, configuration base: ReplayConfiguration, keepingVerdicts: Bool,
                           releasingLinks: Bool = true, each: (ConnectionVerdict) -> Void) -> (FaithfulReplayResult, ReplayWorld) {
        run(&session, configuration: base, keepingVerdicts: keepingVerdicts, releasingLinks: releasingLinks, owned: true, each: each)
    }

    /// - Parameter owned: whether the caller's `session` is its own (`run(_:configuration:keepingVerdicts:releasingLinks:each:)`
    ///   with `inout`): then the values the models will not read go before they are built. A
    ///   copy of the caller's would copy its table of databases to do so.
    static func run(_ session: inout RecordedSession, configuration base: ReplayConfiguration, keepingVerdicts: Bool,
                    releasingLinks: Bool, owned: Bool, each: (ConnectionVerdict) -> Void) -> (FaithfulReplayResult, ReplayWorld) {
        // Only answers from the database read a peer's database and values (issue 17).
        let databaseAnswers = base.unmatched == .database
        if owned && !databaseAnswers { ModelBuilder.dropUnreadValues(&session.gatt) }
        var models = ModelBuilder.build(session, databaseAnswers: databaseAnswers)
        session.gatt = [:]
        session.advertising = [:]
        let configuration = configuration(for: session, base: base)
        let world = ReplayWorld(peripherals: models.peripherals, configuration: configuration)
        // The world's peripherals hold the models from now on: a second copy of each was 200
        // bytes a link (issue 17).
        models.peripherals = []
        let driver = RecordedCentralDriver(world: world, session: session, models: models)
        driver.schedule()
        // The driver holds what its connections play from now on, in connection order.
        models = ModelBuilder.Result(peripherals: [], centrals: [:], behaviourOf: [:])
        // Nothing to replay, nothing simulated: the clock is not run through the capture's span
        // for nothing (it said "0 events, 3382.836419 s simulated" of a capture with no LE link).
        if !session.connections.isEmpty || !world.configuration.faults.isEmpty {
            world.run(until: max(session.end, 0))
            // Faults may move the recording's ending past its end (FaultOverrun).
            if let horizon = FaultOverrun.horizon(end: session.end, faults: world.configuration.faults) {
                FaultOverrun.run(world, until: horizon)
            }
        }
        var notes: [String] = []
        if session.connections.isEmpty {
            notes.append(session.classicConnections > 0
                         ? "no LE connection and no GATT over BR/EDR in this capture (\(session.classicConnections) BR/EDR connection(s) without ATT, whose profiles replay does not simulate); nothing to replay"
                         : "no LE connection in this capture; nothing to replay")
        } else if session.classicConnections > 0 {
            notes.append("\(session.classicConnections) BR/EDR connection(s) without ATT not replayed (their profiles are not simulated)")
        }
        if session.isochronous {
            notes.append("isochronous channels (LE Audio CIS/BIS) are not replayed: their ISO data is not simulated, only the ACL links they were set up on")
        }
        if let clock = session.clock.note { notes.append(clock) }
        var result = FaithfulReplayResult(session: session.fileName, path: session.path, verdicts: [],
                                          classicConnections: session.classicConnections,
                                          firedFaults: world.firedFaults.map { "\(TimeLabel.capture($0.time)) \($0.fault)" },
                                          eventsRun: world.scheduler.eventsRun, simulatedSpan: world.now, notes: notes)
        result.unfiredFaults = world.unfiredFaults.map(\.description)
        if keepingVerdicts { result.verdicts.reserveCapacity(session.connections.count) }
        for (i, c) in session.connections.enumerated() {
            var rule: String?
            if let b = driver.played[i] { rule = world.peripherals[Int(b.model)].model.behaviours[Int(b.behaviour)].ending.description(localPeripheral: c.role == "peripheral") }
            let link = driver.links[i]
            var v = ReplayComparison.compare(c, link: link, unmatched: world.unmatchedRequests, endingRule: rule)
            if !v.reproduced { v.captureGap = gap(in: c, session.gaps) }
            if releasingLinks { link?.releaseLog() }
            each(v)
            result.add(v, keep: keepingVerdicts)
        }
        return (result, world)
    }
}
