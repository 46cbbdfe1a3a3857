import BLECore

/// Identifies one connection within one capture. Handles are reused by controllers;
/// `index` is not: it counts connections in the order the tracker saw them (1-based).
public struct ConnectionRef: Hashable, Sendable {
    public var index: Int
    public var handle: UInt16
    public init(index: Int, handle: UInt16) { self.index = index; self.handle = handle }
}

/// The transport a connection handle belongs to.
public enum Transport: String, Sendable {
    case le
    case bredr = "br/edr"
}

/// The protocol layer a packet was decoded up to (the `timeline --layer` filter).
public enum PacketLayer: String, Sendable, CaseIterable {
    case hci, acl, l2cap, att, smp, signaling, bredr, note, other
    /// Link-layer PDUs from an air (sniffer) capture: advertising and LL control.
    case linkLayer = "ll"
}

/// What the decoder made of one capture record.
public struct DecodedPacket: Sendable {
    /// One readable line, as `blereplay timeline` prints it (without time and direction).
    public var summary: String
    /// The highest layer decoded.
    public var layer: PacketLayer
    /// The connection the packet belongs to, when it belongs to one.
    public var connection: ConnectionRef?
    /// Facts the timeline stores (advertising reports, connection changes, ATT PDUs, …).
    public var events: [DecodedEvent]
    /// Parts that could not be decoded. The packet is still stored and counted.
    public var problems: [DecodeError]
    /// The direction the decoder worked out when the capture does not record it (air captures
    /// whose sniffer does not say who sent a PDU). Nil: the record's own direction stands.
    public var direction: Direction?
    /// Key material the packet carries, as byte ranges of records: what the timeline writer
    /// zeroes before it stores raw bytes (unless keys are kept). A range may name an earlier
    /// record: an SMP PDU reassembled from ACL fragments has its key in the fragments.
    public var secretRanges: [SecretRange] = []

    public init(summary: String, layer: PacketLayer, connection: ConnectionRef? = nil,
                events: [DecodedEvent] = [], problems: [DecodeError] = []) {
        self.summary = summary
        self.layer = layer
        self.connection = connection
        self.events = events
        self.problems = problems
    }
}

/// A fact decoded from a packet that the timeline stores beyond the packet row.
public enum DecodedEvent: Sendable {
    /// One advertising report (legacy or extended; an event may carry several).
    case advertisingReport(AdvertisingReport)
    /// An LE connection attempt ended (any status), or a BR/EDR Connection Complete.
    case connectionComplete(ConnectionComplete)
    /// ACL on a handle the capture never saw connect: a connection begun before the capture.
    case connectionFoundInProgress(ConnectionRef, transport: Transport)
    /// A connection found in progress learned its transport from a clue only one transport has
    /// (`clue` names it: "Mode Change", "L2CAP CID 0x0004").
    case transportLearned(ConnectionRef, transport: Transport, clue: String)
    case disconnectionComplete(DisconnectionComplete)
    /// A link that ended with its controller, no Disconnection Complete in the capture: btmon's
    /// Close Index or Delete Index, or an HCI Reset (`record`), of the controller it was on
    /// (`ControllerClosed`).
    case controllerClosed(ConnectionRef, record: String)
    /// A link whose handle a successful Connection Complete (`by`) gave to a new link while the
    /// capture still showed it open: it ended before that event, its Disconnection Complete not
    /// in the capture (a controller names one link by a handle while it exists).
    case linkReplaced(ConnectionRef, by: ConnectionRef)
    /// LE Connection Update Complete (status and the parameters now in force).
    case connectionUpdate(ConnectionUpdate)
    /// A command the host sent (opcode and, for the ones the analysis needs, parameters).
    case command(HCICommandInfo)
    /// Command Complete / Command Status with the status it reported.
    case commandResult(HCICommandResult)
    case encryptionChange(EncryptionChange)
    /// Other link-level events (data length, PHY, features, LTK request, parameter request).
    case linkEvent(LinkEvent)
    case hardwareError(code: UInt8)
    /// A complete ATT PDU on a connection (the record that completed it).
    case att(ATTEvent)
    /// A complete SMP PDU.
    case smp(SMPEvent)
    /// An LE signalling (CID 0x0005) command.
    case signaling(SignalingEvent)
    /// Dropped packets the writer reported since the previous record.
    case dropped(count: Int)
}

/// One advertising report (Core v5.4 Vol 4 Part E 7.7.65.2 / 7.7.65.13).
public struct AdvertisingReport: Sendable {
    public var address: BluetoothAddress
    public var addressType: AddressType
    /// Legacy report: 0 ADV_IND … 4 SCAN_RSP. Extended report: the 16-bit event type bits.
    public var eventType: UInt16
    public var isExtended: Bool
    public var isScanResponse: Bool
    public var rssi: Int8?
    public var txPower: Int8?
    public var data: [UInt8]
    public var parsed: AdvertisingData
    /// Extended reports: Event_Type bits 5-6 (7.7.65.13): 0 complete, 1 incomplete with more
    /// data to come in the next report, 2 incomplete and truncated. A fragment with status 1
    /// keeps its own bytes in `data` and nothing in `parsed`; the report that ends the run
    /// carries the whole advertisement in both (`ExtendedAdvertisingFragments`). Always 0 for
    /// legacy reports.
    public var dataStatus: UInt8 = 0

