import BLECore
import BLEDecode

/// The simulated central: host stack and controller as an app sees them (DESIGN.md "Replay
/// semantics", simulated central): scanning, connection attempts that never time out by
/// themselves, one ATT transaction at a time per bearer with the 30 s timeout, MTU exchange,
/// ACL flow control (LE ACL buffers returned by Number Of Completed Packets at the next
/// connection event), and the disconnection reasons the controller reports.
public final class CentralHost {
    unowned let world: ReplayWorld
    public weak var observer: (any CentralHostObserver)?
    public private(set) var isScanning = false
    public private(set) var scanServices: [BluetoothUUID]?
    public private(set) var allowDuplicates = false
    var reportedThisScan: Set<String> = []
    /// Peripherals with a connection attempt pending, in the order asked.
    public private(set) var pendingConnections: [SimulatedPeripheral] = []
    /// Links that are up, in the order they came up.
    public var links: [SimulatedLink] { linkSlots.compactMap { $0 } }
    /// `links`, with a hole where a link went down (`SimulatedLink.hostSlot`), closed up once
    /// holes are half the slots: removing a link from the middle of an array was a pass over every
    /// link up, and 61,424 links going down at once took 30 s (issue 17).
    private var linkSlots: [SimulatedLink?] = []
    private var linkHoles = 0
    /// How many links are up.
    var linkCount: Int { linkSlots.count - linkHoles }
    /// Slots passed over taking links out of `links` (the work a link going down costs; a test
    /// counts it).
    var linkSlotsVisited = 0
    /// Every link ever made, in order.
    public private(set) var allLinks: [SimulatedLink] = []
    var freeBuffers: Int
    /// Links that asked to hear when a write without response would go out, until told or down.
    var writeReadyWaiting: [SimulatedLink] = []
    /// Links visited looking for those (the work a buffer return costs; a test counts it).
    var linksVisitedForWriteReady = 0
    var txQueue: [TxFragment] = []
    var txHead = 0
    var nextHandle: UInt16 = 0x0040
    /// Per link handle: how the central's own GATT server answers (the recorded central's answers).
    var serverAnswers: [UInt16: AnswerTable] = [:]
    /// Keyed as `AnswerTable` is: a long PDU by length and digest (`PDUBytes.key`).
    var serverCounts: [UInt16: [PDUBytes: Int]] = [:]

    struct TxFragment {
        var link: SimulatedLink
        var bytes: [UInt8]
        /// The whole PDU, on the last fragment.
        var pdu: [UInt8]?
        /// Its ATT bearer (`ATTClientBearer`).
        var bearer: UInt16?
        var onSent: (() -> Void)?
    }

    /// After LE Create Connection, the link comes up this long after the peripheral's next
    /// advertising event (CONNECT_IND, transmit window offset, first connection event).
    public static let connectionSetupDelay: Int64 = 2_500

    init(world: ReplayWorld) {
        self.world = world
        scheduler = world.scheduler
        trace = world.trace
        freeBuffers = world.configuration.aclBufferCount
    }

    /// The world's, held here: reached through the unowned `world` for every PDU they cost a
    /// reference-count round trip more (issue 12). The trace holds no reference back; the
    /// scheduler's events capture the host, so it is held unowned.
    unowned let scheduler: Scheduler
    let trace: HCITraceRecorder
    var now: VirtualTime { scheduler.now }

    /// What the host does at power-on: Reset and LE Read Buffer Size.
    func powerOn() {
        trace.command(HCIPacketBuilder.command(HCIPacketBuilder.Opcode.reset), at: now)
        trace.event(HCIPacketBuilder.commandComplete(HCIPacketBuilder.Opcode.reset, [0]), at: now)
        trace.command(HCIPacketBuilder.command(HCIPacketBuilder.Opcode.leReadBufferSize), at: now)
        trace.event(HCIPacketBuilder.leReadBufferSizeComplete(packetLength: world.configuration.aclBufferSize,
                                                               packets: world.configuration.aclBufferCount), at: now)
    }

    // MARK: Scanning

