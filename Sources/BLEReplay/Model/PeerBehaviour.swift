import BLECore

/// How the remote device behaved during one recorded connection: the peripheral model's unit
/// (DESIGN.md "Replay semantics", recorded peripheral model; Docs/replay.md "Peripheral model").
public struct PeerBehaviour: Sendable {
    /// How the link ended, seen from the peripheral.
    public enum Ending: Sendable, CustomStringConvertible {
        /// The capture ended with the link up.
        case stillConnected
        /// The central ended it (the peripheral did nothing to end it).
        case centralTerminated
        /// The radio went silent at `delay` after `anchor`; the central's controller reports
        /// 0x08 one supervision timeout later (`detection` overrides that when the recording
        /// shows a different gap).
        case linkLoss(anchor: Anchor, delay: Int64, detection: Int64?)
        /// The peripheral (or its controller) ended the link with `reason` at `delay` after `anchor`.
        case terminated(reason: HCIStatusCode, anchor: Anchor, delay: Int64)

        public var description: String {
            switch self {
            case .stillConnected: return "still connected when the capture ended"
            case .centralTerminated: return "the central disconnected"
            case .linkLoss(let anchor, let delay, let detection):
                let after = detection.map { "\(VirtualDuration.short($0)) later" } ?? "one supervision timeout later"
                return "silent \(VirtualDuration.short(delay)) after \(anchor), then 0x08 Connection Timeout \(after)"
            case .terminated(let reason, let anchor, let delay):
                return "ended with \(hex(reason.rawValue)) \(reason.name) \(VirtualDuration.short(delay)) after \(anchor)"
            }
        }
    }

    /// The recorded connection (timeline `connection.id`) this behaviour comes from.
    public var connectionID: Int64
    public var answers: AnswerTable
    /// Notifications, indications and the peripheral's own requests, in recorded order.
    public var actions: [AnchoredPDU]
    public var ending: Ending
    /// When the ending began (radio silence or termination), from the connection's start.
    public var endingOffset: Int64?
    /// When the central disconnects: how long until Disconnection Complete, and its reason.
    public var terminationDelay: Int64
    public var terminationReason: HCIStatusCode
    /// True when the recorded central sent HCI Disconnect and the capture ended before the
    /// controller reported Disconnection Complete (Core v5.4 Vol 4 Part E 7.1.6, 7.7.5): the
    /// recording shows the link still up, so a faithful replay of that Disconnect must not end it
    /// (`terminationDelay` then only serves centrals that were not recorded).
    public var disconnectUnfinished: Bool
    /// Parameters at the start and their recorded changes (offset from the link start).
    public var parameters: ConnectionParameters
    public var parameterUpdates: [(offset: Int64, parameters: ConnectionParameters)]
    /// The ATT MTU the peripheral offers when asked (Server Rx MTU), if the recording shows it.
    public var serverRxMTU: Int?
    /// Typical answer latency (median of the recorded ones), used for answers made up from the database.
    public var typicalLatency: Int64

    public init(connectionID: Int64, answers: AnswerTable, actions: [AnchoredPDU], ending: Ending, endingOffset: Int64?,
                terminationDelay: Int64, terminationReason: HCIStatusCode, parameters: ConnectionParameters,
                parameterUpdates: [(offset: Int64, parameters: ConnectionParameters)], serverRxMTU: Int?,
                typicalLatency: Int64, disconnectUnfinished: Bool = false) {
        self.connectionID = connectionID
        self.answers = answers
        self.actions = actions
        self.ending = ending
        self.endingOffset = endingOffset
        self.terminationDelay = terminationDelay
        self.terminationReason = terminationReason
        self.disconnectUnfinished = disconnectUnfinished
        self.parameters = parameters
        self.parameterUpdates = parameterUpdates
        self.serverRxMTU = serverRxMTU
        self.typicalLatency = typicalLatency
    }
}
