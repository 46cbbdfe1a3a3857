import BLECore

/// `report.html`: one self-contained page (inline CSS, inline SVG charts, a few lines of inline
/// script to sort tables by clicking a header). Nothing is fetched from the network.
public enum ReportHTML {
    /// Rows an HTML table shows at most; the CSV has them all.
    static let rowLimit = 1000

    static let colors = (normal: "#59a14f", timeout: "#f28e2b", failed: "#e15759", other: "#9c755f", open: "#76b7b2",
                         gray: "#bab0ac", att: "#e15759", attTimeout: "#b07aa1", smp: "#4e79a7", command: "#edc948")

    public static func make(_ s: FleetStatistics, tables: [ReportTable]) -> String {
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        out += "<title>BLE error-code report</title>\n<style>\(css)</style>\n</head>\n<body>\n"
        out += "<h1>BLE error-code report</h1>\n<ul class=\"headlines\">\n"
        for line in ReportSummary.headlines(s) { out += "<li>\(SVGCharts.escape(line))</li>\n" }
        out += "</ul>\n"
        let failed = s.failedInputs
        if !failed.isEmpty {
            out += "<p class=\"warn\">\(failed.count) file(s) could not be read and are left out of every figure:</p>\n<ul class=\"failed\">\n"
            for f in failed.prefix(50) {
                out += "<li><code>\(SVGCharts.escape(f.path))</code>: \(SVGCharts.escape(ReportSummary.shortReason(f)))</li>\n"
            }
            if failed.count > 50 { out += "<li>… \(failed.count - 50) more in the Inputs table</li>\n" }
            out += "</ul>\n"
        }
        out += "<nav><strong>Tables:</strong> " + tables.map { "<a href=\"#\($0.id)\">\(SVGCharts.escape($0.title))</a>" }.joined(separator: " · ") + "</nav>\n"
        for t in tables {
            out += "<section id=\"\(t.id)\">\n<h2>\(SVGCharts.escape(t.title))</h2>\n<p class=\"note\">\(SVGCharts.escape(t.note))</p>\n"
            out += chart(for: t.id, s)
            out += table(t)
            out += "</section>\n"
        }
        out += "<footer>Made by <code>blereplay report</code>. Codes: Bluetooth Core Specification; CoreBluetooth names: Apple CBError.h / CBATTError (disconnect mapping is a heuristic, see REFERENCE.md).</footer>\n"
        out += "<script>\(script)</script>\n</body>\n</html>\n"
        return out
    }

    static func codeBars(_ list: [CodeCount], color: (CodeCount) -> String) -> String {
        guard !list.isEmpty else { return "" }
        return SVGCharts.bars(list.map { c in
            SVGCharts.Bar(label: "\(hex(c.key.code)) \(c.name)", note: c.cbError ?? (c.cbErrors.isEmpty ? nil : "several"),
                          value: c.count, color: color(c))
        })
    }

    static func reasonColor(_ reason: Int?) -> String {
        switch reason {
        case nil: colors.open
        case 0x13?, 0x16?: colors.normal
        case 0x08?: colors.timeout
        case 0x3E?: colors.failed
        default: colors.other
        }
    }

    static func chart(for id: String, _ s: FleetStatistics) -> String {
        switch id {
        case "disconnect_reasons":
            return codeBars(s.counts[.disconnect] ?? []) { reasonColor($0.key.code) }
        case "connection_failures":
            var bars: [SVGCharts.Bar] = []
            if let c = s.count(.disconnect, 0x3E) {
                bars.append(.init(label: "failed to be established (0x3E)", note: c.cbError, value: c.count, color: colors.failed))
            }
            for c in s.counts[.connectionFailed] ?? [] {
                bars.append(.init(label: "status \(hex(c.key.code)) \(c.name)", note: c.cbError, value: c.count, color: colors.other))
            }
            for c in s.counts[.connectionCancelled] ?? [] {
                bars.append(.init(label: "cancelled by the host (\(hex(c.key.code)))", value: c.count, color: colors.gray))
            }
            return bars.isEmpty ? "" : SVGCharts.bars(bars)
        case "hci_command_errors":
            return codeBars(s.counts[.hciCommand] ?? []) { _ in colors.command }
        case "att_errors":
            return codeBars(s.counts[.att] ?? []) { $0.key.code == 0x0A ? colors.gray : colors.att }
        case "att_timeouts":
            guard s.total(.attTimeout) > 0 else { return "" }
            return SVGCharts.bars((s.counts[.attTimeout] ?? []).map { .init(label: $0.name, value: $0.count, color: colors.attTimeout) })
        case "smp_failures":
            return codeBars(s.counts[.smp] ?? []) { _ in colors.smp }
        case "att_latency":
            let top = s.latency.filter { !$0.samples.isEmpty }
                .sorted { ($1.samples.count, $0.key) < ($0.samples.count, $1.key) }.prefix(6)
            guard !top.isEmpty else { return "" }
            return "<div class=\"grid\">" + top.map { r in
                let p = [0.5, 0.95, 0.99].map { TextFormat.duration(r.percentile($0) ?? 0) }
                return SVGCharts.histogram(title: "\(r.name) (\(r.key.requester) requests, n=\(r.samples.count))",
                                           subtitle: "p50 \(p[0]) · p95 \(p[1]) · p99 \(p[2]) · max \(TextFormat.duration(r.samples.max ?? 0))",
                                           labels: Histogram.latencyLabels,
                                           counts: r.samples.histogram)
            }.joined() + "</div>\n"
        case "connection_durations":
            return SVGCharts.histogram(title: "Complete connections by duration (n=\(s.durations.complete.count))",
                                       labels: DurationStats.bucketLabels, counts: s.durations.histogram, width: 460,
                                       color: colors.normal) + "\n"
        case "connections":
            return ReportLanes.make(s)
        default:
            return ""
        }
    }