    /// Starts an active scan; `services` filters on advertised service UUIDs as CoreBluetooth does.
    public func startScan(services: [BluetoothUUID]?, allowDuplicates: Bool) {
        if !isScanning {
            trace.command(HCIPacketBuilder.leSetScanParameters(active: true), at: now)
            trace.event(HCIPacketBuilder.commandComplete(HCIPacketBuilder.Opcode.leSetScanParameters, [0]), at: now)
            trace.command(HCIPacketBuilder.leSetScanEnable(true, filterDuplicates: !allowDuplicates), at: now)
            trace.event(HCIPacketBuilder.commandComplete(HCIPacketBuilder.Opcode.leSetScanEnable, [0]), at: now)
        }
        isScanning = true
        scanServices = services.flatMap { $0.isEmpty ? nil : $0 }
        self.allowDuplicates = allowDuplicates
        reportedThisScan = []
        world.advertisingDemandChanged()
    }

    public func stopScan() {
        guard isScanning else { return }
        trace.command(HCIPacketBuilder.leSetScanEnable(false, filterDuplicates: false), at: now)
        trace.event(HCIPacketBuilder.commandComplete(HCIPacketBuilder.Opcode.leSetScanEnable, [0]), at: now)
        isScanning = false
        world.advertisingDemandChanged()
    }

    /// Whether a peripheral's advertising events matter now (someone scans or waits to connect).
    func wantsAdvertising(from p: SimulatedPeripheral) -> Bool {
        isScanning || pendingConnections.contains { $0 === p }
    }

    /// One advertising event of `p`: a report when scanning, a connection when one is pending.
    func advertisingEvent(from p: SimulatedPeripheral) {
        let adv = p.model.advertising
        if let i = pendingConnections.firstIndex(where: { $0 === p }), adv.connectable {
            pendingConnections.remove(at: i)
            p.isConnecting = true
            scheduler.schedule(after: Self.connectionSetupDelay) { [self] in
                p.isConnecting = false
                _ = establish(p, handle: nil, behaviour: nil)
            }
            p.advertisingDemandChanged()
            return
        }
        guard isScanning else { return }
        if let filter = scanServices, !adv.serviceUUIDs.contains(where: filter.contains) { return }
        if !allowDuplicates {
            guard !reportedThisScan.contains(p.model.key) else { return }
            reportedThisScan.insert(p.model.key)
        }
        if let address = p.model.address {
            trace.event(HCIPacketBuilder.leAdvertisingReport(eventType: adv.legacyEventType, peer: address,
                                                             data: adv.advertisingData, rssi: adv.rssi), at: now)
            if adv.scannable, let rsp = adv.scanResponse {
                trace.event(HCIPacketBuilder.leAdvertisingReport(eventType: 4, peer: address, data: rsp, rssi: adv.rssi), at: now)
            }
        }
        observer?.centralHost(self, didDiscover: p, report: AdvertisingEvent(
            time: now, advertisingData: adv.advertisingData, scanResponse: adv.scannable ? adv.scanResponse : nil, rssi: adv.rssi,
            connectable: adv.connectable))
    }

    // MARK: Connections

    /// Asks for a connection; it comes up at the peripheral's next connectable advertising event
    /// and never times out by itself (REFERENCE.md timing facts: iOS connection attempts). A
    /// non-connectable advertiser never answers, so the attempt stays pending until cancelled,
    /// as an iOS `connect` to a beacon does.
    public func connect(_ p: SimulatedPeripheral) {
        guard !pendingConnections.contains(where: { $0 === p }), !p.isConnecting,
              !linkSlots.contains(where: { $0?.peripheral === p }) else { return }
        traceCreateConnection(p)
        pendingConnections.append(p)
        p.advertisingDemandChanged()
    }

    func traceCreateConnection(_ p: SimulatedPeripheral) {
        let address = p.model.address ?? PeerAddress(address: BluetoothAddress(mostSignificantFirst: [0, 0, 0, 0, 0, 0]), type: 0)
        trace.command(HCIPacketBuilder.leCreateConnection(peer: address, parameters: p.nextParameters), at: now)
        trace.event(HCIPacketBuilder.commandStatus(HCIPacketBuilder.Opcode.leCreateConnection), at: now)
    }

