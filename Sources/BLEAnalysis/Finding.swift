import BLECore

/// One diagnosis about a connection (or a capture), with the packets that prove it.
public struct Finding: Sendable, Equatable {
    public enum Severity: String, Sendable, Comparable, CaseIterable {
        case info, warning, error
        var rank: Int { self == .error ? 2 : self == .warning ? 1 : 0 }
        public static func < (l: Self, r: Self) -> Bool { l.rank < r.rank }
    }

    /// Nil for a capture-level finding.
    public var connectionID: Int64?
    public var captureID: Int64
    public var severity: Severity
    /// Stable machine-readable code (`supervision-timeout`, `att-error`, …).
    public var code: String
    public var title: String
    public var detail: String
    /// Frame numbers of the packets that prove it, in capture order, each once.
    public var evidence: [Int]
    /// What a CoreBluetooth app would have seen (`CBError.connectionTimeout`, `CBATTError.…`).
    public var cbError: String?
    /// What an Android app's `BluetoothGattCallback` received (`AndroidStatusRule`). Nil here:
    /// the analysis takes the one of the last error among the evidence packets.
    public var android: AndroidGattStatus?

    public init(connectionID: Int64?, captureID: Int64, severity: Severity, code: String, title: String,
                detail: String, evidence: [Int], cbError: String? = nil, android: AndroidGattStatus? = nil) {
        self.connectionID = connectionID
        self.captureID = captureID
        self.severity = severity
        self.code = code
        self.title = title
        self.detail = detail
        // Read in capture order, as the packets happened (the engine collects them by role).
        self.evidence = Array(Set(evidence)).sorted()
        self.cbError = cbError
        self.android = android
    }

    /// The codes of findings about the capture itself (a gap, a link that began before it, a
    /// filtered log, a request the capture ended on), not about something an app was told.
    static let aboutTheCaptureCodes: Set<String> = ["capture-gap", "capture-ended-pending", "snoop-log-filtered"]

    /// Whether the finding takes the Android status of the last error among its evidence when it
    /// has none of its own: a finding about the capture cites packets (a link's first one, which
    /// may be its Disconnection Complete or an Error Response) without being about them, so it names
    /// no callback.
    var takesAndroidStatusFromEvidence: Bool { !Self.aboutTheCaptureCodes.contains(code) }
}
