import BLEAnalysis
import BLECore
import BLETimeline

/// One ATT PDU of a recorded connection, timed from the connection's origin.
///
/// Every connection's are held through the whole replay, so laid out without padding: the packet
/// (frame) number in 32 bits, the 1-byte flag after the optional's tag, 24 bytes where it was 40
/// (issue 17).
public struct RecordedPDU: Sendable {
    /// Microseconds since the connection's origin.
    public var time: Int64
    /// The PDU: inline, or for a long one a reference read back on demand (`PDUBytes`).
    public var data: PDUBytes
    /// `packetID`: a capture's frame numbers are below 2^32 (`PacketKey.frameBits`).
    private var packetNumber: UInt32
    /// The ATT bearer it travelled on (`ATTBearer`): nil for the fixed channel 0x0004, else the
    /// L2CAP channel of an Enhanced ATT bearer (Core v5.4 Vol 3 Part G 5.4) or of ATT over BR/EDR
    /// (PSM 0x001F, Part G 5.1), named by the requester's Source CID as the timeline names it.
    public var bearer: UInt16? = nil
    /// True when the local host (the central) sent it.
    public var fromCentral: Bool

    /// The packet (frame number in its capture) that carried it.
    public var packetID: Int {
        get { Int(packetNumber) }
        set { packetNumber = UInt32(truncatingIfNeeded: newValue) }
    }

    /// The whole PDU (a long one read back from the timeline).
    public var bytes: [UInt8] {
        get { data.bytes }
        set { data = PDUBytes(newValue) }
    }

    public init(packetID: Int, time: Int64, fromCentral: Bool, data: PDUBytes, bearer: UInt16? = nil) {
        packetNumber = UInt32(truncatingIfNeeded: packetID)
        self.time = time
        self.fromCentral = fromCentral
        self.data = data
        self.bearer = bearer
    }

    public init(packetID: Int, time: Int64, fromCentral: Bool, bytes: [UInt8], bearer: UInt16? = nil) {
        self.init(packetID: packetID, time: time, fromCentral: fromCentral, data: PDUBytes(bytes), bearer: bearer)
    }
}