    /// Cancels a pending attempt: LE Create Connection Cancel, then LE Connection Complete 0x02
    /// (Core v5.4 Vol 4 Part E 7.8.13).
    public func cancelConnect(_ p: SimulatedPeripheral) {
        guard let i = pendingConnections.firstIndex(where: { $0 === p }) else { return }
        pendingConnections.remove(at: i)
        traceCancel(p)
        p.advertisingDemandChanged()
        observer?.centralHost(self, didFailToConnect: p, reason: HCIStatusCode(0x02))
    }

    func traceCancel(_ p: SimulatedPeripheral, handle: UInt16 = 0) {
        let address = p.model.address ?? PeerAddress(address: BluetoothAddress(mostSignificantFirst: [0, 0, 0, 0, 0, 0]), type: 0)
        trace.command(HCIPacketBuilder.command(HCIPacketBuilder.Opcode.leCreateConnectionCancel), at: now)
        trace.event(HCIPacketBuilder.commandComplete(HCIPacketBuilder.Opcode.leCreateConnectionCancel, [0]), at: now)
        trace.event(HCIPacketBuilder.leConnectionComplete(status: 0x02, handle: handle, centralRole: true, peer: address,
                                                          parameters: p.nextParameters), at: now)
    }

    /// Brings a link up now. `behaviour` picks the recorded connection to behave like (faithful
    /// replay); nil takes the next in turn. `localRole` is the role the LE Connection Complete
    /// reports for the local controller (Core v5.4 Vol 4 Part E 7.7.65.1): a faithful replay of a
    /// link where the recording's local device was the peripheral keeps that role in the trace.
    /// With `scripted`, the peer plays no recorded behaviour on the link (a central script is the
    /// peer: `ScriptedRemoteCentral`); the link keeps the parameters its next recorded connection had.
    /// `transport` .bredr brings up a BR/EDR ACL link (Connection Complete, Core v5.4 Vol 4 Part E
    /// 7.7.3) for GATT over BR/EDR: its ATT goes on the PSM 0x001F channel (`ATTClientBearer`).
    @discardableResult
    public func establish(_ p: SimulatedPeripheral, handle: UInt16?, behaviour: Int?, localCentral: Bool = true,
                          localServer: LocalServerLink? = nil, scripted: Bool = false,
                          transport: LinkTransport = .le, controller: UInt16 = 0) -> SimulatedLink {
        let h = handle ?? allocateHandle()
        let index = p.behaviourIndex(for: behaviour)
        let recorded = index.map { p.model.behaviours[$0] }
        let link = SimulatedLink(handle: h, peripheral: p, establishedAt: now, parameters: recorded?.parameters ?? .typical,
                                 behaviour: scripted ? nil : index, localCentral: localCentral, localServer: localServer,
                                 transport: transport)
        link.controller = controller
        localServer?.attach(link)
        let address = p.model.address ?? PeerAddress(address: BluetoothAddress(mostSignificantFirst: [0, 0, 0, 0, 0, 0]), type: 0)
        if transport == .bredr {
            trace.event(HCIPacketBuilder.connectionComplete(status: 0, handle: h, peer: address), at: now, controller: controller)
        } else {
            trace.event(HCIPacketBuilder.leConnectionComplete(status: 0, handle: h, centralRole: localCentral, peer: address,
                                                              parameters: link.parameters), at: now, controller: controller)
        }
        link.hostSlot = Int32(linkSlots.count)
        linkSlots.append(link)
        allLinks.append(link)
        p.linkEstablished(link, behaviour: scripted ? nil : index)
        p.advertisingDemandChanged()
        observer?.centralHost(self, didConnect: link)
        return link
    }

    func allocateHandle() -> UInt16 {
        while linkSlots.contains(where: { $0?.handle == nextHandle }) { nextHandle = nextHandle &+ 1 }
        defer { nextHandle = nextHandle &+ 1 }
        return nextHandle
    }

