import BLEAnalysis
import BLECore
import BLEDecode

/// The local GATT server's side of one link when an app plays it (CBPeripheralManager in
/// CoreBluetoothReplay): the peer's requests and commands reach `onPDU` instead of the recorded
/// answers, the app's answers go back through the host's ACL path (flow control included), and
/// each answer is compared with the one the recorded local server gave (Docs/peripheral.md).
///
/// ATT is one request at a time per bearer (Core v5.4 Vol 3 Part F 3.3.2): answers are taken in
/// the order the requests came. A request left unanswered for 30 s times the central's
/// transaction out (Vol 3 Part F 3.3.3); the central's host then drops the link, as iOS, Android
/// and BlueZ centrals do (0x13 at its next connection event).
public final class LocalServerLink {
    unowned let world: ReplayWorld
    /// The recorded central this link replays, when it is one.
    public let recorded: RemoteCentralModel?
    public private(set) weak var link: SimulatedLink?
    /// The remote central's device on a scripted central's link (`recorded` is nil there).
    public internal(set) var peer: SimulatedPeripheral?
    /// The central script playing the remote central on this link, when one does.
    public internal(set) weak var scriptedCentral: ScriptedRemoteCentral?
    /// Every request and command of the peer, in order (the app's server).
    public var onPDU: (([UInt8]) -> Void)?
    /// Answers that differ from the recorded server's, in order (the first is the divergence).
    public private(set) var divergences: [ServerDivergence] = []
    /// Requests answered and compared with a recorded answer; requests the recording lacks.
    public private(set) var compared = 0
    public private(set) var unrecorded = 0
    /// Requests that timed out unanswered.
    public private(set) var timeouts = 0
    /// Discovery answers not compared because recorded attributes moved or are missing in the
    /// app's database (`LocalHandleMap.isRelaidOut`): the system answers discovery from the app's layout.
    public private(set) var discoveryRelaidOut = 0
    var occurrences: [[UInt8]: Int] = [:]
    var commandOccurrences: [[UInt8]: Int] = [:]
    /// Whether the link is encrypted, as far as the central has come in its recording: true from
    /// the first request or command it recorded after the connection's Encryption Change
    /// (`RemoteCentralModel.encryptedFromPacketID`). The replay does not run the pairing itself
    /// (Docs/peripheral.md "Not modelled"); a scripted central's link is never encrypted.
    public private(set) var isEncrypted = false

    /// The recorded local server's database (`RecordedLocalServer.database`) and the app's, for
    /// mapping the recorded central's handles to the app's (`LocalHandleMap`).
    public var recordedDatabase: GATTDatabase?
    public var appDatabase: (() -> GATTDatabase)?
    private var cachedMap: (app: GATTDatabase, map: LocalHandleMap)?
    /// Requests as delivered (the app's handles) -> as recorded.
    private var originals: [[UInt8]: [UInt8]] = [:]

    struct Outstanding {
        var request: [UInt8]
        var at: VirtualTime
        var expected: RemoteCentralModel.Exchange?
        var timeout: Scheduler.EventID?
        /// Already reported: the request names an attribute the app's database lacks.
        var unmappable = false
    }
    var outstanding: [Outstanding] = []

    public init(world: ReplayWorld, recorded: RemoteCentralModel?) {
        self.world = world
        self.recorded = recorded
    }

    func attach(_ link: SimulatedLink) { self.link = link }

    var host: CentralHost { world.host }

    /// The ATT MTU in force on the link (23 until exchanged).
    public var mtu: Int { link?.mtu ?? 23 }

    /// The map from the recorded server's handles to the app's; nil without a recorded central or
    /// an app database.
    public var handleMap: LocalHandleMap? {
        guard recorded != nil, let r = recordedDatabase, !r.isEmpty, let app = appDatabase?() else { return nil }
        if let c = cachedMap, c.app == app { return c.map }
        let m = LocalHandleMap(recorded: r, app: app)
        cachedMap = (app, m)
        return m
    }

