import BLECore
import BLEAnalysis
import BLETimeline

/// `diagnose`'s output written connection by connection (issue 17): what is held is one
/// capture's head and one connection, whatever the number of links, and the text or JSON is
/// byte for byte what `DiagnosisRenderer` makes of the whole diagnosis.
public struct DiagnosisStream {
    public let store: TimelineStore
    /// The filter's selection; nil when no filter was given.
    public let selection: DiagnosisFilter.Selection?
    private let reader: DiagnosisReader

    /// Analyses the timeline when needed, then looks up what the filter selects.
    public init(store: TimelineStore, filter: DiagnosisFilter) throws {
        try Analyzer.analyze(store)
        self.store = store
        selection = filter.isEmpty ? nil : try filter.select(in: store)
        reader = try DiagnosisReader(store.database)
    }

    /// What the filter kept: findings, and per capture the connections by transport. Without a
    /// filter, counted in SQL; with one, by reading every connection once through it.
    public struct Kept: Sendable {
        public var findings = 0
        public var connections: [Int64: (le: Int, other: Int)] = [:]
    }

    public func kept() throws -> Kept {
        var kept = Kept()
        for capture in try store.captures() {
            guard let selection else {
                kept.connections[capture.id] = try reader.connectionCounts(of: capture)
                continue
            }
            kept.findings += selection.capture(try reader.head(capture)).findings.count
            var counts = (le: 0, other: 0)
            try reader.forEachConnection(of: capture) { c in
                guard let conn = selection.connection(c) else { return }
                kept.findings += conn.findings.count
                if conn.transport == "le" { counts.le += 1 } else { counts.other += 1 }
            }
            kept.connections[capture.id] = counts
        }
        return kept
    }

    /// Writes the diagnosis, text or JSON, to `sink`; returns the worst severity of the findings written.
    @discardableResult
    public func write(json: Bool, kept: Kept, to sink: @escaping (String) -> Void) throws -> Finding.Severity? {
        var worst: Finding.Severity?
        func note(_ findings: [ConnectionDiagnosis.RenderedFinding]) {
            for f in findings where worst.map({ f.finding.severity > $0 }) ?? true { worst = f.finding.severity }
        }
        var text = LineStream(sink: sink)
        var doc = JSONStream(sink: sink)
        if json { doc.openArray() }
        for capture in try store.captures() {
            var head = try reader.head(capture)
            if let selection { head = selection.capture(head) }
            note(head.findings)
            if json {
                doc.openObject()
                for (key, value) in DiagnosisRenderer.captureJSONFields(head) { doc.value(value, key: key) }
                doc.openArray(key: "connections")
            } else {
                // The capture's own counts, with how many of its connections the filter shows.
                let total = try reader.connectionCounts(of: capture)
                let counts = kept.connections[capture.id] ?? (0, 0)
                text.lines(DiagnosisRenderer.headLines(head, le: total.le, other: total.other,
                                                       shown: selection == nil ? nil : counts.le + counts.other))
            }
            var body = DiagnosisRenderer.CaptureBody(platform: head.platform)
            try reader.forEachConnection(of: capture) { c in
                var conn = c
                if let selection {
                    guard let kept = selection.connection(c) else { return }
                    conn = kept
                }
                note(conn.findings)
                if json { doc.value(DiagnosisRenderer.connectionJSON(conn)) } else { text.lines(body.lines(conn)) }
            }
            if json {
                doc.close(array: true)
                doc.close(array: false)
            } else {
                text.lines(body.endLines())
            }
        }
        if json {
            doc.close(array: true)
            doc.flush()
            sink("\n")
        } else {
            text.flush()
        }
        return worst
    }
}
