import BLECore
import BLEAnalysis
import BLECore

/// What the fleet report needs from one capture: plain values, so captures read into their
/// own timelines on different threads can be brought together afterwards.
///
/// Connection and event ids are the row ids of the timeline the capture was read from; they
/// mean something only within one `CaptureFacts`.
public struct CaptureFacts: Sendable {
    /// The file named on the command line (or found in a directory) that held this capture:
    /// the capture itself, or the timeline it was imported into.
    public var input: String
    /// How the report names the capture: the input path, with the capture's file name added
    /// when a timeline holds several captures.
    public var label: String
    /// The capture file's name and path as the timeline recorded them.
    public var captureName: String
    public var capturePath: String
    /// SHA-256 of the capture file: the same capture given twice is counted once.
    public var sha256: String
    public var formatDescription: String
    public var records: Int
    public var firstTimestamp: Int64?
    public var lastTimestamp: Int64?
    /// `complete`, `truncated` or `corrupt` (read up to damage), as the timeline says.
    public var status: String
    public var malformedPackets: Int
    /// LE connection attempts (rows of the `connections` view).
    public var connections: [ConnectionFact]
    /// BR/EDR links in the capture: not counted in the LE statistics, only mentioned.
    public var bredrLinks: Int
    /// Every counted error, in packet order.
    public var events: [ErrorEvent]
    /// ATT transactions with a response, latency samples by request.
    public var latencies: [LatencyKey: [Int64]]
    /// ATT transaction outcomes by request (`ok`, `error`, `timeout`, `disconnected`, `pending`).
    public var outcomes: [LatencyKey: [String: Int]]
    /// Names of the ATT opcodes seen in the capture.
    public var attOpcodeNames: [Int: String]
    /// Identity per peer address, from advertising and Device Information reads (`devices` view).
    public var devices: [String: DeviceIdentity]
    /// Transactions and findings, when the reader was asked for them (`FleetReader.Options.details`).
    public var details: CaptureDetails? = nil
    /// The phone that wrote the capture (the local device), from its Android bugreport; nil
    /// when the capture came from none.
    public var phone: PhoneIdentity? = nil

    /// Time the capture covers, in microseconds.
    public var span: Int64 { (lastTimestamp ?? 0).saturatingSubtracting(firstTimestamp ?? 0) }
}

/// Who a device is, as far as a capture tells: advertised or GAP name, and the Device
/// Information Service strings (manufacturer 0x2A29, model 0x2A24, firmware revision 0x2A26).
public struct DeviceIdentity: Sendable, Hashable {
    public var name: String?
    public var manufacturer: String?
    public var model: String?
    public var firmwareRevision: String?

    public init(name: String? = nil, manufacturer: String? = nil, model: String? = nil, firmwareRevision: String? = nil) {
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.firmwareRevision = firmwareRevision
    }

    /// Fields of `self`, with the gaps filled from `other`.
    public func filled(from other: DeviceIdentity?) -> DeviceIdentity {
        guard let other else { return self }
        return DeviceIdentity(name: name ?? other.name, manufacturer: manufacturer ?? other.manufacturer,
                              model: model ?? other.model, firmwareRevision: firmwareRevision ?? other.firmwareRevision)
    }
}

/// One LE connection attempt (a row of the `connections` view).
public struct ConnectionFact: Sendable {
    public var id: Int64
    public var handle: Int
    /// Nil or all-zero when the controller did not say (a cancelled attempt).
    public var peerAddress: String?
    /// Status of LE Connection Complete: 0 established, 0x02 cancelled, other codes failed.
    public var status: Int
    /// When the controller reported the attempt's outcome (LE Connection Complete).
    public var completedAt: Int64?
    /// When the connection was established, or its first packet when it began before the capture.
    public var start: Int64?
    /// When it ended, or its last packet when it was still open at the end of the capture.
    public var end: Int64?
    public var beganBeforeCapture: Bool
    /// An attempt the capture shows (LE Connection Complete of any status); a link that began
    /// before the capture is an established connection but no attempt.
    public var isAttempt: Bool { !beganBeforeCapture }
    /// Still open when the capture ended (no Disconnection Complete).
    public var openAtEnd: Bool
    public var disconnectReason: Int?
    /// The CoreBluetooth error an app would see for that disconnect (`errors.cb_error`).
    public var disconnectCBError: String?
    /// Device Information read on this very connection.
    public var identity: DeviceIdentity
    /// The local controller's role (`central`, `peripheral`; nil when the link began before the
    /// capture and nothing told): on a peripheral link the app is a CBPeripheralManager.
    public var localRole: String? = nil

    /// What the report's CoreBluetooth column says of this link's end: the CBError, or for a link
    /// where the local device was the peripheral what a CBPeripheralManager app gets instead.
    public var coreBluetoothEnd: String? {
        disconnectCBError ?? (localRole == "peripheral" && disconnectReason != nil ? PeripheralManagerView.reportLabel : nil)
    }

    /// True for an attempt that came up: LE Connection Complete reported success and the link did
    /// not end with 0x3E Connection Failed to be Established (Core v5.4 Vol 6 Part B 4.5.2: the
    /// peripheral never answered in the first connection events, so no connection existed).
    public var established: Bool { status == 0 && disconnectReason != 0x3E }