    /// A PDU of the recorded central, with the app's handles (what goes on the air).
    func towardApp(_ pdu: [UInt8]) -> [UInt8] {
        guard let m = handleMap, m.isRelaidOut else { return pdu }
        let mapped = m.towardApp(pdu)
        if !pdu.isEmpty, ATTOpcode(pdu[0]).kind == .request { originals[mapped] = pdu }
        return mapped
    }

    /// A PDU of the app's server as the recorded central names attributes.
    func towardRecorded(_ pdu: [UInt8]) -> [UInt8] {
        if let form = recordedForms.removeValue(forKey: pdu) { return form }
        return handleMap?.towardRecorded(pdu) ?? pdu
    }

    /// An answer as the recorded central names attributes: the app's handles mapped back, and an
    /// Error Response naming the handle of the request as the central sent it (Core v5.4 Vol 3
    /// Part F 3.4.1.1: the handle that generated the error, a range's starting handle).
    func recordedForm(of answer: [UInt8], answering original: [UInt8]) -> [UInt8] {
        guard let map = handleMap, map.isRelaidOut else { return answer }
        var form = map.towardRecorded(answer)
        if form.count >= 5, form[0] == ATTOpcode.errorResponse.rawValue, original.count >= 3,
           LocalHandleMap.handleAt1.contains(original[0]) || LocalHandleMap.rangeAt1.contains(original[0]) {
            form[2] = original[1]
            form[3] = original[2]
        }
        return form
    }
    /// Answers as sent -> as the recorded central names attributes (until they go out).
    private var recordedForms: [[UInt8]: [UInt8]] = [:]

    /// A PDU from the peer.
    func received(_ pdu: [UInt8]) {
        guard let link, link.isUp, !pdu.isEmpty else { return }
        // A command's recorded packet is looked up only while it can still turn encryption on:
        // the lookup scans the recording's commands (a central streaming Write Commands sends
        // thousands), and a recording that never encrypted has nothing to find.
        if ATTOpcode(pdu[0]).kind == .command, !isEncrypted, let recorded, recorded.encryptedFromPacketID != nil {
            let original = handleMap.map { $0.isRelaidOut ? $0.towardRecorded(pdu) : pdu } ?? pdu
            commandOccurrences[original, default: 0] += 1
            if let p = recorded.commandPacketID(for: original, occurrence: commandOccurrences[original]!), recorded.isEncrypted(at: p) {
                isEncrypted = true
            }
        }
        if ATTOpcode(pdu[0]).kind == .request {
            let original = originals.removeValue(forKey: pdu) ?? pdu
            occurrences[original, default: 0] += 1
            let expected = recorded?.exchange(for: original, occurrence: occurrences[original]!)
            if let e = expected, recorded?.isEncrypted(at: e.requestPacketID) == true { isEncrypted = true }
            var o = Outstanding(request: original, at: world.now, expected: expected, timeout: nil)
            if let missing = handleMap?.missingAttribute(in: original) {
                // Reported once, here; the app's server then refuses handle 0x0000.
                o.unmappable = true
                divergences.append(ServerDivergence(time: world.now, request: original, requestPacketID: expected?.requestPacketID ?? 0,
                                                    recorded: expected?.response, recordedPacketID: expected?.responsePacketID, answered: nil,
                                                    note: "\(missing) is not in the app's database"))
            }
            if outstanding.isEmpty { o.timeout = armTimeout() }
            outstanding.append(o)
        }
        onPDU?(pdu)
    }

    private func armTimeout() -> Scheduler.EventID {
        world.scheduler.schedule(after: CentralHost.attTimeout) { [self] in timedOut() }
    }