    /// HCI Disconnect; the controller reports the end after the peripheral's termination delay.
    /// `requestedByApp` false marks the host's own decision (after an ATT timeout). `recorded`
    /// marks the recorded central's own Disconnect (faithful replay): when the capture ended
    /// before its Disconnection Complete, none comes, and the link stays up as recorded.
    public func disconnect(_ link: SimulatedLink, reason: UInt8 = 0x13, requestedByApp: Bool = true, recorded: Bool = false) {
        guard link.isUp, !link.disconnectPending else { return }
        link.disconnectPending = true
        link.centralRequestedDisconnect = requestedByApp
        trace.command(HCIPacketBuilder.disconnect(handle: link.handle, reason: reason), at: now, controller: link.controller)
        trace.event(HCIPacketBuilder.commandStatus(HCIPacketBuilder.Opcode.disconnect), at: now, controller: link.controller)
        guard let (delay, endReason) = link.peripheral.terminationResponse(for: link, recorded: recorded) else { return }
        scheduler.cancel(link.disconnectEvent)
        link.disconnectEvent = scheduler.schedule(after: delay) { [self] in linkDown(link, reason: endReason) }
    }

    /// The peripheral stopped answering: the controller reports 0x08 after `detection` (default:
    /// the supervision timeout in force).
    func radioSilenced(_ link: SimulatedLink, detection: Int64?) {
        guard link.isUp, link.disconnectEvent == nil else { return }
        let after = detection ?? link.parameters.supervisionTimeout
        link.disconnectEvent = scheduler.schedule(after: after) { [self] in
            linkDown(link, reason: .connectionTimeout)
        }
    }

    /// The peripheral (or the link layer) ended the link with `reason`, now.
    func peerTerminated(_ link: SimulatedLink, reason: HCIStatusCode) {
        linkDown(link, reason: reason)
    }

    /// LE Connection Update Complete; on a BR/EDR link, the host's Write Link Supervision Timeout
    /// (Core v5.4 Vol 4 Part E 7.3.42) and its Command Complete (`BREDRLinkParameters`).
    public func updateParameters(_ link: SimulatedLink, _ p: ConnectionParameters) {
        guard link.isUp else { return }
        link.parameters = p
        link.eventAnchor = now
        if link.transport == .bredr {
            let slots = UInt16(clamping: p.supervisionTimeout / 625)
            trace.command(HCIPacketBuilder.command(0x0C37, HCIPacketBuilder.le16(link.handle) + HCIPacketBuilder.le16(slots)), at: now,
                          controller: link.controller)
            trace.event(HCIPacketBuilder.commandComplete(0x0C37, [0] + HCIPacketBuilder.le16(link.handle)), at: now, controller: link.controller)
        } else {
            trace.event(HCIPacketBuilder.leConnectionUpdateComplete(handle: link.handle, parameters: p), at: now, controller: link.controller)
        }
    }

    /// A controller event the replay writes as recorded (`RecordedLinkEvent`: a refused LE
    /// Connection Update Complete, an LE PHY Update Complete, an LE Data Length Change): traced,
    /// nothing on the link changes.
    func recordedLinkEvent(_ link: SimulatedLink, _ e: RecordedLinkEvent) {
        guard link.isUp, link.transport == .le else { return }
        trace.event(e.hciEvent(handle: link.handle), at: now, controller: link.controller)
    }

    /// The host resets its controller (the radio was switched off): HCI Reset; every link and
    /// pending connection is gone with no Disconnection Complete, as after a real reset.
    public func resetController() {
        trace.command(HCIPacketBuilder.command(HCIPacketBuilder.Opcode.reset), at: now)
        trace.event(HCIPacketBuilder.commandComplete(HCIPacketBuilder.Opcode.reset, [0]), at: now)
        isScanning = false
        pendingConnections = []
        for link in links { linkDown(link, reason: HCIStatusCode(0x16), traced: false) }
        freeBuffers = world.configuration.aclBufferCount
        world.advertisingDemandChanged()
    }

