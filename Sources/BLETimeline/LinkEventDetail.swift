/// `link_event.detail`: a link event's decoded fields (`LinkEvent.fields` in BLEDecode) as
/// `name=value` pairs in wire order, separated by spaces (`max_tx_octets=251 max_tx_time=2120`,
/// `tx_phy=2M rx_phy=2M`). Written by the timeline, read back by the diagnosis and the replay.
public enum LinkEventDetail {
    /// The detail text of `fields`; nil when there are none.
    public static func text(_ fields: [(String, String)]) -> String? {
        fields.isEmpty ? nil : fields.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
    }

    /// The fields of a detail text, by name.
    public static func fields(_ detail: String) -> [Substring: Substring] {
        var out: [Substring: Substring] = [:]
        for field in detail.split(separator: " ") {
            let parts = field.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { out[parts[0]] = parts[1] }
        }
        return out
    }
}
