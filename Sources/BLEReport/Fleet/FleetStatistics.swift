import BLECore
import BLEAnalysis

/// An error kind and code: the unit every statistic counts.
public struct EventKey: Sendable, Hashable, Comparable {
    public var kind: ErrorEvent.Kind
    public var code: Int
    public static func < (l: EventKey, r: EventKey) -> Bool { (l.kind, l.code) < (r.kind, r.code) }
}

/// How often one code occurred, with its spec name and CoreBluetooth name.
public struct CodeCount: Sendable {
    public var key: EventKey
    public var name: String
    /// The CoreBluetooth name an app sees most often for it (nil when none applies).
    public var cbError: String?
    /// Every CoreBluetooth outcome and its count, when the same code maps to more than one
    /// (0x16 after the app's own cancel gives no error, otherwise CBError.unknown).
    public var cbErrors: [CBCount]
    /// What an Android app's callback got for it most often (nil when no Android status applies).
    public var android: AndroidGattStatus? = nil
    /// Every Android status and its count, when the same code gives more than one (0x16: 0
    /// `GATT_SUCCESS` after the app's own disconnect, 22 after the stack's).
    public var androids: [AndroidCount] = []
    /// Events of this code that gave no Android status while others did (`androids` lists those).
    public var androidNone = 0
    public var count: Int
    /// Finer breakdowns by name: `command` (HCI opcode), `request` (ATT opcode), `characteristic`,
    /// `sender` (`peer` or `local`), `device`.
    public var parts: [String: [Part]]

    /// `androids` as a report cell says them: `0 GATT_SUCCESS ×4, 22 … ×1`, then `none ×N`.
    public var androidBreakdown: String {
        (androids.map { "\($0.android) ×\($0.count)" } + (androidNone > 0 ? ["none ×\(androidNone)"] : [])).joined(separator: ", ")
    }

    public struct CBCount: Sendable {
        public var cbError: String?
        public var count: Int

        /// An error an app is given (`CBError.…`, `CBATTError.…`), not a sentence about a
        /// callback that never comes.
        var isGiven: Bool { cbError.map { $0.hasPrefix("CBError.") || $0.hasPrefix("CBATTError.") } ?? false }

        /// Most common first; on a tie, an error an app is given before a sentence, then by
        /// name: the first is the code's `cb_error` (the report and the warehouse rank alike).
        public static func ranked(_ counts: [CBCount]) -> [CBCount] {
            counts.sorted { a, b in
                (b.count, b.isGiven ? 1 : 0, a.cbError ?? "") < (a.count, a.isGiven ? 1 : 0, b.cbError ?? "")
            }
        }
    }

    public struct AndroidCount: Sendable {
        public var android: AndroidGattStatus
        public var count: Int
    }

    /// One line of a breakdown: a label (`0x200D LE Create Connection`) and its count.
    public struct Part: Sendable, Comparable {
        public var id: String
        public var label: String
        public var count: Int
        public static func < (l: Part, r: Part) -> Bool { (-l.count, l.id) < (-r.count, r.id) }
    }
}

/// One group of a breakdown (a device, a firmware revision, a capture, a period) with its
/// denominators and its event counts.
public struct GroupRow: Sendable {
    /// Values of the dimension's key columns.
    public var key: [String]
    public var captures: Int
    /// LE Connection Complete events (any status).
    public var attempts: Int
    /// Established connections.
    public var connections: Int
    /// Connected time observed, in microseconds.
    public var connectedTime: Int64
    public var events: [EventKey: Int]
    /// What the events of each code gave an app in this group (a device's own outcome, not the
    /// fleet's most common one): CoreBluetooth labels (`ErrorEvent.cbLabel`) and Android statuses.
    public var outcomes: [EventKey: Outcomes] = [:]

    public struct Outcomes: Sendable {
        public var cb: [String: Int] = [:]
        public var android: [AndroidGattStatus: Int] = [:]
        public init() {}

        /// The CoreBluetooth outcome that stands for the group's events of the code
        /// (`CodeCount.CBCount.ranked`), nil for "no error".
        public var cbError: String? {
            CodeCount.CBCount.ranked(cb.map { CodeCount.CBCount(cbError: $0.key.isEmpty ? nil : $0.key, count: $0.value) }).first?.cbError
        }

