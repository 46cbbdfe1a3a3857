import BLECore
import BLEDecode

/// One ATT PDU as it crossed a simulated link.
///
/// Every link's are held to the end of the run (the comparison reads them), so laid out without
/// padding: the frame number in 32 bits, the 1-byte flag after the optional's tag, 24 bytes where
/// it was 40 (issue 17).
public struct LoggedPDU: Sendable {
    /// Microseconds since the link came up.
    public var time: Int64
    /// The PDU: one of the recording's long PDUs by reference (`PDUBytes`, `ReplayWorld.pduSource`).
    public var data: PDUBytes
    /// `frame`: a capture's frame numbers are below 2^32 (`PacketKey.frameBits`).
    private var frameNumber: UInt32
    /// The ATT bearer (`RecordedPDU.bearer`): nil for the fixed channel 0x0004.
    public var bearer: UInt16? = nil
    public var fromCentral: Bool

    /// Frame number of its (last) ACL record in the simulated capture.
    public var frame: Int {
        get { Int(frameNumber) }
        set { frameNumber = UInt32(truncatingIfNeeded: newValue) }
    }

    public init(time: Int64, fromCentral: Bool, data: PDUBytes, frame: Int, bearer: UInt16? = nil) {
        self.time = time
        self.data = data
        frameNumber = UInt32(truncatingIfNeeded: frame)
        self.bearer = bearer
        self.fromCentral = fromCentral
    }

    /// The whole PDU (a long one read back from the timeline).
    public var bytes: [UInt8] { data.bytes }
}

/// What a simulated link is: an LE link, or a BR/EDR ACL link carrying ATT on PSM 0x001F.
public enum LinkTransport: Sendable, Equatable {
    case le
    /// Core v5.4 Vol 4 Part E 7.7.3 Connection Complete; no LE connection parameters, the link
    /// supervision timeout of Write Link Supervision Timeout (7.3.42) instead.
    case bredr
}

/// What an ATT request came to.
public enum ATTResult: Sendable {
    case response([UInt8])
    case error(ATTErrorResponse)
    /// No answer within 30 s (Core v5.4 Vol 3 Part F 3.3.3).
    case timeout
    /// The link went down first, or an earlier timeout closed the bearer.
    case disconnected
}

/// A simulated LE connection between the central host and one peripheral.
public final class SimulatedLink {
    public let peripheral: SimulatedPeripheral
    public let establishedAt: VirtualTime
    // The 1-, 2- and 4-byte fields beside the optionals' tags and each other, not each in a word
    // of its own: 168 bytes, a 176-byte allocation, where it was 200 and 208 (issue 17).
    public let handle: UInt16
    /// The controller whose handle it is (the recording's, in a capture of several adapters); its
    /// packets are traced on it.
    public internal(set) var controller: UInt16 = 0
    /// Where `CentralHost.links` holds it while it is up; -1 after.
    var hostSlot: Int32 = -1
    /// Which of the peripheral's behaviours it plays (`behaviourConnectionID`); -1: none.
    private let behaviourIndex: Int32
    /// True once an MTU exchange completed on this link (the MTU is then known, not assumed).
    public internal(set) var mtuExchanged = false
    /// Whether the host models the link's security (pairs when a request needs it, as iOS does;
    /// CentralHost+Security.swift). Off for faithful replays and scripts, which keep every
    /// recorded answer in recorded order.
    public internal(set) var securityModelled = false
    /// True once the modelled pairing encrypted the link.
    public internal(set) var isEncrypted = false
    public internal(set) var isUp = true
    /// `mtu` (an exchanged MTU is a 16-bit field, Core v5.4 Vol 3 Part F 3.4.2).
    private var exchangedMTU: UInt16 = 23
    /// `packetsSent`.
    private var sentCount: Int32 = 0
    public internal(set) var parameters: ConnectionParameters
    /// Negotiated ATT MTU (23 until exchanged).
    public internal(set) var mtu: Int {
        get { Int(exchangedMTU) }
        set { exchangedMTU = UInt16(clamping: newValue) }
    }
    public internal(set) var endedAt: VirtualTime?
    public internal(set) var endReason: HCIStatusCode?
    /// True when the central asked for the disconnection.
    public internal(set) var centralRequestedDisconnect = false
    /// True when an ATT transaction timed out on the fixed channel (the host then closes the
    /// bearer and, by default, disconnects). A timeout on an Enhanced ATT bearer closes that
    /// bearer only (`ATTClientBearer`) and does not set it.
    public internal(set) var attTimedOut = false
    /// The transport (LE, or BR/EDR for GATT over BR/EDR, Core v5.4 Vol 3 Part G 2.1).
    public let transport: LinkTransport
    /// The local controller's role, as LE Connection Complete reports it (Core v5.4 Vol 4 Part E
    /// 7.7.65.1): false when the peer is a remote central and the local device its peripheral.
    public let localCentral: Bool
    /// The peer stopped reading (`stop-reading` fault): packets sent from then on stay in the
    /// controller's buffers unacknowledged (`stuckPackets` of `packetsInFlight`) and never reach it.
    public internal(set) var peerStoppedReading = false

    /// The CBError code an app sees when this link ends with `reason` (REFERENCE.md mapping):
    /// nil after the app's own disconnection; connectionTimeout when the host disconnected
    /// because an ATT transaction timed out.
    public func cbError(for reason: HCIStatusCode, mapping: DisconnectMapping) -> Int? {
        if attTimedOut && reason.rawValue == 0x16 { return 6 }
        return mapping.cbError(for: reason, cancelledByApp: centralRequestedDisconnect)
    }
    /// Every ATT PDU exchanged, in order, on every bearer.
    public internal(set) var log: [LoggedPDU] = []
    /// The local GATT server when an app plays it (CBPeripheralManager): the peer's requests and
    /// commands go to it instead of the recorded answers (Server/LocalServerLink.swift).
    public let localServer: LocalServerLink?

