import BLECore

/// The recorded central's side of one connection, as a script of anchored actions (Docs/replay.md
/// "Faithful replay"): what it sent on its own initiative, when it disconnected, and how its own
/// GATT server answered the peripheral.
public struct RecordedCentral: Sendable {
    public enum Action: Sendable {
        /// An ATT PDU sent on the central's initiative (request, command, notification, indication):
        /// a long one held by reference (`PDUBytes`).
        case send(PDUBytes)
        /// HCI Disconnect with this reason.
        case disconnect(reason: UInt8)
    }

    /// Every link's are held while it is up, so laid out with little padding: the words first,
    /// the enums and the optional after them (issue 17).
    public struct Step: Sendable {
        public var delay: Int64
        /// When it happened, from the connection's start (for time anchoring).
        public var offset: Int64
        public var packetID: Int
        public var action: Action
        public var anchor: Anchor
        /// The ATT bearer a `.send` goes on (`RecordedPDU.bearer`): nil for the fixed channel.
        public var bearer: UInt16? = nil

        public init(action: Action, anchor: Anchor, delay: Int64, offset: Int64, packetID: Int, bearer: UInt16? = nil) {
            self.delay = delay
            self.offset = offset
            self.packetID = packetID
            self.action = action
            self.anchor = anchor
            self.bearer = bearer
        }
    }

    public var connectionID: Int64
    public var steps: [Step]
    /// The central's answers to the peripheral's requests and indications.
    public var answers: AnswerTable
}
