import BLECore

/// How the remote device behaved during one recorded connection: the peripheral model's unit
/// (DESIGN.md "Replay semantics", recorded peripheral model; Docs/replay.md "Peripheral model").
public struct PeerBehaviour: Sendable {
    /// How the link ended, seen from the peripheral.
    ///
    /// The two endings with an anchor are held apart (`indirect`): inline they made the enum 42
    /// bytes and a behaviour 136; apart it is a word (issue 17: every link of a capture of many
    /// links holds one to the end of the run, and few links end either way).
    public enum Ending: Sendable, CustomStringConvertible {
        /// The capture ended with the link up.
        case stillConnected
        /// The central ended it (the peripheral did nothing to end it).
        case centralTerminated
        /// The radio went silent at `delay` after `anchor`; the central's controller reports
        /// 0x08 one supervision timeout later (`detection` overrides that when the recording
        /// shows a different gap).
        indirect case linkLoss(anchor: Anchor, delay: Int64, detection: Int64?)
        /// The peripheral (or its controller) ended the link with `reason` at `delay` after `anchor`.
        indirect case terminated(reason: HCIStatusCode, anchor: Anchor, delay: Int64)
        /// The local controller took the link with it (Close Index, Delete Index, HCI Reset): no
        /// LL_TERMINATE_IND, no Disconnection Complete, no reason. The local side's doing, not the
        /// peripheral's: a faithful replay closes the controller at the recorded instant
        /// (`RecordedCentralDriver`); the peripheral does nothing to end the link.
        indirect case controllerClosed(ControllerClosing)

        public var description: String { description(localPeripheral: false) }

        /// The rule worded from the real roles. The model's "peripheral" is the remote device and
        /// its "central" the local host: on a link where the local device was the peripheral
        /// (LE Connection Complete role 0x01, Core v5.4 Vol 4 Part E 7.7.65.1) the central that
        /// disconnected is the local peripheral and the one that ended it the remote central.
        public func description(localPeripheral: Bool) -> String {
            guard localPeripheral else { return centralView }
            switch self {
            case .stillConnected, .controllerClosed: return centralView
            case .centralTerminated: return "the local peripheral disconnected"
            case .linkLoss: return "the remote central went \(centralView)"
            case .terminated: return "the remote central \(centralView)"
            }
        }

        private var centralView: String {
            switch self {
            case .stillConnected: return "still connected when the capture ended"
            case .centralTerminated: return "the central disconnected"
            case .linkLoss(let anchor, let delay, let detection):
                let after = detection.map { "\(VirtualDuration.short($0)) later" } ?? "one supervision timeout later"
                return "silent \(VirtualDuration.short(delay)) after \(anchor), then 0x08 Connection Timeout \(after)"
            case .terminated(let reason, let anchor, let delay):
                return "ended with \(hex(reason.rawValue)) \(reason.name) \(VirtualDuration.short(delay)) after \(anchor)"
            case .controllerClosed(let closing):
                return "none: " + ControllerClosing.what(closing.note, at: "packet \(closing.packetID)")
                    + ", \(VirtualDuration.short(closing.time)) into the connection: no LL_TERMINATE_IND, " + ControllerClosing.noReason
            }
        }
    }