    /// The local controller `controller` closed, removed (btmon Close Index, Delete Index) or
    /// reset (HCI Reset, Core v5.4 Vol 4 Part E 7.3.2) with links up (`ControllerClosing`): every
    /// link of it ends now, with no Disconnection Complete and no reason. The trace carries what
    /// did it (the monitor note, or HCI Reset and its Command Complete), so a re-import ends the
    /// links at that record (`ControllerClosed` in BLEDecode). Its observers hear 0x16, as after
    /// `resetController`; the link's `endReason` stays nil.
    func closeController(_ controller: UInt16, note: String) {
        let frame: Int
        if let opcode = ControllerClosing(note: note, time: 0, packetID: 0).monitorOpcode {
            frame = trace.append([], kind: .note, direction: .received, at: now, controller: controller, rawType: opcode)
        } else {
            trace.command(HCIPacketBuilder.command(HCIPacketBuilder.Opcode.reset), at: now, controller: controller)
            frame = trace.append(HCIPacketBuilder.commandComplete(HCIPacketBuilder.Opcode.reset, [0]), kind: .event, direction: .received,
                                 at: now, controller: controller)
        }
        for link in links where link.controller == controller {
            link.controllerClosed = (note, frame)
            linkDown(link, reason: HCIStatusCode(0x16), traced: false)
        }
    }

    /// Disconnection Complete: the link is gone.
    func linkDown(_ link: SimulatedLink, reason: HCIStatusCode, traced: Bool = true) {
        guard link.isUp else { return }
        link.isUp = false
        link.endedAt = now
        link.endReason = link.controllerClosed == nil ? reason : nil
        if traced {
            trace.event(HCIPacketBuilder.disconnectionComplete(handle: link.handle, reason: reason.rawValue), at: now, controller: link.controller)
        }
        scheduler.cancel(link.disconnectEvent)
        scheduler.cancel(link.completionEvent)
        // Every bearer's outstanding and queued requests fail, the fixed channel's first, then the
        // others in channel order (a Dictionary has no order of its own).
        var failed: [ATTClientBearer.Request] = []
        for key in link.clientBearers.keys.sorted(by: { ($0 ?? 0) < ($1 ?? 0) }) {
            guard let b = link.clientBearers[key] else { continue }
            scheduler.cancel(b.timeout)
            failed += (b.outstanding.map { [$0] } ?? []) + b.queue
        }
        link.clientBearers = [:]
        // Its queued fragments stay queued: `pumpTx` passes over a link that is down.
        freeBuffers += link.packetsInFlight
        link.packetsInFlight = 0
        removeLink(link)
        let indications = link.indicationCompletions.map(\.completion)
        link.indicationCompletions = []
        link.peripheral.linkEnded(link)
        link.peripheral.advertisingDemandChanged()
        link.localServer?.scriptedCentral?.linkDown(link, reason: reason)
        // The central hears of the disconnection first, then its pending requests fail.
        observer?.centralHost(self, didDisconnect: link, reason: reason)
        for r in failed { r.completion?(.disconnected) }
        for c in indications { c(.disconnected) }
        pumpTx()
    }

    /// Takes a link that went down out of `links`, keeping the others' order.
    private func removeLink(_ link: SimulatedLink) {
        let slot = Int(link.hostSlot)
        guard slot >= 0, slot < linkSlots.count, linkSlots[slot] === link else { return }
        linkSlots[slot] = nil
        link.hostSlot = -1
        linkHoles += 1
        if slot == linkSlots.count - 1 {
            while let last = linkSlots.last, last == nil {
                linkSlotsVisited += 1
                linkSlots.removeLast()
                linkHoles -= 1
            }
        } else if linkHoles > 32, linkHoles * 2 > linkSlots.count {
            linkSlotsVisited += linkSlots.count
            linkSlots.removeAll { $0 == nil }
            linkHoles = 0
            for (i, l) in linkSlots.enumerated() { l?.hostSlot = Int32(i) }
        }
    }
}