    /// `stuckPackets` and `packetsInFlight`: no more than the controller's buffers.
    private var stuckCount: Int32 = 0
    private var inFlightCount: Int32 = 0

    // Link-layer timing: connection events at `eventAnchor + k * interval`.
    var eventAnchor: VirtualTime
    /// The central's ATT client bearers (`ATTClientBearer`): nil is the fixed channel 0x0004,
    /// else the bearer's L2CAP channel (Enhanced ATT, or ATT over BR/EDR).
    var clientBearers: [UInt16?: ATTClientBearer] = [:]
    var completionEvent: Scheduler.EventID?
    var disconnectPending = false
    var wantsWriteReady = false
    /// Faithful replay: where in its world's `completionTimes` are the times the recorded
    /// controller returned each buffer (µs from the link's start, one per packet,
    /// `RecordedCompletions`); packets beyond them use the event grid.
    var recordedCompletions: Range<Int32> = 0..<0
    /// What few links need (`Occasional`), made when first written.
    private var occasionalState: Occasional?

    /// What few links need, apart (issue 17: inline they made a link 225 bytes, a 240-byte
    /// allocation): the modelled pairing's waiters, the central's
    /// own indications waiting for their confirmation, and a disconnection on its way.
    final class Occasional {
        var pairingWaiters: [(Result<Void, SecurityFailure>) -> Void]?
        var indicationCompletions: [(bearer: UInt16?, completion: (ATTResult) -> Void)] = []
        var disconnectEvent: Scheduler.EventID?
        var controllerClosed: (note: String, frame: Int)?
    }

    /// Which recorded connection the peripheral behaves like (timeline `connection.id`).
    public var behaviourConnectionID: Int64? {
        behaviourIndex < 0 ? nil : peripheral.model.behaviours[Int(behaviourIndex)].connectionID
    }
    /// Packets the host handed to the controller on this link.
    var packetsSent: Int {
        get { Int(sentCount) }
        set { sentCount = Int32(truncatingIfNeeded: newValue) }
    }
    /// Packets sent and not yet reported complete (the controller's buffers they hold).
    var packetsInFlight: Int {
        get { Int(inFlightCount) }
        set { inFlightCount = Int32(truncatingIfNeeded: newValue) }
    }
    /// Packets sent after the peer stopped reading, of `packetsInFlight`: never acknowledged.
    var stuckPackets: Int {
        get { Int(stuckCount) }
        set { stuckCount = Int32(truncatingIfNeeded: newValue) }
    }

    /// `occasionalState`, made now if it was not.
    private var occasional: Occasional {
        if let occasionalState { return occasionalState }
        let made = Occasional()
        occasionalState = made
        return made
    }

    /// Who waits for the modelled pairing to finish (CentralHost+Security.swift).
    var pairingWaiters: [(Result<Void, SecurityFailure>) -> Void]? {
        get { occasionalState?.pairingWaiters }
        set { if newValue != nil || occasionalState != nil { occasional.pairingWaiters = newValue } }
    }
    /// The central's own indications waiting for their confirmation (its server side), with the
    /// bearer each went on: a confirmation answers the indication of its own bearer.
    var indicationCompletions: [(bearer: UInt16?, completion: (ATTResult) -> Void)] {
        get { occasionalState?.indicationCompletions ?? [] }
        set { if !newValue.isEmpty || occasionalState != nil { occasional.indicationCompletions = newValue } }
    }
    /// The link ended with its controller (`CentralHost.closeController`): what closed it
    /// (`ControllerClosing.note`) and its frame in the simulated capture. `endReason` is then nil:
    /// no Disconnection Complete, no reason.
    public internal(set) var controllerClosed: (note: String, frame: Int)? {
        get { occasionalState?.controllerClosed }
        set { if newValue != nil || occasionalState != nil { occasional.controllerClosed = newValue } }
    }
    /// The link's disconnection, once scheduled.
    var disconnectEvent: Scheduler.EventID? {
        get { occasionalState?.disconnectEvent }
        set { if newValue != nil || occasionalState != nil { occasional.disconnectEvent = newValue } }
    }

    init(handle: UInt16, peripheral: SimulatedPeripheral, establishedAt: VirtualTime, parameters: ConnectionParameters,
         behaviour: Int?, localCentral: Bool = true, localServer: LocalServerLink? = nil, transport: LinkTransport = .le) {
        // Fixed for the link's life, so `let`: read for every PDU, a `var` cost a dynamic
        // exclusivity check each time (issue 12).
        self.localCentral = localCentral
        self.localServer = localServer
        self.transport = transport
        self.handle = handle
        self.peripheral = peripheral
        self.establishedAt = establishedAt
        self.parameters = parameters
        self.eventAnchor = establishedAt
        behaviourIndex = behaviour.map { Int32($0) } ?? -1
    }

    /// The first connection event after `time`.
    public func nextConnectionEvent(after time: VirtualTime) -> VirtualTime {
        let interval = max(1, parameters.interval)
        let elapsed = time.saturatingSubtracting(eventAnchor)
        return eventAnchor.saturatingAdding((elapsed / interval).saturatingAdding(1).saturatingMultiplied(by: interval))
    }

    /// Time since the link came up.
    public func relative(_ time: VirtualTime) -> Int64 { time.saturatingSubtracting(establishedAt) }

    /// Drops the PDUs logged so far, once the link's verdict is made and nothing reads them
    /// (`FaithfulReplay.run(_:configuration:keepingVerdicts:releasingLinks:each:)`).
    func releaseLog() { log = [] }
}