    /// The answer (Response or Error Response) to the oldest unanswered request. It goes out at
    /// the recorded answer's latency after the request (or now, when later or unrecorded), and
    /// from the moment it is given it holds its place on the bearer: a notification or indication
    /// the server sends before that instant follows it (`sendValue(_:confirmed:)`).
    public func respond(_ response: [UInt8]) {
        guard let link, link.isUp, !outstanding.isEmpty, !response.isEmpty else { return }
        let o = outstanding.removeFirst()
        world.scheduler.cancel(o.timeout)
        if !outstanding.isEmpty { outstanding[0].timeout = armTimeout() }
        let form = recordedForm(of: response, answering: o.request)
        if form != response { recordedForms[response] = form }
        compare(o, response, recordedForm: form)
        let at = max(world.now, o.at.saturatingAdding(o.expected?.latency ?? 0))
        nextOutgoing += 1
        let id = nextOutgoing
        outgoing.append(Outgoing(id: id, pdu: response, request: o.request, due: false, confirmed: nil))
        world.scheduler.schedule(at: at, order: o.expected?.responsePacketID ?? Scheduler.unordered) { [self] in
            if let i = outgoing.firstIndex(where: { $0.id == id }) { outgoing[i].due = true }
            sendDue(on: link)
        }
    }

    /// What the server gave the bearer and is not on the link yet, in the order given: answers
    /// waiting for their instant (`respond(_:)`), and the notifications and indications sent
    /// after them, which wait behind them. ATT is sequential (Core v5.4 Vol 3 Part F 3.3.2) and a
    /// server's PDUs go out in the order its host queued them: iOS answers a CCCD write before it
    /// calls `peripheralManager(_:central:didSubscribeTo:)` (Docs/peripheral.md
    /// "Subscriptions"), so a value the app sends from there goes after the Write Response, at
    /// its instant, not before it.
    struct Outgoing {
        var id: Int
        var pdu: [UInt8]
        /// The request an answer answers; nil for a notification or indication.
        var request: [UInt8]?
        /// An answer whose instant came, or a value (due once the answers before it are out).
        var due: Bool
        var confirmed: ((ATTResult) -> Void)?
    }
    private var outgoing: [Outgoing] = []
    private var nextOutgoing = 0

    /// Hands the host what is due, in order, up to the first answer still waiting for its instant.
    private func sendDue(on link: SimulatedLink) {
        while let first = outgoing.first, first.due {
            outgoing.removeFirst()
            guard let request = first.request else {
                host.send(first.pdu, on: link, completion: first.confirmed)   // a link gone down fails an indication
                continue
            }
            guard link.isUp else { continue }
            let response = first.pdu
            if request[0] == ATTOpcode.exchangeMTURequest.rawValue, request.count >= 3, response.count >= 3,
               response[0] == ATTOpcode.exchangeMTUResponse.rawValue {
                host.updateMTU(link, client: Int(request[1]) | Int(request[2]) << 8,
                               server: Int(response[1]) | Int(response[2]) << 8)
            }
            host.enqueue(response, on: link, onSent: nil)
        }
    }

    /// Whether a notification would go out now: a free controller buffer and nothing of this
    /// link queued (the host asks for `linkIsReadyToSendWriteWithoutResponse` when not). While
    /// PDUs wait behind an answer (`Outgoing`), they count as queued once they would fill the
    /// controller's free buffers when they go: up to then a value joins them, as it would join
    /// the queue of a controller with room.
    public func canSendValue() -> Bool {
        guard let link else { return false }
        guard host.canSendWriteWithoutResponse(link) else { return false }
        guard !outgoing.isEmpty else { return true }
        let size = world.configuration.aclBufferSize
        let waiting = outgoing.reduce(0) { $0 + HCIPacketBuilder.aclFragmentCount(payloadCount: $1.pdu.count, fragmentSize: size) }
        if waiting < host.freeBuffers { return true }
        host.waitForWriteReady(link)
        return false
    }

    /// Sends a Handle Value Notification or Indication; `confirmed` runs at the confirmation. It
    /// goes now, or after the answers given before it that wait for their instant (`Outgoing`).
    public func sendValue(_ pdu: [UInt8], confirmed: ((ATTResult) -> Void)? = nil) {
        guard let link, link.isUp else { return }
        guard !outgoing.isEmpty else {
            host.send(pdu, on: link, completion: confirmed)
            return
        }
        nextOutgoing += 1
        outgoing.append(Outgoing(id: nextOutgoing, pdu: pdu, request: nil, due: true, confirmed: confirmed))
    }

