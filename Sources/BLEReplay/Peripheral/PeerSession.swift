import BLECore
import BLEDecode

/// A peripheral's state on one link: counters for anchors, the recorded actions waiting for
/// their anchors, subscriptions, faults, and the answers it gives (Docs/replay.md "Peripheral
/// model" and "Anchoring rules").
final class PeerSession {
    unowned let peripheral: SimulatedPeripheral
    let link: SimulatedLink
    /// Which of the model's behaviours the peer plays (-1: none). The session reads it from the
    /// model (`behaviour`) rather than holding a copy: 230 bytes a link (issue 17).
    private let behaviourSlot: Int32
    /// The action a link loss waits for (`underWay`), by index; -1: none.
    private var lossWaitsForAction: Int32 = -1
    // The indexes and flags in 12 bytes, and the emulator in `Occasional`: a session fits 112
    // bytes where it took 128 (issue 17).
    /// Whether the peer plays a recorded behaviour: testing `behaviour` itself copied the whole
    /// optional struct for each event (issue 12).
    let hasBehaviour: Bool
    /// Radio silent: it neither hears nor says anything more.
    var silent = false
    /// The link failed to be established (0x3E): nothing reaches the peripheral.
    var neverEstablished = false
    /// Whether unrecorded requests are answered from the database (`--unmatched database`): only
    /// then does the emulator keep what Write Commands wrote, read by nothing else (a value per
    /// link of 61,424, issue 17).
    let answersFromDatabase: Bool
    /// The action a link loss waits for (`underWay`), by index.
    var lossWaitsFor: Int? {
        get { lossWaitsForAction < 0 ? nil : Int(lossWaitsForAction) }
        set { lossWaitsForAction = newValue.map { Int32($0) } ?? -1 }
    }
    /// Which of the model's behaviours the peer plays (nil: none).
    var behaviourIndex: Int? { behaviourSlot < 0 ? nil : Int(behaviourSlot) }
    /// The behaviour the peer plays, if any.
    var behaviour: PeerBehaviour? { behaviourIndex.map { peripheral.model.behaviours[$0] } }
    /// `behaviour`'s actions, kept apart: reading one through the optional struct copied the
    /// whole behaviour for each notification (issue 12).
    let actions: [AnchoredPDU]
    /// How many PDUs of each kind the peer received (the anchors' counts): the first kind on its
    /// own, the others in `Occasional` (issue 17).
    private var firstKeyCount = FirstKeyCount()
    /// Keyed as `AnswerTable` is: a long PDU by length and digest (`PDUBytes.key`).
    var requestCounts: [PDUBytes: Int] = [:]
    /// Answers from the peer's database (`--unmatched database`), made when first asked for and
    /// held in `Occasional`: a faithful replay never asks, and one held on every link was 72 bytes
    /// a link (issue 17). Made then as it would have been at the link's start: from the model's
    /// database and the behaviour's Server Rx MTU, neither of which changes.
    var emulator: GATTServerEmulator {
        get {
            let o = occasional
            if let made = o.emulator { return made }
            let made = GATTServerEmulator(database: peripheral.model.gatt, serverRxMTU: UInt16(clamping: behaviour?.serverRxMTU ?? 23))
            o.emulator = made
            return made
        }
        set { occasional.emulator = newValue }
    }
    /// What few links need (`Occasional`), made when first written.
    private(set) var occasionalState: Occasional?
    var occasional: Occasional {
        if let occasionalState { return occasionalState }
        let made = Occasional()
        occasionalState = made
        return made
    }

    /// What few links need, apart (issue 17: five empty tables on each link were 40 bytes a link):
    /// subscriptions, faults counted, long values being read, requests counted per encryption
    /// state, the answers from the database.
    final class Occasional {
        var subscriptionCounts: [UInt16: Int] = [:]
        var cccdEnabled: [UInt16: Bool] = [:]
        /// What this central wrote to each CCCD on this link (PeerSession+Values.swift: a read of
        /// a CCCD gives it, else the default 0x0000).
        var cccdValues: [UInt16: [UInt8]] = [:]
        var faultCounts: [Int: Int] = [:]
        /// Long values being read on this link, per handle (PeerSession+LongValues.swift).
        var longValues: [UInt16: [UInt8]] = [:]
        /// Requests counted per encryption state, when the link's security is modelled.
        var securedCounts: [PDUBytes: Int] = [:]
        /// Every kind of PDU received but the first (`firstKeyCount`), counted.
        var keyCounts: [ATTMatchKey: Int] = [:]
        /// `emulator`, once made.
        var emulator: GATTServerEmulator?
        /// Handles this central wrote on this link with a Write Request the recording never made
        /// and the database accepted (PeerSession+WrittenValues.swift).
        var unrecordedWrites: Set<UInt16> = []
    }