    public init(address: BluetoothAddress, addressType: AddressType, eventType: UInt16,
                isExtended: Bool, isScanResponse: Bool, rssi: Int8?, txPower: Int8?, data: [UInt8]) {
        self.address = address
        self.addressType = addressType
        self.eventType = eventType
        self.isExtended = isExtended
        self.isScanResponse = isScanResponse
        self.rssi = rssi
        self.txPower = txPower
        self.data = data
        self.parsed = AdvertisingData(decoding: data[...])
    }
}

/// LE (Enhanced) Connection Complete, or BR/EDR Connection Complete.
public struct ConnectionComplete: Sendable {
    public var connection: ConnectionRef
    public var transport: Transport
    public var status: HCIStatusCode
    /// 0 central, 1 peripheral (the local controller's role); nil when the capture does not
    /// say (a BR/EDR link neither side's page of is in it).
    public var role: UInt8?
    public var peerAddress: BluetoothAddress
    public var peerAddressType: AddressType
    /// Connection interval in units of 1.25 ms; nil when the capture cut the event before it
    /// (`RecordCutter`), as for latency and timeout.
    public var interval: UInt16?
    public var peripheralLatency: UInt16?
    /// Supervision timeout in units of 10 ms.
    public var supervisionTimeout: UInt16?
    public var eventName: String

    public init(connection: ConnectionRef, transport: Transport, status: HCIStatusCode, role: UInt8?,
                peerAddress: BluetoothAddress, peerAddressType: AddressType, interval: UInt16?,
                peripheralLatency: UInt16?, supervisionTimeout: UInt16?, eventName: String) {
        self.connection = connection
        self.transport = transport
        self.status = status
        self.role = role
        self.peerAddress = peerAddress
        self.peerAddressType = peerAddressType
        self.interval = interval
        self.peripheralLatency = peripheralLatency
        self.supervisionTimeout = supervisionTimeout
        self.eventName = eventName
    }
}

public struct DisconnectionComplete: Sendable {
    /// Nil when the handle matched no known connection.
    public var connection: ConnectionRef?
    public var handle: UInt16
    public var status: HCIStatusCode
    public var reason: HCIStatusCode
    public init(connection: ConnectionRef?, handle: UInt16, status: HCIStatusCode, reason: HCIStatusCode) {
        self.connection = connection
        self.handle = handle
        self.status = status
        self.reason = reason
    }
}

public struct ConnectionUpdate: Sendable {
    public var connection: ConnectionRef?
    public var status: HCIStatusCode
    public var interval: UInt16
    public var peripheralLatency: UInt16
    public var supervisionTimeout: UInt16
    public init(connection: ConnectionRef?, status: HCIStatusCode, interval: UInt16,
                peripheralLatency: UInt16, supervisionTimeout: UInt16) {
        self.connection = connection
        self.status = status
        self.interval = interval
        self.peripheralLatency = peripheralLatency
        self.supervisionTimeout = supervisionTimeout
    }
}

/// A command the host sent.
public struct HCICommandInfo: Sendable {
    public var opcode: UInt16
    public var name: String
    /// The connection the command names (Disconnect, LE Connection Update, …).
    public var connection: ConnectionRef?
    /// For Disconnect: the reason the host gave.
    public var reason: HCIStatusCode?
    /// For LE Create Connection / Extended Create Connection: the peer it targets; for LE Add
    /// Device To / Remove Device From Filter Accept List: the device added or removed.
    public var peerAddress: BluetoothAddress?
    /// The type of `peerAddress` (Peer_Address_Type / Address_Type) on the LE commands.
    public var peerAddressType: AddressType?
    /// For LE (Extended) Create Connection: Initiator_Filter_Policy asks for any device on the
    /// Filter Accept List instead of one peer (Core v5.4 Vol 4 Part E 7.8.12, 7.8.66).
    public var usesFilterAcceptList = false
    public init(opcode: UInt16, name: String, connection: ConnectionRef? = nil,
                reason: HCIStatusCode? = nil, peerAddress: BluetoothAddress? = nil) {
        self.opcode = opcode
        self.name = name
        self.connection = connection
        self.reason = reason
        self.peerAddress = peerAddress
    }
}