        /// The Android status that stands for `total` events (`androidFields`: none when most got none).
        public func android(total: Int) -> AndroidGattStatus? { CodeCount.androidFields(android, total: total).android }
    }

    /// Connected time in hours.
    public var connectionHours: Double { Double(connectedTime) / 3_600_000_000 }
}

/// What a breakdown groups by.
public enum Dimension: String, Sendable, CaseIterable {
    /// `phone`: the local device, the Android phone that wrote the capture (its bugreport's
    /// identity, `CaptureFacts.phone`); the others are the peers (`device`, `firmware`).
    case device, firmware, phone, capture, time

    /// The phone key of a capture whose phone is unknown (no bugreport).
    public static let unknownPhone = ["?", "?", "?"]

    /// Key column names.
    public var columns: [String] {
        switch self {
        case .device: ["address", "name"]
        case .firmware: ["manufacturer", "model", "firmware"]
        case .phone: ["phone_manufacturer", "phone_model", "build_fingerprint"]
        case .capture: ["capture"]
        case .time: ["period"]
        }
    }

    public var title: String {
        switch self {
        case .device: "device"
        case .firmware: "manufacturer / model / firmware revision"
        case .phone: "phone (manufacturer / model / build fingerprint)"
        case .capture: "capture"
        case .time: "period"
        }
    }
}

/// ATT timeouts of one request to one attribute of one device, by one requester.
public struct ATTTimeoutRow: Sendable {
    public var opcode: Int
    public var request: String
    /// `FleetStatistics.attributeLabel`.
    public var characteristic: String
    public var address: String
    public var name: String
    /// `local` or `peer`.
    public var requester: String
    public var count: Int

    public init(opcode: Int, request: String, characteristic: String, address: String, name: String, requester: String, count: Int) {
        self.opcode = opcode
        self.request = request
        self.characteristic = characteristic
        self.address = address
        self.name = name
        self.requester = requester
        self.count = count
    }

    /// Key columns joined: the tie-break of the table's order.
    var joinedKey: String { hex(opcode) + request + characteristic + address + name + requester }

    /// Most frequent first, then by key.
    public static func ordered(_ rows: [ATTTimeoutRow]) -> [ATTTimeoutRow] {
        rows.sorted { ($1.count, $0.joinedKey) < ($0.count, $1.joinedKey) }
    }
}

/// Latency and outcomes of one kind of ATT request over the fleet.
public struct LatencyRow: Sendable {
    public var key: LatencyKey
    public var name: String
    public var outcomes: [String: Int]
    /// Latencies (µs) of the requests that got a response (histogram over `Histogram.latencyBounds`).
    public var samples: SampleSummary
    public var transactions: Int { outcomes.values.reduce(0, +) }
    public func percentile(_ p: Double) -> Int64? { samples.percentile(p) }
}

/// Connection durations, overall and by disconnect reason.
public struct DurationStats: Sendable {
    public struct Row: Sendable {
        /// Disconnect reason; nil for all connections, or for those still open at the end.
        public var reason: Int?
        public var label: String
        public var samples: SampleSummary
    }
    /// Connections seen from establishment to disconnect.
    /// (Histogram over `bucketBounds`.)
    public var complete: SampleSummary
    /// Connections that began before the capture or outlived it (durations are lower bounds).
    public var partial: Int
    public var byReason: [Row]
    /// Histogram buckets: upper bounds in µs (the last is open-ended).
    public static let bucketBounds: [Int64] = [1_000_000, 10_000_000, 60_000_000, 600_000_000, 3_600_000_000]
    public static let bucketLabels = ["< 1 s", "1-10 s", "10 s-1 min", "1-10 min", "10 min-1 h", ">= 1 h"]

    public var histogram: [Int] { complete.histogram }
}

/// Fixed-bucket histograms.
public enum Histogram {
    /// Latency buckets: upper bounds in µs (the last bucket is open-ended).
    public static let latencyBounds: [Int64] = [1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000,
                                               1_000_000, 2_000_000, 5_000_000, 10_000_000, 30_000_000]
    public static let latencyLabels = ["<1ms", "1-2ms", "2-5ms", "5-10ms", "10-20ms", "20-50ms", "50-100ms", "100-200ms",
                                       "200-500ms", "0.5-1s", "1-2s", "2-5s", "5-10s", "10-30s", ">=30s"]

