import BLETimeline

/// Narrows a diagnosis to what `diagnose`'s filters select (the same packet filters as
/// `timeline`: `--connection`, `--address`, `--conn-handle`, `--controller`, `--handle`, `--opcode`,
/// `--since`, `--until`; and `--severity`).
///
/// A finding is kept when it is at least `minimumSeverity` and, with packet filters, when one of
/// its evidence packets is selected (a finding without evidence: when its connection is). A
/// connection is kept when one of its packets is selected and, with `--severity`, when a finding
/// of it is kept.
public struct DiagnosisFilter: Sendable {
    public var minimumSeverity: Finding.Severity?
    /// The packet filters; nil when none was given.
    public var packets: PacketFilter?

    public init(minimumSeverity: Finding.Severity? = nil, packets: PacketFilter? = nil) {
        self.minimumSeverity = minimumSeverity
        self.packets = packets
    }

    public var isEmpty: Bool { minimumSeverity == nil && packets == nil }

    /// The filter with the packets it selects looked up once, applied to a capture's head and
    /// then to each connection as it is read (`DiagnosisReader`).
    public struct Selection: Sendable {
        var minimumSeverity: Finding.Severity?
        /// Selected frames per capture; nil without packet filters.
        var frames: [Int64: Set<Int>]?
        var connections = Set<Int64>()
        /// How many packets the packet filters selected; nil without packet filters.
        public var packetsSelected: Int?

        func keep(_ f: ConnectionDiagnosis.RenderedFinding, connectionSelected: Bool) -> Bool {
            if let s = minimumSeverity, f.finding.severity < s { return false }
            guard let frames else { return true }
            if f.finding.evidence.isEmpty { return connectionSelected }
            let inCapture = frames[f.finding.captureID] ?? []
            return f.finding.evidence.contains { inCapture.contains($0) }
        }

        /// The capture with the capture-level findings kept.
        public func capture(_ c: CaptureDiagnosis) -> CaptureDiagnosis {
            var c = c
            c.findings = c.findings.filter { keep($0, connectionSelected: false) }
            return c
        }

        /// The connection with the findings kept, or nil when the connection is not.
        public func connection(_ conn: ConnectionDiagnosis) -> ConnectionDiagnosis? {
            let selectedConnection = frames == nil || connections.contains(conn.id)
            var conn = conn
            conn.findings = conn.findings.filter { keep($0, connectionSelected: selectedConnection) }
            if minimumSeverity != nil, conn.findings.isEmpty { return nil }
            if !selectedConnection && conn.findings.isEmpty { return nil }
            return conn
        }
    }

    /// Looks up the packets the packet filters select.
    public func select(in store: TimelineStore) throws -> Selection {
        var selection = Selection(minimumSeverity: minimumSeverity)
        guard let packets else { return selection }
        var f = packets
        f.withFields = false
        f.limit = nil
        var byCapture: [Int64: Set<Int>] = [:]
        var selected = 0
        var connections = Set<Int64>()
        try TimelineQuery(store: store).forEachPacket(f) { p in
            byCapture[p.captureID, default: []].insert(p.id)
            if let c = p.connectionID { connections.insert(c) }
            selected += 1
        }
        selection.frames = byCapture
        selection.connections = connections
        selection.packetsSelected = selected
        return selection
    }
}