    /// Connected time observed in the capture, in microseconds (0 when not established).
    public var observedDuration: Int64 {
        guard established, let start, let end, end > start else { return 0 }
        return end.saturatingSubtracting(start)
    }

    /// A peer address worth grouping by (not missing, not all-zero).
    public var knownPeer: String? {
        guard let peerAddress, peerAddress != "00:00:00:00:00:00" else { return nil }
        return peerAddress
    }
}

/// Which request a latency sample or outcome belongs to: ATT opcode and who sent the request.
public struct LatencyKey: Sendable, Hashable, Comparable {
    public var opcode: Int
    /// `local` (the capturing host sent the request) or `peer`.
    public var requester: String

    public init(opcode: Int, requester: String) {
        self.opcode = opcode
        self.requester = requester
    }

    public static func < (l: LatencyKey, r: LatencyKey) -> Bool {
        (l.requester, l.opcode) < (r.requester, r.opcode)
    }
}

/// One counted error: a disconnect, a failed or cancelled connection attempt, a failed HCI
/// command, an ATT Error Response, an ATT timeout, an SMP Pairing Failed, or another error row.
public struct ErrorEvent: Sendable {
    /// `detail` of a disconnect on a link where the local device was the peripheral.
    public static let localPeripheral = "local peripheral"
    /// `detail` of a `vendorCommand` whose definer documents the first return byte as a status.
    public static let vendorStatus = "status per its definer"
    /// `detail` of a `vendorCommand` whose first return byte nobody documented here.
    public static let vendorDefined = "vendor-defined"

    /// How the statistics name the command of an `.hciCommand` or `.vendorCommand` event
    /// ("0x2040 LE Set Data Length"), a vendor command's with what its first return byte is; a
    /// name that holds the opcode already ("Vendor 0xFC17 (OCF 0x017)") is not preceded by it.
    public var commandLabel: String {
        let op = opcode.map { hex($0, width: 4) } ?? "?"
        let name = opcodeName ?? "unknown command"
        let label = name.hasPrefix("Vendor 0x") ? name : "\(op) \(name)"
        return kind == .vendorCommand ? "\(label), \(detail ?? Self.vendorDefined)" : label
    }

    /// What the event gave a CoreBluetooth app, as the report tallies it: its CBError, the
    /// peripheral manager's "no callback" for a link where the local device was the peripheral
    /// (never "none", as if it saw no error), or "" for none.
    public var cbLabel: String {
        cbError ?? (kind == .disconnect && detail == Self.localPeripheral ? PeripheralManagerView.reportLabel : "")
    }

    public enum Kind: String, Sendable, CaseIterable, Comparable {
        /// Disconnection Complete with its reason (`errors` context `disconnect`).
        case disconnect
        /// LE Connection Complete with a non-zero status that was not a cancel.
        case connectionFailed = "connection-failed"
        /// LE Connection Complete with status 0x02 after LE Create Connection Cancel.
        case connectionCancelled = "connection-cancelled"
        /// Command Status / Command Complete with a non-zero status.
        case hciCommand = "hci-command"
        /// A vendor command's (OGF 0x3F) Command Complete with a non-zero first return byte: the
        /// vendor's value, never an HCI status (`errors` layer `vendor`).
        case vendorCommand = "vendor-command"
        /// ATT Error Response.
        case att
        /// An ATT request without a response within 30 s.
        case attTimeout = "att-timeout"
        /// SMP Pairing Failed.
        case smp
        /// Any other error row (encryption, connection update, L2CAP rejects, hardware errors).
        case other

        public static func < (l: Kind, r: Kind) -> Bool {
            allCases.firstIndex(of: l)! < allCases.firstIndex(of: r)!
        }

        /// How a table names the kind.
        public var title: String {
            switch self {
            case .disconnect: "disconnect"
            case .connectionFailed: "connection failed"
            case .connectionCancelled: "connection cancelled"
            case .hciCommand: "HCI command"
            case .vendorCommand: "vendor command status"
            case .att: "ATT error"
            case .attTimeout: "ATT timeout"
            case .smp: "SMP pairing failed"
            case .other: "other"
            }
        }
    }

    public var kind: Kind
    public var timestamp: Int64
    public var packetID: Int
    public var connectionID: Int64?
    /// The error code (HCI status or reason, ATT error, SMP reason; for a timeout, the opcode).
    public var code: Int
    public var name: String
    public var cbError: String?
    /// What an Android app's BluetoothGattCallback received (`errors.android_status`, `android_name`).
    public var android: AndroidGattStatus? = nil
    /// HCI command opcode (`hciCommand`, `vendorCommand`) or ATT request opcode (`att`, `attTimeout`).
    public var opcode: Int?
    public var opcodeName: String?
    /// The attribute handle an ATT error or timeout concerns.
    public var handle: Int?
    /// The characteristic at that handle (its value, declaration or one of its descriptors),
    /// when the connection's GATT database is known.
    public var characteristic: String?
    /// The descriptor at that handle, when it is one.
    public var descriptor: String?
    /// For `att` and `smp`: `peer` when the peer sent it, `local` when the capturing host did.
    /// For `disconnect`: `local peripheral` when the local device was the peripheral on the link.
    /// For `vendorCommand`: what the first return byte is (`VendorCommandMeaning`).
    /// For `other`: the timeline's error context.
    public var detail: String?
}