    /// Counts one more PDU of `key` received: how many of it the peer has received on this link.
    func countReceived(_ key: ATTMatchKey) -> Int {
        if firstKeyCount.count == 0 || firstKeyCount.holds(key) { return firstKeyCount.increment(key) }
        let counts = occasional
        counts.keyCounts[key, default: 0] += 1
        return counts.keyCounts[key]!
    }

    enum Item {
        case action(Int)
        case ending
    }
    var waiting: [Anchor: [(item: Item, delay: Int64)]] = [:]
    /// Recorded actions whose anchor came and that have not been performed yet, and the one a link
    /// loss waits for (Docs/replay.md "Anchoring rules" 3: a silent peer's own traffic).
    /// By action index: a flag per action, not a set (no hashing per event, and a search in
    /// index order, never in a hash order that changes from run to run).
    var underWay: [Bool]

    init(peripheral: SimulatedPeripheral, link: SimulatedLink, behaviour index: Int?) {
        self.peripheral = peripheral
        self.link = link
        behaviourSlot = index.map { Int32($0) } ?? -1
        let behaviour = index.map { peripheral.model.behaviours[$0] }
        actions = behaviour?.actions ?? []
        hasBehaviour = behaviour != nil
        host = peripheral.world.host
        underWay = Array(repeating: false, count: actions.count)
        if case .database = peripheral.world.configuration.unmatched { answersFromDatabase = true } else { answersFromDatabase = false }
    }

    var world: ReplayWorld { peripheral.world }
    /// The world's host, fixed before any link comes up: read through `world.host` (a `var`) it
    /// cost a dynamic exclusivity check per event (issue 12).
    unowned let host: CentralHost

    func start() {
        guard let b = behaviour else { return }
        // 0x3E: the peripheral never answered the connection on air, so it hears nothing.
        if case .terminated(let reason, _, _) = b.ending, reason.rawValue == 0x3E { neverEstablished = true }
        let everyByTime = world.configuration.anchoring == .time
        // An app playing the local server (CBPeripheralManager) notifies on its own schedule: what
        // the recorded central did after one of the local server's spontaneous PDUs keeps its time.
        func byTime(_ a: Anchor) -> Bool { everyByTime || (link.localServer != nil && a.followsLocalInitiative) }
        var filing = AnchorFiling<(item: Item, delay: Int64)>()
        for (i, a) in actions.enumerated() {
            let t = byTime(a.anchor)
            filing.add((.action(i), t ? a.offset : a.delay), to: t ? .linkStart : a.anchor, in: &waiting)
        }
        filing.flush(into: &waiting)
        switch b.ending {
        case .linkLoss(let anchor, let delay, _), .terminated(_, let anchor, let delay):
            let offset = b.endingOffset ?? delay
            let t = byTime(anchor)
            waiting[t ? .linkStart : anchor, default: []].append((.ending, t ? offset : delay))
        case .stillConnected, .centralTerminated, .controllerClosed:
            break
        }
        for u in b.parameterUpdates where u.offset > 0 {
            world.scheduler.schedule(after: u.offset) { [self] in host.updateParameters(link, u.parameters) }
        }
        for e in b.linkEvents where e.offset >= 0 {
            world.scheduler.schedule(after: e.offset, order: e.packetID) { [self] in host.recordedLinkEvent(link, e) }
        }
        fire(.linkStart)
    }

    /// The anchor came: what waited for it is scheduled, the recorded actions as one
    /// `EventChain` (their hints are their packet ids).
    func fire(_ anchor: Anchor) {
        guard let items = waiting.removeValue(forKey: anchor) else { return }
        // An emptied dictionary keeps its storage: let it go (issue 17).
        if waiting.isEmpty { waiting = [:] }
        var chain = EventChain()
        let now = world.scheduler.now
        for (item, delay) in items {
            if case .action(let i) = item, hasBehaviour {
                underWay[i] = true
                chain.append(at: now, after: delay, order: actions[i].packetID, item: i)
            } else {
                world.scheduler.schedule(after: delay) { [self] in perform(item) }
            }
        }
        chain.schedule(on: world.scheduler) { [self] in perform(.action($0)) }
    }

