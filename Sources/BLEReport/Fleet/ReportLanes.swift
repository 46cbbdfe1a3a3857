import BLECore

/// The per-connection timeline of the HTML report: one chart per capture, one lane per
/// connection attempt, coloured by how it ended, with ATT errors, ATT timeouts and SMP
/// failures marked where they happened.
public enum ReportLanes {
    /// Captures drawn; the warehouse loads the events of this many captures only.
    public static let captureLimit = 24
    static let laneLimit = 20

    static func make(_ s: FleetStatistics) -> String {
        let c = ReportHTML.colors
        var out = "<p class=\"legend\">"
        for (color, text) in [(c.normal, "ended normally (0x13, 0x16)"), (c.timeout, "connection timeout (0x08)"),
                              (c.failed, "failed to be established (0x3E)"), (c.other, "other reason"),
                              (c.open, "open at the end of the capture"), (c.gray, "failed or cancelled attempt"),
                              (c.att, "| ATT error (other than 0x0A ending a discovery)"), (c.attTimeout, "| ATT timeout"), (c.smp, "| SMP pairing failed")] {
            out += "<span><i style=\"background:\(color)\"></i>\(SVGCharts.escape(text))</span>"
        }
        out += "</p>\n"
        // Captures with trouble first (abnormal disconnects, failures, timeouts, pairing failures), then by name.
        let ranked = s.laneOrder
        for index in ranked.prefix(captureLimit) {
            out += chart(s, index) + "\n"
        }
        if ranked.count > captureLimit {
            out += "<p class=\"note\">Lanes for the \(captureLimit) captures with the most trouble; all \(ranked.count) captures' connections are in the table below and in <code>connections.csv</code>.</p>\n"
        }
        return out
    }

    static func chart(_ s: FleetStatistics, _ index: Int) -> String {
        let capture = s.captures[index]
        let c = ReportHTML.colors
        var marks: [Int64: [(Int64, String, String)]] = [:]
        for e in capture.events {
            guard let id = e.connectionID else { continue }
            let color: String
            switch e.kind {
            // Attribute Not Found answering a discovery request is how discovery ends, not a fault.
            case .att where e.code == 0x0A && e.opcode.map(CaptureFactsLoader.discoveryOpcodes.contains) == true: continue
            case .att: color = c.att
            case .attTimeout: color = c.attTimeout
            case .smp: color = c.smp
            default: continue
            }
            let what = e.kind == .attTimeout ? e.name : "\(e.kind.title) \(hex(e.code)) \(e.name)"
            marks[id, default: []].append((e.timestamp, color, "\(what) (packet \(e.packetID))"))
        }
        var lanes: [SVGCharts.Lane] = []
        for conn in capture.connections.prefix(laneLimit) {
            let identity = s.identities[index][conn.id]
            let peer = conn.knownPeer ?? "handle \(hex(conn.handle, width: 4))"
            let name = identity?.name.map { $0.count > 14 ? String($0.prefix(13)) + "…" : $0 }
            let label = name.map { "\($0) \(peer)" } ?? peer
            var color = ReportHTML.reasonColor(conn.disconnectReason)
            var tip = "\(identity?.name.map { "\($0) " } ?? "")\(peer), handle \(hex(conn.handle, width: 4))"
            if conn.established {
                tip += ", \(TextFormat.duration(conn.observedDuration))"
                if let r = conn.disconnectReason {
                    tip += ", ended \(hex(r)) \(HCIStatusCode(UInt8(truncatingIfNeeded: r)).name)"
                    if let cb = conn.coreBluetoothEnd { tip += " (\(cb))" }
                } else {
                    tip += ", open at the end of the capture"
                }
            } else {
                color = c.gray
                tip += ", LE Connection Complete status \(hex(conn.status)) \(HCIStatusCode(UInt8(truncatingIfNeeded: conn.status)).name)"
            }
            lanes.append(SVGCharts.Lane(label: label, start: conn.established ? conn.start : nil, end: conn.established ? conn.end : nil,
                                        at: conn.completedAt, color: color, tooltip: tip, marks: marks[conn.id] ?? []))
        }
        // Counted as the headline counts: a link that began before the capture is no attempt.
        let more: String
        if capture.connections.count > laneLimit {
            let attempts = capture.connections.filter(\.isAttempt).count
            let before = capture.connections.count - attempts
            more = " (first \(laneLimit) of \(attempts) attempts" + (before > 0 ? " and \(before) link(s) that began before the capture)" : ")")
        } else {
            more = ""
        }
        // The axis spans what is drawn, not the capture's first and last records (PacketLogger
        // notes can be stamped days before the traffic).
        var times: [Int64] = []
        for lane in lanes {
            times += [lane.start, lane.end, lane.at].compactMap { $0 } + lane.marks.map(\.0)
        }
        let first = times.min() ?? capture.firstTimestamp ?? 0
        let last = times.max() ?? capture.lastTimestamp ?? first
        let pad = max(1_000, last.saturatingSubtracting(first) / 50)
        let start = first.saturatingSubtracting(pad)
        let title = "\(capture.label) — from \(Timestamp.iso8601(start).prefix(19).replacing("T", with: " ")) UTC\(more)"
        return SVGCharts.lanes(title: title, from: start, to: last.saturatingAdding(pad), lanes: lanes)
    }
}
