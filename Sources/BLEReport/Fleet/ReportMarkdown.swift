import BLECore

/// `report.md`: the same figures as the HTML report, for pasting into a pull request or an issue.
public enum ReportMarkdown {
    public static func make(_ s: FleetStatistics, tables: [ReportTable]) -> String {
        var out = "# BLE error-code report\n\n"
        for line in ReportSummary.headlines(s) { out += "- \(line)\n" }
        out += "\nCodes are named as the Bluetooth Core specification names them; CoreBluetooth columns give the "
            + "CBError / CBATTError an iOS app would see (REFERENCE.md mapping). Every table is also a CSV file beside this one.\n"
        for t in tables {
            out += "\n## \(t.title)\n\n\(t.note)\n\n"
            out += t.markdown(limit: t.id.hasPrefix("events_by_") || t.id == "connections" ? 40 : 60)
        }
        return out
    }
}