    public static func counts(_ samples: [Int64], bounds: [Int64]) -> [Int] {
        var out = Array(repeating: 0, count: bounds.count + 1)
        for s in samples {
            var i = 0
            while i < bounds.count && s >= bounds[i] { i += 1 }
            out[i] += 1
        }
        return out
    }
}

/// The whole fleet report: figures computed once from the captures, rendered many ways.
public struct FleetStatistics: Sendable {
    public var inputs: [InputOutcome]
    public var captures: [CaptureFacts]
    /// Code counts per kind, most frequent first (ties by code).
    public var counts: [ErrorEvent.Kind: [CodeCount]]
    public var latency: [LatencyRow]
    public var durations: DurationStats
    public var groups: [Dimension: [GroupRow]]
    /// `hour`, `day` or `week`: the period of the time breakdown, chosen from the span covered.
    public var period: String
    /// The identity each connection is counted under, by capture index and connection id.
    public var identities: [[Int64: DeviceIdentity]]
    /// ATT timeouts by request, attribute, device and requester (the `att_timeouts` table).
    public var attTimeouts: [ATTTimeoutRow]
    /// Indices into `captures` of those with connections, the most trouble first (abnormal
    /// disconnects, failed attempts, ATT timeouts, pairing failures), then by label: the order of
    /// the HTML report's connection lanes.
    public var laneOrder: [Int]

    /// LE connection attempts: every LE Connection Complete. A link that began before the capture
    /// was never attempted in it (it still counts as established, for hours and disconnects).
    public var attempts: Int { captures.reduce(0) { $0 + $1.connections.filter(\.isAttempt).count } }
    /// Established links that began before their capture (counted as established, not as attempts).
    public var beganBefore: Int { captures.reduce(0) { $0 + $1.connections.filter { $0.established && $0.beganBeforeCapture }.count } }
    public var established: Int { captures.reduce(0) { $0 + $1.connections.filter(\.established).count } }
    public var connectedTime: Int64 { captures.reduce(0) { $0.saturatingAdding($1.connections.map(\.observedDuration).saturatingSum()) } }
    public var bredrLinks: Int { captures.reduce(0) { $0 + $1.bredrLinks } }
    public var failedInputs: [InputOutcome] { inputs.filter { $0.status == .failed } }

    /// The breakdowns the report shows, in order: by phone only when some capture came with
    /// its phone's identity (an Android bugreport), so reports of other captures keep their tables.
    public var breakdowns: [Dimension] {
        let phones = groups[.phone]?.contains { $0.key != Dimension.unknownPhone } ?? false
        return [.device, .firmware] + (phones ? [.phone] : []) + [.capture, .time]
    }

    /// Total events of a kind.
    public func total(_ kind: ErrorEvent.Kind) -> Int { (counts[kind] ?? []).reduce(0) { $0 + $1.count } }

    /// The row for one code of one kind.
    public func count(_ kind: ErrorEvent.Kind, _ code: Int) -> CodeCount? {
        counts[kind]?.first { $0.key.code == code }
    }

    /// Characteristic label: `2A37 Heart Rate Measurement`, a descriptor under it, or why none.
    public static func attributeLabel(_ e: ErrorEvent) -> (id: String, label: String) {
        if let op = e.opcode, CaptureFactsLoader.discoveryOpcodes.contains(op) {
            return ("(discovery)", "(GATT discovery)")
        }
        guard let c = e.characteristic else {
            return e.handle.map { ("handle \(hex($0, width: 4))", "unknown characteristic (handle \(hex($0, width: 4)))") }
                ?? ("(none)", "(no handle)")
        }
        var label = uuidLabel(c)
        var id = c
        if let d = e.descriptor {
            label = "\(uuidLabel(d)) of \(label)"
            id = "\(d) of \(c)"
        }
        return (id, label)
    }

    /// `2A37 Heart Rate Measurement`, or the UUID alone when it has no assigned name.
    public static func uuidLabel(_ uuid: String) -> String {
        guard let u = BluetoothUUID(uuid), let name = AssignedNumbers.uuidName(u) else { return uuid }
        return "\(uuid) \(name)"
    }
}