    func compare(_ o: Outstanding, _ answer: [UInt8], recordedForm response: [UInt8]) {
        guard let e = o.expected else {
            unrecorded += 1
            return
        }
        compared += 1
        if o.unmappable { return }
        let map = handleMap
        if let map, map.isRelaidOut, Self.isDiscovery(o.request) {
            discoveryRelaidOut += 1
            return
        }
        if e.response != response {
            divergences.append(ServerDivergence(time: world.now, request: o.request, requestPacketID: e.requestPacketID,
                                                recorded: e.response, recordedPacketID: e.responsePacketID, answered: answer))
        }
    }

    /// Discovery requests (Find Information, Find By Type Value, Read By Type, Read By Group Type):
    /// the system answers them from the app's layout.
    static func isDiscovery(_ request: [UInt8]) -> Bool {
        guard let op = request.first else { return false }
        return [0x04, 0x06, 0x08, 0x10].contains(op)
    }

    private func timedOut() {
        guard let link, link.isUp, let o = outstanding.first else { return }
        timeouts += 1
        outstanding.removeAll()
        if let e = o.expected {
            compared += 1
            // The recorded server did not answer either: the same silence, not a divergence.
            if e.response != nil { divergences.append(ServerDivergence(time: world.now, request: o.request, requestPacketID: e.requestPacketID,
                                                recorded: e.response, recordedPacketID: e.responsePacketID, answered: nil)) }
        }
        world.scheduler.schedule(at: link.nextConnectionEvent(after: world.now)) { [self] in
            host.peerTerminated(link, reason: HCIStatusCode(0x13))
        }
    }
}

/// An answer of the app's server that differs from the recorded server's.
public struct ServerDivergence: Sendable, CustomStringConvertible {
    public var time: VirtualTime
    public var request: [UInt8]
    public var requestPacketID: Int
    /// The recorded answer and its packet; nil when the recording has none.
    public var recorded: [UInt8]?
    public var recordedPacketID: Int?
    /// What the app's server answered; nil when it never did (the central's ATT timeout).
    public var answered: [UInt8]?
    /// Why the request could not be put to the app's server as recorded (an attribute its
    /// database lacks, `LocalHandleMap`).
    public var note: String?

    public init(time: VirtualTime, request: [UInt8], requestPacketID: Int, recorded: [UInt8]?, recordedPacketID: Int?,
                answered: [UInt8]?, note: String? = nil) {
        self.time = time
        self.request = request
        self.requestPacketID = requestPacketID
        self.recorded = recorded
        self.recordedPacketID = recordedPacketID
        self.answered = answered
        self.note = note
    }

    public var description: String {
        if let note { return "packet \(requestPacketID) \(ATTMatchKey(pdu: request)): \(note)" }
        let was = recorded.map { "\(Self.summary($0))" + (recordedPacketID.map { " (packet \($0))" } ?? "") } ?? "nothing"
        let now = answered.map(Self.summary) ?? "nothing within 30 s (the central's ATT timeout)"
        return "packet \(requestPacketID) \(ATTMatchKey(pdu: request)): recorded \(was), the app answered \(now)"
    }

    /// `Read Response 06 48`, `Error Response 0x03 Write Not Permitted`.
    public static func summary(_ pdu: [UInt8]) -> String {
        guard let first = pdu.first else { return "an empty PDU" }
        let op = ATTOpcode(first)
        if op == .errorResponse, pdu.count >= 5 {
            let code = ATTErrorCode(pdu[4])
            return "Error Response \(hex(code.rawValue)) \(code.name)"
        }
        let value = pdu.dropFirst()
        if value.isEmpty { return op.name }
        let shown = value.prefix(16).map(hex2).joined(separator: " ")
        return "\(op.name) \(shown)\(value.count > 16 ? " …" : "")"
    }
}
