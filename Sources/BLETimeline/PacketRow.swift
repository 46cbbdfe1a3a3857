import BLECore

/// One packet row as `timeline` prints it.
public struct PacketRow: Sendable {
    public var captureID: Int64
    public var id: Int
    public var timestamp: Int64
    /// Microseconds since the capture's time origin (`TimelineQuery.timeOrigins`).
    public var relative: Int64
    public var direction: String
    public var kind: String
    public var length: Int
    public var layer: String
    public var summary: String
    public var connectionID: Int64?
    public var fileOffset: Int
    public var malformed: Bool
    /// The stored raw bytes (already redacted at import unless `--keep-keys`).
    public var raw: [UInt8]?
    public var problems: [String]
    /// What the layers decoded (only with `PacketFilter.withFields`).
    public var details = PacketDetails()

    /// `  1234   12.345678 rx att       Rcvd Handle Value Notification, Handle: 0x0012`
    public func textLine() -> String {
        let idText = String(id)
        let pad = String(repeating: " ", count: max(0, 7 - idText.count))
        let t = Self.seconds(relative)
        let tPad = String(repeating: " ", count: max(0, 12 - t.count))
        let layerText = layer + String(repeating: " ", count: max(0, 9 - layer.count))
        let conn = connectionID.map { " [conn \($0)]" } ?? ""
        return "\(pad)\(idText) \(tPad)\(t) \(direction) \(layerText) \(summary)\(conn)\(malformed ? " [malformed]" : "")"
    }

    /// `-v`: the UTC time and where the packet is in the file, each layer's decoded fields,
    /// decode problems, and a hex dump of the stored bytes.
    public func verboseLines() -> [String] {
        var out = ["        time \(Timestamp.iso8601(timestamp))  kind \(kind)  length \(length)  file offset \(fileOffset)"]
        out += details.textLines(indent: "        ")
        for p in problems { out.append("        problem: \(p)") }
        if let raw, !raw.isEmpty {
            var i = 0
            while i < raw.count {
                let chunk = raw[i..<min(raw.count, i + 16)]
                out.append("        \(hex(i, width: 4).dropFirst(2))  " + chunk.map(hex2).joined(separator: " ").lowercased())
                i += 16
            }
        }
        return out
    }

    /// One NDJSON object: the row, and under `decoded` what each layer decoded (with `withFields`).
    /// `ts_us` is microseconds since the Unix epoch; `t_rel_us` microseconds since the capture's time origin.
    public func jsonLine() -> String {
        var s = "{\"capture_id\":\(captureID),\"id\":\(id),\"ts_us\":\(timestamp),\"t_rel_us\":\(relative),\"direction\":\(JSON.quote(direction)),"
        s += "\"kind\":\(JSON.quote(kind)),\"length\":\(length),\"layer\":\(JSON.quote(layer)),\"summary\":\(JSON.quote(summary)),"
        s += "\"connection_id\":\(connectionID.map { String($0) } ?? "null"),\"file_offset\":\(fileOffset),\"malformed\":\(malformed)"
        if let raw { s += ",\"raw\":\"\(hexString(raw))\"" }
        if !problems.isEmpty { s += ",\"problems\":[\(problems.map(JSON.quote).joined(separator: ","))]" }
        if !details.isEmpty { s += ",\"decoded\":" + details.json().serialized() }
        return s + "}"
    }

    /// Microseconds as `S.ffffff` (any Int64, `Int64.min` included).
    static func seconds(_ us: Int64) -> String {
        let sign = us < 0 ? "-" : ""
        let a = us.magnitude
        let frac = String(a % 1_000_000)
        return "\(sign)\(a / 1_000_000).\(String(repeating: "0", count: 6 - frac.count))\(frac)"
    }
}