/// One connection (or connection attempt) of a capture, as the timeline recorded it.
///
/// Held for every link of a capture through the whole replay, so laid out to be small (issue 17):
/// the fields in an order that leaves little padding (the 1-byte ones beside the optionals'
/// tags), the usual label of an unnamed peer made when asked for, not stored, and what many
/// connections lack held apart (RecordedConnection+Occasional.swift).
public struct RecordedConnection: Sendable {
    public var id: Int64
    /// Unix microseconds of the connection's time zero: LE Connection Complete, or the first
    /// packet of a connection that began before the capture.
    public var origin: Int64
    /// Offset of `origin` from the session's start.
    public var offset: VirtualTime
    /// The last moment the recording covers for this connection (from the origin).
    public var end: Int64
    /// SMP packets seen (pairing is not simulated; reported so a reader knows).
    public var smpPackets: Int {
        get { occasional?.fields.smpPackets ?? 0 }
        set { updateOccasional { $0.smpPackets = newValue } }
    }
    public var parameterUpdates: [(offset: Int64, parameters: ConnectionParameters, packetID: Int)] {
        get { occasional?.fields.parameterUpdates ?? [] }
        set { updateOccasional { $0.parameterUpdates = newValue } }
    }
    /// The controller events the replay writes as recorded, in order (`RecordedLinkEvent`).
    public var linkEvents: [RecordedLinkEvent] {
        get { occasional?.fields.linkEvents ?? [] }
        set { updateOccasional { $0.linkEvents = newValue } }
    }
    /// The LE Connection Update Completes with a non-zero status: the link kept its parameters.
    public var refusedUpdates: [RefusedConnectionUpdate] {
        linkEvents.compactMap { if case .refusedConnectionUpdate(let u) = $0 { u } else { nil } }
    }
    /// The LE PHY Update Completes.
    public var phyUpdates: [PHYUpdate] { linkEvents.compactMap { if case .phyUpdate(let u) = $0 { u } else { nil } } }
    public var pdus: [RecordedPDU]
    /// Pairing and encryption as the recording shows them, in order (RecordedSecurityEvent).
    public var security: [RecordedSecurityEvent] {
        get { occasional?.fields.security ?? [] }
        set { updateOccasional { $0.security = newValue } }
    }
    /// Where this link's buffer returns are in its session's `completionTimes` (its session's
    /// `completions(of:)`): a range, not a list of its own (issue 17: 64 bytes a link).
    public var completionRange: Range<Int32> = 0..<0
    // The 1- and 2-byte fields after each optional's tag, not in words of their own: 128 bytes
    // where it was 152 (issue 17).
    public var parameters: ConnectionParameters?
    /// `peerLabel` when it is not the one `unnamedLabel` makes.
    private var storedLabel: String? {
        get { occasional?.fields.storedLabel }
        set { updateOccasional { $0.storedLabel = newValue } }
    }
    /// When the central asked for it (LE Create Connection), from the session's start.
    public var createOffset: VirtualTime? {
        get { occasional?.fields.createOffset }
        set { updateOccasional { $0.createOffset = newValue } }
    }
    /// LE Connection Complete status (0 established, 0x02 cancelled attempt, ...).
    public var status: UInt8
    public var beganBeforeCapture: Bool
    public var encrypted: Bool
    /// LE, or BR/EDR (GATT over BR/EDR, ATT on PSM 0x001F; `BREDRLinkParameters`).
    public var transport: LinkTransport = .le
    /// `role` as a code (`RecordedRole`): a `String?` was 16 bytes of every connection.
    private var roleCode = RecordedRole.none
    public var handle: UInt16
    /// Disconnection Complete: time from the origin, reason, packet id.
    public var disconnect: (time: Int64, reason: HCIStatusCode, packetID: Int)?
    /// The controller that numbered `handle` (`ControllerHandle`; several in a btmon capture).
    public var controller: UInt16 = 0
    public var peer: PeerAddress?
    public var completePacketID: Int? {
        get { occasional?.fields.completePacketID }
        set { updateOccasional { $0.completePacketID = newValue } }
    }
    public var clientRxMTU: Int? {
        get { occasional?.fields.clientRxMTU }
        set { updateOccasional { $0.clientRxMTU = newValue } }
    }
    public var serverRxMTU: Int? {
        get { occasional?.fields.serverRxMTU }
        set { updateOccasional { $0.serverRxMTU = newValue } }
    }
    /// The local host's HCI Disconnect command, when it sent one.
    public var localDisconnect: (time: Int64, reason: UInt8, packetID: Int)? {
        get { occasional?.fields.localDisconnect }
        set { updateOccasional { $0.localDisconnect = newValue } }
    }
    /// The link ended with its local controller (Close Index, Delete Index, HCI Reset): no
    /// Disconnection Complete, no reason (`ControllerClosing`). `disconnect` is then nil.
    public var controllerClosing: ControllerClosing? {
        get { occasional?.fields.controllerClosing }
        set { updateOccasional { $0.controllerClosing = newValue } }
    }
    /// A link that holds no disconnection, on a sniffer's capture (`AirEnding`): the ending
    /// `diagnose` infers (`connection-timeout-on-air`: `disconnect` is then that inferred one, at
    /// the link's last packet), or the capture does not show it (`end` is then the link's last
    /// packet: the recording covers the link up to there). On any capture, a link whose handle a
    /// later Connection Complete gave to a new link (`AirEnding.Kind.handleReused`). Nil otherwise.
    public var airEnding: AirEnding? {
        get { occasional?.fields.airEnding }
        set { updateOccasional { $0.airEnding = newValue } }
    }
    /// True when `disconnect` is inferred from the air, not reported by a controller.
    public var disconnectInferred: Bool {
        if case .inferredDisconnect = airEnding?.kind { disconnect != nil } else { false }
    }
    /// The recording covers the link up to its last packet and does not show how it ended (lost
    /// from view, an encrypted LL_TERMINATE_IND whose reason is not in the capture, or its handle
    /// given to a new link with no Disconnection Complete).
    public var endNotShown: Bool {
        guard let air = airEnding, disconnect == nil else { return false }
        if case .inferredDisconnect = air.kind { return false }
        return true
    }
    /// What many connections lack, held apart (`Occasional`): nil while all of it is empty.
    var occasional: OccasionalBox?

    /// The local device's role on the link as the timeline names it (`central`, `peripheral`),
    /// if it does.
    public var role: String? {
        get { roleCode.name ?? occasional?.fields.otherRole }
        set {
            roleCode = RecordedRole(newValue)
            let other = roleCode == .other ? newValue : nil
            if other != occasional?.fields.otherRole { updateOccasional { $0.otherRole = other } }
        }
    }

    /// The address as people read it, or `unknown peer (handle 0x005A)`.
    public var peerLabel: String {
        get { storedLabel ?? Self.unnamedLabel(handle: handle) }
        set { storedLabel = newValue == Self.unnamedLabel(handle: handle) ? nil : newValue }
    }

    /// The label of a peer the capture never names, on `handle`.
    public static func unnamedLabel(handle: some BinaryInteger) -> String { "unknown peer (handle \(hex(handle, width: 4)))" }