/// Command Complete (7.7.14) or Command Status (7.7.15).
public struct HCICommandResult: Sendable {
    public var opcode: UInt16
    public var name: String
    /// The HCI status (Core v5.4 Vol 1 Part F). Nil for a Command Complete whose return
    /// parameters carry no status, and for a vendor command's Command Complete, whose return
    /// parameters are the vendor's (`vendorReturn`). A Command Status always has one: the event
    /// is the spec's whatever the opcode (7.7.15).
    public var status: HCIStatusCode?
    public var isCommandStatus: Bool
    public var connection: ConnectionRef?
    /// For a vendor command's (OGF 0x3F) Command Complete: its first return byte, vendor-defined.
    public var vendorReturn: HCIVendorReturn?
    public init(opcode: UInt16, name: String, status: HCIStatusCode?, isCommandStatus: Bool,
                connection: ConnectionRef? = nil, vendorReturn: HCIVendorReturn? = nil) {
        self.opcode = opcode
        self.name = name
        self.status = status
        self.isCommandStatus = isCommandStatus
        self.connection = connection
        self.vendorReturn = vendorReturn
    }
}

/// Encryption Change (v1/v2) and Encryption Key Refresh Complete.
public struct EncryptionChange: Sendable {
    public var connection: ConnectionRef?
    public var status: HCIStatusCode
    /// Nil for a key refresh.
    public var enabled: Bool?
    public var isKeyRefresh: Bool
    public init(connection: ConnectionRef?, status: HCIStatusCode, enabled: Bool?, isKeyRefresh: Bool) {
        self.connection = connection
        self.status = status
        self.enabled = enabled
        self.isKeyRefresh = isKeyRefresh
    }
}

/// A link-level event kept by name with its decoded fields (for diagnosis and `timeline -v`).
public struct LinkEvent: Sendable {
    public var name: String
    public var connection: ConnectionRef?
    public var status: HCIStatusCode?
    /// Field name -> value, in wire order.
    public var fields: [(String, String)]
    /// Whether a failing `status` is recorded as an error row too. False where another event of
    /// the same packet records it (a connection complete's or connection update's failure).
    public var recordsError: Bool
    public init(name: String, connection: ConnectionRef?, status: HCIStatusCode?, fields: [(String, String)],
                recordsError: Bool = true) {
        self.name = name
        self.connection = connection
        self.status = status
        self.fields = fields
        self.recordsError = recordsError
    }
}

/// A complete ATT PDU on a connection.
public struct ATTEvent: Sendable {
    public var connection: ConnectionRef
    public var direction: Direction
    /// The raw first byte, kept even when the PDU is malformed.
    public var opcode: ATTOpcode
    /// Nil when the PDU could not be decoded (see `problem`).
    public var pdu: ATTPDU?
    public var problem: DecodeError?
    /// The whole PDU (opcode and parameters).
    public var bytes: [UInt8]
    /// The Enhanced ATT bearer the PDU travelled on (Core v5.4 Vol 3 Part G 5.4), named by the
    /// Source CID of the side that requested the channel, so both directions name it alike;
    /// nil for the fixed ATT channel 0x0004. ATT transactions are sequential per bearer.
    public var bearer: UInt16?
    /// The capture writer cut this PDU (Android's filtered snoop log, `PacketDecoder+SnoopCut`):
    /// `bytes` holds what was kept, `pdu` and `problem` are nil. Its opcode is known, its
    /// fields are not; it is neither malformed nor whole.
    public var isCut = false
    public init(connection: ConnectionRef, direction: Direction, opcode: ATTOpcode, pdu: ATTPDU?,
                problem: DecodeError?, bytes: [UInt8], bearer: UInt16? = nil) {
        self.connection = connection
        self.direction = direction
        self.opcode = opcode
        self.pdu = pdu
        self.problem = problem
        self.bytes = bytes
        self.bearer = bearer
    }
}

/// A complete SMP PDU on a connection.
public struct SMPEvent: Sendable {
    public var connection: ConnectionRef
    public var direction: Direction
    public var code: SMPCode
    public var pdu: SMPPDU?
    public var problem: DecodeError?
    public init(connection: ConnectionRef, direction: Direction, code: SMPCode, pdu: SMPPDU?, problem: DecodeError?) {
        self.connection = connection
        self.direction = direction
        self.code = code
        self.pdu = pdu
        self.problem = problem
    }
}

/// An LE signalling command (Core v5.4 Vol 3 Part A 4).
public struct SignalingEvent: Sendable {
    public var connection: ConnectionRef
    public var direction: Direction
    public var code: UInt8
    public var identifier: UInt8
    public var name: String
    /// For Command Reject: the reason; for Connection Parameter Update Response: the result.
    public var result: UInt16?
    /// For Connection Parameter Update Request: interval min/max (1.25 ms), latency, timeout (10 ms).
    public var parameters: (intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, timeout: UInt16)?
    public init(connection: ConnectionRef, direction: Direction, code: UInt8, identifier: UInt8, name: String,
                result: UInt16? = nil,
                parameters: (intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, timeout: UInt16)? = nil) {
        self.connection = connection
        self.direction = direction
        self.code = code
        self.identifier = identifier
        self.name = name
        self.result = result
        self.parameters = parameters
    }
}