    func perform(_ item: Item) {
        guard link.isUp, !silent, hasBehaviour else { return }
        switch item {
        case .action(let i):
            let a = actions[i]
            underWay[i] = false
            if lossWaitsFor == i, let b = behaviour { lossFollows(a, in: b) }
            if case .subscribed(let cccd, _) = a.anchor, occasionalState?.cccdEnabled[cccd] == false { return }
            // Toward an app's server, with its handles (Server/LocalHandleMap.swift).
            host.deliver(link.localServer?.towardApp(a.pdu) ?? a.pdu, on: link, bearer: a.bearer)
        case .ending:
            guard let b = behaviour else { return }
            switch b.ending {
            case .linkLoss(_, _, let detection):
                if let i = lastTrafficUnderWay(before: b) {
                    lossWaitsFor = i
                    return
                }
                goSilent(detection: detection)
            case .terminated(let reason, _, _): host.peerTerminated(link, reason: reason)
            case .stillConnected, .centralTerminated, .controllerClosed: break
            }
        }
    }

    /// A link loss is a radio event, and the peer's own traffic before it is part of its anchor:
    /// the loss comes no earlier than the last PDU the recording shows the peripheral sending
    /// before the silence, once that PDU is under way (its anchor came: a notification stream the
    /// app subscribed to). So an app whose own requests come at other moments than the recorded
    /// central's still gets every notification the recording shows before the loss. Traffic whose
    /// anchor never came (the app never subscribed) does not hold the loss back.
    func lastTrafficUnderWay(before b: PeerBehaviour) -> Int? {
        guard let silence = b.endingOffset else { return nil }
        return underWay.indices.filter { underWay[$0] && b.actions[$0].offset <= silence }.max { b.actions[$0].offset < b.actions[$1].offset }
    }

    /// The action the loss waited for was sent: the loss follows at the recorded gap.
    func lossFollows(_ a: AnchoredPDU, in b: PeerBehaviour) {
        lossWaitsFor = nil
        let gap = (b.endingOffset ?? a.offset).saturatingSubtracting(a.offset)
        world.scheduler.schedule(after: max(0, gap)) { [self] in perform(.ending) }
    }

    func goSilent(detection: Int64?) {
        guard !silent else { return }
        silent = true
        host.radioSilenced(link, detection: detection)
    }

    /// Ends the link from the peripheral's side: 0x08 as radio silence, other reasons at the next
    /// connection event (the LL_TERMINATE_IND goes out there).
    func disconnect(reason: HCIStatusCode) {
        guard link.isUp, !silent else { return }
        if reason.rawValue == 0x08 {
            goSilent(detection: nil)
        } else {
            silent = true
            world.scheduler.schedule(at: link.nextConnectionEvent(after: world.scheduler.now)) { [self] in
                host.peerTerminated(link, reason: reason)
            }
        }
    }

    /// A PDU from the central, on `bearer` (nil: the fixed channel): answered on the same bearer.
    func receive(_ pdu: [UInt8], bearer: UInt16? = nil) {
        guard !silent else { return }
        // A central script playing this peer (the remote central of the app's server) hears it.
        link.localServer?.scriptedCentral?.received(pdu, on: link)
        let key = ATTMatchKey(pdu: pdu)
        let n = countReceived(key)
        // 0x3E: the peripheral never hears it, but what the central sent still counts for the
        // anchors: the controller's 0x3E is anchored to it ("after the 1st Exchange MTU Request"),
        // and must end the link, failing the request still outstanding (Docs/replay.md).
        if neverEstablished {
            fire(.received(key, n))
            return
        }
        let op = ATTOpcode(pdu[0])
        if op.kind == .request { world.noteRequestReceived(key, count: n) }

        var drop = false
        var extraDelay: Int64 = 0
        var errorCode: ATTErrorCode?
        var disconnectReason: HCIStatusCode?
        var stopsReading = false
        for (i, f) in world.configuration.faults.enumerated() where f.applies(to: peripheral.model.key) {
            let match: FaultMatch
            switch f.kind {
            case .disconnect(_, .after(let m)), .dropResponse(let m), .delayResponse(let m, _), .attError(_, let m),
                 .stopReading(.after(let m)): match = m
            default: continue
            }
            guard match.matches(key) else { continue }
            occasional.faultCounts[i, default: 0] += 1
            if let k = match.occurrence, k != occasional.faultCounts[i] { continue }
            world.noteFaultFired(f, index: i, link: link)
            switch f.kind {
            case .disconnect(let reason, _): disconnectReason = reason
            case .dropResponse: drop = true
            case .delayResponse(_, let d): extraDelay += d
            case .attError(let code, _): errorCode = code
            case .stopReading: stopsReading = true
            default: break
            }
        }

        if op.kind == .request || op.kind == .indication, disconnectReason == nil, !drop {
            let occurrence = countRequest(pdu)
            answer(pdu, occurrence: occurrence, extraDelay: extraDelay, errorCode: errorCode, bearer: bearer)
        } else if op.kind == .command, answersFromDatabase {
            emulator.command(pdu)
        }
        if let (cccd, enabled) = peripheral.model.extractor.subscriptionWrite(pdu) {
            occasional.cccdEnabled[cccd] = enabled
            occasional.cccdValues[cccd] = Array(pdu[3...])
            if enabled {
                occasional.subscriptionCounts[cccd, default: 0] += 1
                fire(.subscribed(cccd: cccd, occasional.subscriptionCounts[cccd]!))
            }
        }
        fire(.received(key, n))
        if let reason = disconnectReason { disconnect(reason: reason) }
        if stopsReading { stopReading() }
    }

