import BLETimeline

/// Narrows a diagnosis to what `diagnose`'s filters select (the same packet filters as
/// `timeline`: `--connection`, `--address`, `--conn-handle`, `--handle`, `--opcode`,
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

    /// What was kept, and whether the packet filters selected any packet at all.
    public struct Outcome: Sendable {
        public var diagnosis: [CaptureDiagnosis]
        public var packetsSelected: Int?
        public var findingsKept: Int
    }

    public func apply(_ diagnosis: [CaptureDiagnosis], store: TimelineStore) throws -> Outcome {
        var frames: [Int64: Set<Int>]?
        var connections = Set<Int64>()
        var selected = 0
        if let packets {
            var f = packets
            f.withFields = false
            f.limit = nil
            var byCapture: [Int64: Set<Int>] = [:]
            try TimelineQuery(store: store).forEachPacket(f) { p in
                byCapture[p.captureID, default: []].insert(p.id)
                if let c = p.connectionID { connections.insert(c) }
                selected += 1
            }
            frames = byCapture
        }
        func keep(_ f: ConnectionDiagnosis.RenderedFinding, connectionSelected: Bool) -> Bool {
            if let s = minimumSeverity, f.finding.severity < s { return false }
            guard let frames else { return true }
            if f.finding.evidence.isEmpty { return connectionSelected }
            let inCapture = frames[f.finding.captureID] ?? []
            return f.finding.evidence.contains { inCapture.contains($0) }
        }
        var kept = 0
        var out: [CaptureDiagnosis] = []
        for var c in diagnosis {
            c.findings = c.findings.filter { keep($0, connectionSelected: false) }
            kept += c.findings.count
            c.connections = c.connections.compactMap { conn in
                let selectedConnection = frames == nil || connections.contains(conn.id)
                var conn = conn
                conn.findings = conn.findings.filter { keep($0, connectionSelected: selectedConnection) }
                kept += conn.findings.count
                if minimumSeverity != nil, conn.findings.isEmpty { return nil }
                if !selectedConnection && conn.findings.isEmpty { return nil }
                return conn
            }
            out.append(c)
        }
        return Outcome(diagnosis: out, packetsSelected: packets == nil ? nil : selected, findingsKept: kept)
    }
}