    static func table(_ t: ReportTable) -> String {
        var out = "<div class=\"scroll\"><table class=\"sortable\" id=\"t-\(t.id)\"><thead><tr>"
        for c in t.columns {
            out += "<th\(c.kind == .text ? "" : " class=\"num\"") title=\"sort\">\(SVGCharts.escape(c.title))</th>"
        }
        out += "</tr></thead><tbody>\n"
        if t.rows.isEmpty {
            out += "<tr><td colspan=\"\(t.columns.count)\" class=\"none\">none</td></tr>\n"
        }
        for row in t.rows.prefix(rowLimit) {
            out += "<tr>"
            for (i, cell) in row.enumerated() {
                let numeric = i < t.columns.count && t.columns[i].kind != .text
                if numeric {
                    out += "<td class=\"num\" data-v=\"\(cell.sortNumber ?? "-1e300")\">\(SVGCharts.escape(cell.display))</td>"
                } else {
                    out += "<td>\(SVGCharts.escape(cell.display))</td>"
                }
            }
            out += "</tr>\n"
        }
        out += "</tbody></table></div>\n"
        if t.rows.count > rowLimit {
            out += "<p class=\"note\">\(t.rows.count - rowLimit) more rows in <code>\(t.id).csv</code>.</p>\n"
        }
        return out
    }

    static let css = """
    body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:24px auto;max-width:1180px;padding:0 16px;color:#222;background:#fff}
    h1{font-size:24px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 4px;border-bottom:1px solid #ddd;padding-bottom:3px}
    .headlines{padding-left:18px;margin:6px 0}.headlines li{margin:2px 0}
    .note{color:#555;margin:2px 0 8px;max-width:900px}.warn{color:#a33;font-weight:600}.none{color:#888}
    nav{font-size:12.5px;line-height:1.8;margin:12px 0;padding:8px 10px;background:#f6f6f4;border-radius:4px}
    nav a{color:#2a5d9f;text-decoration:none}
    table{border-collapse:collapse;font-size:12.5px;margin:6px 0}th,td{padding:3px 8px;border-bottom:1px solid #e6e6e6;text-align:left;white-space:nowrap}
    th{background:#f2f2f0;cursor:pointer;user-select:none;position:sticky;top:0}th.num,td.num{text-align:right}
    th[data-dir=asc]::after{content:" \\25B2";font-size:9px}th[data-dir=desc]::after{content:" \\25BC";font-size:9px}
    tbody tr:nth-child(even){background:#fafaf8}.scroll{overflow-x:auto;max-height:640px;overflow-y:auto}
    svg.chart{display:block;margin:6px 0}svg .label{font-size:12px;fill:#333}svg .value{font-size:12px;fill:#222;font-weight:600}
    svg .note{font-size:11px;fill:#777}svg .title{font-size:12px;fill:#222;font-weight:600}svg .tick{font-size:10px;fill:#666}
    svg .axis{stroke:#999}svg .grid{stroke:#eee}.grid{display:flex;flex-wrap:wrap;gap:6px 18px}
    .legend span{display:inline-block;margin-right:14px;font-size:12px}.legend i{display:inline-block;width:12px;height:10px;margin-right:4px;vertical-align:-1px}
    footer{margin:32px 0 8px;color:#777;font-size:12px}code{font-size:12px}
    """

    /// Sorts a table by the clicked header: numbers by `data-v`, text otherwise; click again to reverse.
    static let script = """
    document.querySelectorAll("table.sortable th").forEach(function (th) {
      th.addEventListener("click", function () {
        var table = th.closest("table"), body = table.tBodies[0], i = th.cellIndex;
        var dir = th.dataset.dir === "asc" ? "desc" : "asc";
        table.querySelectorAll("th").forEach(function (h) { delete h.dataset.dir; });
        th.dataset.dir = dir;
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[i], y = b.cells[i], r;
          if (!x || !y) return 0;
          if (x.dataset.v !== undefined && y.dataset.v !== undefined) r = parseFloat(x.dataset.v) - parseFloat(y.dataset.v);
          else r = x.textContent.localeCompare(y.textContent);
          return dir === "asc" ? r : -r;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
    """
}
