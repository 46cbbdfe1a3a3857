import BLEAnalysis
import BLECore

/// Brings the recorded remote centrals to an app's GATT server (Docs/peripheral.md "Replaying a
/// recorded central"): each connection the capture recorded with the local device as peripheral
/// comes up at its recorded instant, as long as the app advertises then (else when it next
/// starts advertising: a central can only connect to an advertiser), one link per central at a
/// time, in recorded order. On the link, the central is the recorded peer behaviour: its
/// requests anchored to the server's answers, its ending (link loss, disconnect) at the recorded
/// instant, and the faults of `ReplayConfiguration.faults`.
public final class LocalServerDriver {
    public let world: ReplayWorld
    public let centrals: [RemoteCentralModel]
    /// Whether the local device advertises now (the app's `isAdvertising`).
    public var isAdvertising: () -> Bool = { false }
    /// Called with each link's server just before the link comes up (the app binds `onPDU`).
    public var willConnect: (LocalServerLink) -> Void = { _ in }
    /// The app's advertising data and scan response (what a scripted central's scan reports).
    public var advertisement: () -> (data: [UInt8], scanResponse: [UInt8]) = { ([], []) }
    /// Every server link made, in order.
    public private(set) var servers: [LocalServerLink] = []
    /// A central script plays the remote central instead of the recorded ones (which then stay
    /// away): `ScriptedRemoteCentral`.
    public internal(set) weak var scriptedCentral: ScriptedRemoteCentral?
    private var due: Set<Int> = []
    private var started = false

    /// The recorded local server's database, as the recorded centrals discovered it.
    public let recordedDatabase: GATTDatabase

    public init(world: ReplayWorld, session: RecordedSession) {
        self.world = world
        centrals = RemoteCentralModel.build(session, models: ModelBuilder.build(session))
        recordedDatabase = RecordedLocalServer.database(session)
    }

    /// Schedules every recorded central (once; those whose instant has passed are due now).
    public func start() {
        guard !started else { return }
        started = true
        for i in centrals.indices {
            world.scheduler.schedule(at: max(world.now, centrals[i].offset), order: i) { [self] in
                due.insert(i)
                connectDue()
            }
        }
    }

    /// The app started advertising: due centrals connect at its first advertising event.
    public func advertisingStarted() {
        scriptedCentral?.advertisingStarted()
        world.scheduler.schedule(after: CentralHost.connectionSetupDelay) { [self] in connectDue() }
    }

    /// The scripted central's link, now: the app's server binds to it (`willConnect`) as to a
    /// recorded central's, and the central plays no recorded behaviour on it.
    func connectScripted(_ peer: SimulatedPeripheral, central: ScriptedRemoteCentral) -> SimulatedLink {
        let server = LocalServerLink(world: world, recorded: nil)
        server.peer = peer
        server.scriptedCentral = central
        servers.append(server)
        willConnect(server)
        return world.host.establish(peer, handle: nil, behaviour: nil, localCentral: false, localServer: server, scripted: true)
    }

    /// A link ended: the same central's next recorded connection may follow.
    public func linkEnded() {
        world.scheduler.schedule(after: 0) { [self] in connectDue() }
    }

    /// Every answer that differed from the recording, in the order they happened.
    public var divergences: [ServerDivergence] { servers.flatMap(\.divergences).sorted { $0.time < $1.time } }

    private func connectDue() {
        guard isAdvertising(), scriptedCentral == nil else { return }
        for i in due.sorted() {
            let m = centrals[i]
            let peer = world.peripherals[m.model]
            // One link per central at a time; its earlier recorded connections come first.
            if world.host.links.contains(where: { $0.peripheral === peer }) { continue }
            if centrals[..<i].indices.contains(where: { due.contains($0) && centrals[$0].model == m.model }) { continue }
            due.remove(i)
            let server = LocalServerLink(world: world, recorded: m)
            server.recordedDatabase = recordedDatabase
            servers.append(server)
            willConnect(server)
            let handle = world.host.links.contains { $0.handle == m.handle } ? nil : m.handle
            world.host.establish(peer, handle: handle, behaviour: m.behaviour, localCentral: false, localServer: server)
        }
    }
}
