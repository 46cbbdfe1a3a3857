import BLECore

/// One simulation: the virtual clock, the recorded peripherals, the central host, the faults,
/// and the HCI trace of what happened (DESIGN.md "Replay semantics").
///
/// Single-threaded and deterministic: everything happens inside `run`, in (time, sequence) order.
public final class ReplayWorld {
    public private(set) var configuration: ReplayConfiguration
    public let scheduler = Scheduler()
    public let trace: HCITraceRecorder
    public private(set) var peripherals: [SimulatedPeripheral] = []
    public private(set) var host: CentralHost!
    /// The seeded generator (advertising delays, fuzzing).
    public var rng: SplitMix64

    /// A request no recorded answer and no policy covered (`--unmatched strict`).
    public struct UnmatchedRequest: Sendable {
        public var time: VirtualTime
        public var linkHandle: UInt16
        public var peripheral: String
        public var pdu: [UInt8]
        /// The link it came on (`SimulatedLink`), nil when not noted per link: what a verdict
        /// matches, not the handle, which two adapters' links in a btmon capture can share at
        /// once and one controller reuses after a disconnect.
        public var link: ObjectIdentifier? = nil
    }
    public private(set) var unmatchedRequests: [UnmatchedRequest] = []
    /// The recording's long PDUs (`PDUBytes`): a simulated link's log refers to them instead of
    /// holding a copy of each (issue 17). Nil when the session holds every PDU inline.
    public var pduSource: PDUSource?
    /// Each peripheral's sessions past its first, by peripheral index, while it has more than one
    /// link up (`SimulatedPeripheral`): few peers ever do.
    var otherPeerSessions: [Int: [PeerSession]] = [:]
    /// The recorded buffer returns a faithful replay's links follow (`RecordedSession
    /// .completionTimes`), each link's a range of them (`SimulatedLink.recordedCompletions`).
    var completionTimes: [Int64] = []
    /// Reads of values no recording showed, answered by `configuration.unrecordedValues`.
    public internal(set) var unrecordedReads: [UnmatchedRequest] = []
    /// Faults that fired, with the virtual time and the link.
    public private(set) var firedFaults: [(time: VirtualTime, fault: String, handle: UInt16?)] = []
    /// Indices in `configuration.faults` of the faults that fired at least once.
    public private(set) var firedFaultIndices: Set<Int> = []
    /// Peripherals (by index) a `stop-advertising` fault silenced: a central can no longer
    /// connect to them, the recorded one included (`RecordedCentralDriver`).
    public private(set) var advertisingStopped: Set<Int> = []
    /// Requests the peripherals received, by kind: the most of each on one link (what a
    /// seeded fault can be aimed at).
    public private(set) var requestsReceived: [ATTMatchKey: Int] = [:]

    public init(peripherals models: [PeripheralModel], configuration: ReplayConfiguration) {
        self.configuration = configuration
        trace = HCITraceRecorder(epoch: configuration.epoch, keepsRecords: configuration.keepTrace,
                                 severalControllers: configuration.severalControllers)
        rng = SplitMix64(seed: configuration.seed)
        host = CentralHost(world: self)
        peripherals = models.enumerated().map { SimulatedPeripheral(model: $0.element, index: $0.offset, world: self) }
        host.powerOn()
        for (index, f) in configuration.faults.enumerated() { scheduleTimed(f, index: index) }
    }

    /// More faults from now on (a central script's `inject`, run inside a CoreBluetoothReplay app).
    public func add(faults: [FaultSpec]) {
        for f in faults {
            configuration.faults.append(f)
            scheduleTimed(f, index: configuration.faults.count - 1)
        }
    }

    /// Schedules a fault that fires at a moment rather than after a PDU.
    private func scheduleTimed(_ f: FaultSpec, index: Int) {
        switch f.kind {
        case .disconnect(let reason, .at(let t)):
            scheduler.schedule(at: t) { [self] in
                for p in peripherals where f.applies(to: p.model.key) && p.hasSessions {
                    noteFaultFired(f, index: index, link: nil)
                    p.disconnectNow(reason: reason)
                }
            }
        case .stopReading(.at(let t)):
            scheduler.schedule(at: t) { [self] in
                for p in peripherals where f.applies(to: p.model.key) && p.hasSessions {
                    noteFaultFired(f, index: index, link: nil)
                    p.stopReadingNow()
                }
            }
        case .stopAdvertising(let t):
            scheduler.schedule(at: t) { [self] in
                let targets = peripherals.filter { f.applies(to: $0.model.key) }
                for p in targets {
                    p.setAdvertising(false)
                    advertisingStopped.insert(p.index)
                }
                if !targets.isEmpty { noteFaultFired(f, index: index, link: nil) }
            }
        default:
            break
        }
    }

    public var now: VirtualTime { scheduler.now }

    /// A device the recording does not hold (a scripted remote central), simulated from now on.
    func addPeripheral(_ model: PeripheralModel) -> SimulatedPeripheral {
        let p = SimulatedPeripheral(model: model, index: peripherals.count, world: self)
        peripherals.append(p)
        return p
    }

    /// Runs the simulation until nothing is left to do or `limit` is reached.
    public func run(until limit: VirtualTime? = nil) {
        scheduler.run(until: limit)
    }

    /// The peripheral with this key (address text or `connection N`).
    public func peripheral(_ key: String) -> SimulatedPeripheral? {
        peripherals.first { $0.model.key.uppercased() == key.uppercased() }
    }

    func advertisingDemandChanged() {
        for p in peripherals { p.advertisingDemandChanged() }
    }

    func noteUnmatched(_ pdu: [UInt8], link: SimulatedLink) {
        unmatchedRequests.append(UnmatchedRequest(time: now, linkHandle: link.handle, peripheral: link.peripheral.model.key, pdu: pdu,
                                                  link: ObjectIdentifier(link)))
    }

    func noteFaultFired(_ f: FaultSpec, index: Int, link: SimulatedLink?) {
        firedFaults.append((now, f.description, link?.handle))
        firedFaultIndices.insert(index)
    }

    /// A peripheral received the `count`-th request of kind `key` on one link.
    func noteRequestReceived(_ key: ATTMatchKey, count: Int) {
        requestsReceived[key] = max(requestsReceived[key] ?? 0, count)
    }

    /// Faults that could have fired and never did: the run did not test what it was asked to
    /// (STYLE.md 18). `latency-scale` applies to every answer and is not counted.
    public var unfiredFaults: [FaultSpec] {
        configuration.faults.enumerated().compactMap { i, f in
            if case .latencyScale = f.kind { return nil }
            return firedFaultIndices.contains(i) ? nil : f
        }
    }
}