    /// The recorded connection (timeline `connection.id`) this behaviour comes from.
    public var connectionID: Int64
    public var answers: AnswerTable
    /// Notifications, indications and the peripheral's own requests, in recorded order.
    public var actions: [AnchoredPDU]
    public var ending: Ending
    /// `endingOffset`, when `hasEndingOffset`.
    private var endingOffsetValue: Int64
    /// When the central disconnects: how long until Disconnection Complete, and its reason.
    public var terminationDelay: Int64
    /// Parameters at the start and their recorded changes (offset from the link start).
    public var parameters: ConnectionParameters
    // The 1-byte fields in the parameters' last word, not in one of their own: 88 bytes where
    // it was 96 (issue 17).
    private var hasEndingOffset: Bool
    /// When the central disconnects: Disconnection Complete's reason (`terminationDelay`).
    public var terminationReason: HCIStatusCode
    /// True when the recorded central sent HCI Disconnect and the capture ended before the
    /// controller reported Disconnection Complete (Core v5.4 Vol 4 Part E 7.1.6, 7.7.5): the
    /// recording shows the link still up, so a faithful replay of that Disconnect must not end it
    /// (`terminationDelay` then only serves centrals that were not recorded).
    public var disconnectUnfinished: Bool
    /// When the ending began (radio silence or termination), from the connection's start.
    public var endingOffset: Int64? {
        get { hasEndingOffset ? endingOffsetValue : nil }
        set {
            hasEndingOffset = newValue != nil
            endingOffsetValue = newValue ?? 0
        }
    }
    public var parameterUpdates: [(offset: Int64, parameters: ConnectionParameters)] {
        get { occasional?.parameterUpdates ?? [] }
        set { updateOccasional { $0.parameterUpdates = newValue } }
    }
    /// The recorded controller events replayed as they were, changing nothing (`RecordedLinkEvent`).
    public var linkEvents: [RecordedLinkEvent] {
        get { occasional?.linkEvents ?? [] }
        set { updateOccasional { $0.linkEvents = newValue } }
    }
    /// The ATT MTU the peripheral offers when asked (Server Rx MTU), if the recording shows it.
    public var serverRxMTU: Int? {
        get { occasional?.serverRxMTU }
        set { updateOccasional { $0.serverRxMTU = newValue } }
    }
    /// Typical answer latency (median of the recorded ones), used for answers made up from the database.
    public var typicalLatency: Int64
    /// Long values the recording read (Read Response + Read Blob Responses), per Read Request
    /// bytes and occurrence: served whole, cut at the replay's MTU (BehaviourExtractor.LongRead).
    public var longReads: [[UInt8]: [Int: [UInt8]]] {
        get { occasional?.longReads ?? [:] }
        set { updateOccasional { $0.longReads = newValue } }
    }
    /// What the system's pairing came to on this connection, as recorded (SecurityOutcome).
    public var security: SecurityOutcome {
        get { occasional?.security ?? .notRecorded }
        set { updateOccasional { $0.security = newValue } }
    }
    /// Every value the recording shows per attribute handle on this connection, with its offset
    /// from the connection start (ValueHistory).
    public var valueHistory: ValueHistory {
        get { occasional?.valueHistory ?? ValueHistory() }
        set { updateOccasional { $0.valueHistory = newValue } }
    }
    /// The answers split by the link's encryption when the request was sent: before the first
    /// recorded Encryption Change that turned encryption on, and after it. Used when the replay
    /// models the link's security (CoreBluetoothReplay); `answers` holds them all.
    public var plainAnswers: AnswerTable {
        get { occasional?.plainAnswers ?? AnswerTable() }
        set { updateOccasional { $0.plainAnswers = newValue } }
    }
    public var encryptedAnswers: AnswerTable {
        get { occasional?.encryptedAnswers ?? AnswerTable() }
        set { updateOccasional { $0.encryptedAnswers = newValue } }
    }
    /// What many behaviours lack (`Occasional`), held apart: nil when all of it is empty.
    private var occasional: OccasionalBox?

    public init(connectionID: Int64, answers: AnswerTable, actions: [AnchoredPDU], ending: Ending, endingOffset: Int64?,
                terminationDelay: Int64, terminationReason: HCIStatusCode, parameters: ConnectionParameters,
                parameterUpdates: [(offset: Int64, parameters: ConnectionParameters)], serverRxMTU: Int?,
                typicalLatency: Int64, disconnectUnfinished: Bool = false) {
        self.connectionID = connectionID
        self.answers = answers
        self.actions = actions
        self.ending = ending
        hasEndingOffset = endingOffset != nil
        endingOffsetValue = endingOffset ?? 0
        self.terminationDelay = terminationDelay
        self.terminationReason = terminationReason
        self.disconnectUnfinished = disconnectUnfinished
        self.parameters = parameters
        self.typicalLatency = typicalLatency
        updateOccasional {
            $0.parameterUpdates = parameterUpdates
            $0.serverRxMTU = serverRxMTU
        }
    }

    /// Changes what is held apart (`Occasional`) in one step: a new box, or none when it is empty.
    mutating func updateOccasional(_ change: (inout Occasional) -> Void) {
        var o = occasional?.fields ?? Occasional()
        change(&o)
        occasional = o.isEmpty ? nil : OccasionalBox(o)
    }
}

/// What pairing and encryption came to on a recorded connection, seen from the central
/// (Core v5.4 Vol 3 Part H 2.4; Vol 4 Part E 7.7.8), timed from the first pairing step.
public enum SecurityOutcome: Sendable, Equatable {
    /// The recording shows no pairing and no encryption: what the peer would do is unknown.
    case notRecorded
    /// The link was encrypted `after` microseconds (pairing, or a stored key, then Encryption Change).
    case encrypted(after: Int64)
    /// SMP Pairing Failed with `reason` after `after` microseconds.
    case pairingFailed(reason: UInt8, after: Int64)
    /// Encryption Change with a failing HCI status (0x06 PIN or Key Missing: the peer lost the bond).
    case encryptionFailed(status: UInt8, after: Int64)

    /// The outcome of a connection's recorded security events: the first failure or the first
    /// Encryption Change that turned encryption on, timed from the first pairing step before it
    /// (else from the request the peer refused for lack of security, `trigger`).
    public init(_ events: [RecordedSecurityEvent], trigger: Int64?) {
        self = .notRecorded
        var start: Int64?
        for e in events {
            switch e.kind {
            case .pairingStarted:
                if start == nil { start = e.time }
            case .pairingFailed(let reason):
                self = .pairingFailed(reason: reason, after: max(0, e.time.saturatingSubtracting(start ?? trigger ?? e.time)))
                return
            case .encryptionChange(let status, let enabled):
                if status != 0 {
                    self = .encryptionFailed(status: status, after: max(0, e.time.saturatingSubtracting(start ?? trigger ?? e.time)))
                    return
                }
                if enabled {
                    self = .encrypted(after: max(0, e.time.saturatingSubtracting(start ?? trigger ?? e.time)))
                    return
                }
            }
        }
    }
}