    public init(id: Int64, handle: UInt16, peer: PeerAddress?, peerLabel: String, role: String?, status: UInt8, origin: Int64,
                offset: VirtualTime, beganBeforeCapture: Bool, createOffset: VirtualTime?, completePacketID: Int?,
                parameters: ConnectionParameters?, parameterUpdates: [(offset: Int64, parameters: ConnectionParameters, packetID: Int)],
                pdus: [RecordedPDU], disconnect: (time: Int64, reason: HCIStatusCode, packetID: Int)?,
                localDisconnect: (time: Int64, reason: UInt8, packetID: Int)?, end: Int64, clientRxMTU: Int?, serverRxMTU: Int?,
                encrypted: Bool, smpPackets: Int, security: [RecordedSecurityEvent] = [], transport: LinkTransport = .le) {
        self.id = id
        self.handle = handle
        self.peer = peer
        self.status = status
        self.origin = origin
        self.offset = offset
        self.beganBeforeCapture = beganBeforeCapture
        self.parameters = parameters
        self.pdus = pdus
        self.disconnect = disconnect
        self.end = end
        self.encrypted = encrypted
        self.transport = transport
        // What is held apart, in one step (RecordedConnection+Occasional.swift).
        updateOccasional {
            $0.createOffset = createOffset
            $0.completePacketID = completePacketID
            $0.parameterUpdates = parameterUpdates
            $0.localDisconnect = localDisconnect
            $0.clientRxMTU = clientRxMTU
            $0.serverRxMTU = serverRxMTU
            $0.smpPackets = smpPackets
            $0.security = security
        }
        self.peerLabel = peerLabel
        self.role = role
    }

    public var isEstablished: Bool { status == 0 }
}

/// One capture of a timeline, ready to replay: its connections and the advertising seen.
public struct RecordedSession: Sendable {
    public var captureID: Int64
    public var path: String
    public var fileName: String
    /// Unix microseconds of virtual time zero: the capture's first HCI record.
    public var start: Int64
    /// Offset of the capture's last record.
    public var end: VirtualTime
    public var connections: [RecordedConnection]
    /// Advertising per address text.
    public var advertising: [String: AdvertisingModel]
    /// Per peer address text (or `connection N`): the GATT database merged over its connections.
    public var gatt: [String: GATTDatabase]
    /// The controller's LE ACL buffers (LE Read Buffer Size), when the capture shows them.
    public var aclBufferSize: Int?
    public var aclBufferCount: Int?
    /// BR/EDR connections without ATT (their profiles are not simulated), for the report.
    public var classicConnections: Int
    /// Whether the capture sets up isochronous channels (CIS, BIG): their ISO data is not
    /// simulated, only the ACL links they ran on.
    public var isochronous = false
    public var formatDescription: String
    /// Where the file lacks records (writer drops, a cut or damaged file): a connection that
    /// diverges across one is a capture gap, not a divergence (`CaptureGap`).
    public var gaps: [CaptureGap] = []
    /// The capture's clock as the replay reads it: never running backwards (`RecordingClock`).
    public var clock = RecordingClock(firstPlausible: nil)
    /// Where the long PDUs of `connections` are read back from (`PDUBytes`); nil when every PDU
    /// is held inline.
    public var pduSource: PDUSource? = nil
    /// Every connection's recorded buffer returns, one connection's after another's (each
    /// connection's `completionRange`, `RecordedCompletions`).
    public var completionTimes: [Int64] = []

    /// When the recorded controller returned each LE ACL buffer the host filled on `c`'s link
    /// (Number Of Completed Packets), from its origin, one entry per packet (`RecordedCompletions`).
    public func completions(of c: RecordedConnection) -> ArraySlice<Int64> {
        let r = c.completionRange
        guard r.upperBound <= completionTimes.count else { return [] }
        return completionTimes[Int(r.lowerBound)..<Int(r.upperBound)]
    }

    /// Key of a connection's peer in `gatt` and the peripheral models.
    public static func peerKey(_ c: RecordedConnection) -> String {
        c.peer?.address.description ?? "connection \(c.id)"
    }
}

/// A step of the link's security the recording shows (Core v5.4 Vol 3 Part H 3.5; Vol 4 Part E
/// 7.7.8): what the replay's model of the system's pairing is built from.
public struct RecordedSecurityEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// SMP Pairing Request (the central's) or Security Request (the peripheral's): pairing began.
        case pairingStarted
        /// SMP Pairing Failed with this reason (REFERENCE.md "SMP Pairing Failed reasons").
        case pairingFailed(reason: UInt8)
        /// Encryption Change (or Key Refresh Complete) with this HCI status; `enabled` when on.
        case encryptionChange(status: UInt8, enabled: Bool)
    }
    public var kind: Kind
    /// Microseconds from the connection's origin.
    public var time: Int64
    public var packetID: Int

    public init(kind: Kind, time: Int64, packetID: Int) {
        self.kind = kind
        self.time = time
        self.packetID = packetID
    }
}