    /// The peer stops reading (`stop-reading`): it hears nothing more on this link, and the local
    /// controller gets no acknowledgement for what it sends after now (CentralHost.pumpTx). What
    /// the peer would have done after something it now never hears never comes; its recorded
    /// ending (a link loss, its own disconnect) then comes at its recorded time from the link's
    /// start, as the recording has it.
    func stopReading() {
        guard link.isUp, !link.peerStoppedReading else { return }
        link.peerStoppedReading = true
        guard let b = behaviour, let offset = b.endingOffset else { return }
        for (anchor, items) in waiting where items.contains(where: { if case .ending = $0.item { true } else { false } }) {
            waiting[anchor] = items.filter { if case .ending = $0.item { false } else { true } }
            let at = max(world.now, link.establishedAt.saturatingAdding(offset))
            world.scheduler.schedule(at: at) { [self] in perform(.ending) }
        }
    }

    func answer(_ pdu: [UInt8], occurrence: Int, extraDelay: Int64, errorCode: ATTErrorCode?, bearer: UInt16? = nil) {
        let op = ATTOpcode(pdu[0])
        let recorded = recordedAnswer(to: pdu, occurrence: occurrence)
        var latency = recorded?.latency ?? behaviour?.typicalLatency ?? 2 * link.parameters.interval
        var response: [UInt8]
        var servedUnrecorded = false
        if errorCode == nil, let part = longValuePart(pdu) {
            response = part
        } else if errorCode == nil, let written = readOfUnrecordedWrite(pdu) {
            response = written
            servedUnrecorded = true
        } else if let errorCode, op.kind == .request {
            let handle = (try? ATTPDU(decoding: pdu[...]))?.attributeHandle ?? 0
            response = ATTPDU.errorResponse(ATTErrorResponse(requestOpcode: op, attributeHandle: handle, errorCode: errorCode)).encoded()
        } else if let recorded {
            guard let r = recorded.response else { return }
            response = r.bytes
        } else if op.kind == .indication {
            response = [ATTOpcode.handleValueConfirmation.rawValue]
        } else {
            switch world.configuration.unmatched {
            case .strict:
                world.noteUnmatched(pdu, link: link)
                return
            case .database:
                emulator.mtu = max(emulator.mtu, link.mtu)
                switch unrecordedRead(pdu) {
                case .answer(let r):
                    // It set or cleared the long value it serves itself (PeerSession+Values.swift).
                    response = r
                    servedUnrecorded = true
                case .silent: return
                case nil:
                    let history = behaviour?.valueHistory, at = link.relative(world.scheduler.now)
                    response = emulator.answer(pdu) { history?.value(of: $0, at: at) }
                }
            case .error(let code):
                let handle = (try? ATTPDU(decoding: pdu[...]))?.attributeHandle ?? 0
                response = ATTPDU.errorResponse(ATTErrorResponse(requestOpcode: op, attributeHandle: handle, errorCode: code)).encoded()
            }
        }
        noteWrite(pdu, answer: response, recorded: recorded != nil)
        if op == .readRequest, errorCode == nil, !servedUnrecorded {
            response = servingLongValue(pdu, occurrence: occurrence, recorded: response)
        }
        let scale = world.configuration.latencyScale
        if scale != 1 { latency = Int64((Double(latency) * scale).rounded()) }
        world.scheduler.schedule(after: latency + extraDelay, order: recorded?.packetID ?? Scheduler.unordered) { [self] in
            guard link.isUp, !silent else { return }
            host.deliver(response, on: link, bearer: bearer)
        }
    }
}
