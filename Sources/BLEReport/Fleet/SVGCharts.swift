import BLECore

/// Inline SVG charts for the HTML report: horizontal bars, histograms and connection lanes.
/// Plain SVG 1.1 with `<title>` tooltips; no script, no external resource.
public enum SVGCharts {
    /// Text safe inside HTML and SVG elements and attributes.
    public static func escape(_ s: String) -> String {
        // Most text has nothing to escape: a byte scan says so without walking its characters.
        guard s.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    static func n(_ v: Double) -> String { TextFormat.fixed(v, 1) }

    /// One bar of a bar chart.
    public struct Bar: Sendable {
        public var label: String
        public var note: String?
        public var value: Int
        public var color: String
        public init(label: String, note: String? = nil, value: Int, color: String) {
            self.label = label
            self.note = note
            self.value = value
            self.color = color
        }
    }

    /// Horizontal bars, one row per item, labels on the left, counts at the bar ends.
    public static func bars(_ items: [Bar], width: Int = 880) -> String {
        guard !items.isEmpty else { return "<p class=\"none\">none</p>" }
        let rowHeight = 24, labelWidth = 360, right = 300
        let height = items.count * rowHeight + 8
        let maxValue = max(1, items.map(\.value).max() ?? 1)
        let barSpace = Double(width - labelWidth - right)
        var out = "<svg class=\"chart\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">"
        for (i, item) in items.enumerated() {
            let y = 4 + i * rowHeight
            let w = max(2, barSpace * Double(item.value) / Double(maxValue))
            let label = item.label.count > 50 ? String(item.label.prefix(49)) + "…" : item.label
            out += "<g><title>\(escape(item.label))\(item.note.map { " — " + escape($0) } ?? ""): \(item.value)</title>"
            out += "<text x=\"\(labelWidth - 8)\" y=\"\(y + 16)\" text-anchor=\"end\" class=\"label\">\(escape(label))</text>"
            if let note = item.note {
                out += "<text x=\"\(labelWidth + Int(w) + 14 + 8 * String(item.value).count)\" y=\"\(y + 16)\" class=\"note\">\(escape(note))</text>"
            }
            out += "<rect x=\"\(labelWidth)\" y=\"\(y + 3)\" width=\"\(n(w))\" height=\"\(rowHeight - 6)\" fill=\"\(item.color)\" rx=\"2\"/>"
            out += "<text x=\"\(labelWidth + Int(w) + 6)\" y=\"\(y + 16)\" class=\"value\">\(item.value)</text></g>"
        }
        return out + "</svg>"
    }

    /// A histogram: one vertical bar per bucket, bucket labels under the axis.
    public static func histogram(title: String, subtitle: String? = nil, labels: [String], counts: [Int], width: Int = 540,
                                 height: Int = 200, color: String = "#4e79a7") -> String {
        let top = subtitle == nil ? 22 : 36, bottom = 48, left = 36
        let plotHeight = Double(height - top - bottom)
        let slot = Double(width - left - 6) / Double(max(1, counts.count))
        let maxValue = max(1, counts.max() ?? 1)
        var out = "<svg class=\"chart hist\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">"
        out += "<text x=\"\(left)\" y=\"14\" class=\"title\">\(escape(title))</text>"
        if let subtitle { out += "<text x=\"\(left)\" y=\"28\" class=\"note\">\(escape(subtitle))</text>" }
        out += "<line x1=\"\(left)\" y1=\"\(height - bottom)\" x2=\"\(width - 4)\" y2=\"\(height - bottom)\" class=\"axis\"/>"
        out += "<text x=\"\(left - 4)\" y=\"\(top + 8)\" text-anchor=\"end\" class=\"tick\">\(maxValue)</text>"
        out += "<text x=\"\(left - 4)\" y=\"\(height - bottom)\" text-anchor=\"end\" class=\"tick\">0</text>"
        for (i, count) in counts.enumerated() {
            let x = Double(left) + slot * Double(i)
            let h = plotHeight * Double(count) / Double(maxValue)
            let label = i < labels.count ? labels[i] : ""
            out += "<g><title>\(escape(label)): \(count)</title>"
            out += "<rect x=\"\(n(x + 1))\" y=\"\(n(Double(height - bottom) - h))\" width=\"\(n(max(1, slot - 2)))\" height=\"\(n(h))\" fill=\"\(color)\"/>"
            let lx = x + slot / 2
            out += "<text transform=\"translate(\(n(lx)),\(height - bottom + 8)) rotate(-50)\" text-anchor=\"end\" class=\"tick\">\(escape(label))</text></g>"
        }
        return out + "</svg>"
    }

    /// One lane of the connection timeline.
    public struct Lane: Sendable {
        public var label: String
        /// Connected span (µs since the epoch); nil for an attempt that never connected.
        public var start: Int64?
        public var end: Int64?
        /// When the attempt completed (drawn as a marker when it never connected).
        public var at: Int64?
        public var color: String
        public var tooltip: String
        /// Markers on the lane: time, colour, tooltip.
        public var marks: [(Int64, String, String)]
    }

    /// Connection lanes of one capture on a common time axis (seconds from the capture's start).
    public static func lanes(title: String, from t0: Int64, to t1: Int64, lanes: [Lane], width: Int = 1100) -> String {
        let labelWidth = 250, laneHeight = 20, top = 26, bottom = 24
        let height = top + lanes.count * laneHeight + bottom
        let span = Double(max(1, t1.saturatingSubtracting(t0)))
        let plot = Double(width - labelWidth - 14)
        func x(_ t: Int64) -> Double { Double(labelWidth) + plot * Double(min(max(t, t0), t1).saturatingSubtracting(t0)) / span }
        var out = "<svg class=\"chart lanes\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">"
        out += "<text x=\"4\" y=\"16\" class=\"title\">\(escape(title))</text>"
        // Axis ticks: about eight, at round second values.
        let seconds = span / 1_000_000
        let steps: [Double] = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 43200, 86400]
        // Past a day per tick (a span of absurd timestamps), eight ticks whatever the span.
        let step = steps.first { seconds / $0 <= 8 } ?? seconds / 8
        var tick = 0.0
        let axisY = top + lanes.count * laneHeight
        while tick <= seconds + 1e-9 {
            let tx = Double(labelWidth) + plot * tick / seconds
            out += "<line x1=\"\(n(tx))\" y1=\"\(top - 4)\" x2=\"\(n(tx))\" y2=\"\(axisY)\" class=\"grid\"/>"
            out += "<text x=\"\(n(tx))\" y=\"\(axisY + 14)\" text-anchor=\"middle\" class=\"tick\">\(TextFormat.fixed(tick, step < 1 ? 1 : 0)) s</text>"
            tick += step
        }
        for (i, lane) in lanes.enumerated() {
            let y = top + i * laneHeight
            out += "<g><title>\(escape(lane.tooltip))</title>"
            out += "<text x=\"\(labelWidth - 6)\" y=\"\(y + 14)\" text-anchor=\"end\" class=\"label\">\(escape(lane.label))</text>"
            if let s = lane.start, let e = lane.end {
                out += "<rect x=\"\(n(x(s)))\" y=\"\(y + 4)\" width=\"\(n(max(2, x(e) - x(s))))\" height=\"\(laneHeight - 8)\" fill=\"\(lane.color)\" rx=\"2\"/>"
            } else if let at = lane.at {
                out += "<path d=\"M\(n(x(at))) \(y + 4) l5 6 l-5 6 l-5 -6 z\" fill=\"\(lane.color)\"/>"
            }
            out += "</g>"
            for (t, color, tip) in lane.marks {
                out += "<line x1=\"\(n(x(t)))\" y1=\"\(y + 2)\" x2=\"\(n(x(t)))\" y2=\"\(y + laneHeight - 2)\" stroke=\"\(color)\" stroke-width=\"2\"><title>\(escape(tip))</title></line>"
            }
        }
        return out + "</svg>"
    }
}
